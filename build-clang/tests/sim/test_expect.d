build-clang/tests/sim/test_expect: tests/unit/sim/test_expect.c \
  scaler/sim/expect.h common/hist.h scaler/sim/scenario.h \
  scaler/sim/timeline.h

scaler/sim/expect.h:

common/hist.h:

scaler/sim/scenario.h:

scaler/sim/timeline.h:

build-clang/tests/sim/test_model: tests/unit/sim/test_model.c \
  scaler/sim/model.h common/hist.h scaler/sim/scenario.h

scaler/sim/model.h:

common/hist.h:

scaler/sim/scenario.h:

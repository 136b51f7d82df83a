build-clang/tests/sim/test_timeline: tests/unit/sim/test_timeline.c \
  scaler/sim/timeline.h

scaler/sim/timeline.h:

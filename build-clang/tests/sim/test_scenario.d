build-clang/tests/sim/test_scenario: tests/unit/sim/test_scenario.c \
  scaler/sim/scenario.h

scaler/sim/scenario.h:

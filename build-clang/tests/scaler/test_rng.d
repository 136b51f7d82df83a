build-clang/tests/scaler/test_rng: tests/unit/scaler/test_rng.c \
  scaler/rng.h

scaler/rng.h:

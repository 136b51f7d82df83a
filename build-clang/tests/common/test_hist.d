build-clang/tests/common/test_hist: tests/unit/common/test_hist.c \
  common/hist.h

common/hist.h:

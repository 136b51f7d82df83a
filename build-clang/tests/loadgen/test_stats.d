build-clang/tests/loadgen/test_stats: tests/unit/loadgen/test_stats.c \
  loadgen/stats.h common/hist.h

loadgen/stats.h:

common/hist.h:

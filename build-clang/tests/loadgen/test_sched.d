build-clang/tests/loadgen/test_sched: tests/unit/loadgen/test_sched.c \
  loadgen/sched.h

loadgen/sched.h:

build-clang/tests/loadgen/test_opts: tests/unit/loadgen/test_opts.c \
  loadgen/opts.h loadgen/sched.h loadgen/url.h

loadgen/opts.h:

loadgen/sched.h:

loadgen/url.h:

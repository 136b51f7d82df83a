build-clang/tests/loadgen/test_url: tests/unit/loadgen/test_url.c \
  loadgen/url.h

loadgen/url.h:

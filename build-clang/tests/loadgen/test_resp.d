build-clang/tests/loadgen/test_resp: tests/unit/loadgen/test_resp.c \
  loadgen/resp.h

loadgen/resp.h:

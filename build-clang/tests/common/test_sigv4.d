build-clang/tests/common/test_sigv4: tests/unit/common/test_sigv4.c \
  common/buf.h common/sigv4.h

common/buf.h:

common/sigv4.h:

build-clang/tests/common/test_units: tests/unit/common/test_units.c \
  common/units.h common/buf.h

common/units.h:

common/buf.h:

build-clang/tests/emulator/test_acbor: tests/unit/emulator/test_acbor.c \
  emulator/acbor.h common/buf.h emulator/awserr.h scaler/status.h \
  emulator/model.h

emulator/acbor.h:

common/buf.h:

emulator/awserr.h:

scaler/status.h:

emulator/model.h:

build-clang/tests/emulator/test_awsjson: \
  tests/unit/emulator/test_awsjson.c emulator/awsjson.h common/buf.h \
  emulator/awserr.h scaler/status.h emulator/model.h

emulator/awsjson.h:

common/buf.h:

emulator/awserr.h:

scaler/status.h:

emulator/model.h:

build-clang/tests/emulator/test_query: tests/unit/emulator/test_query.c \
  emulator/model.h emulator/query.h emulator/awserr.h scaler/status.h

emulator/model.h:

emulator/query.h:

emulator/awserr.h:

scaler/status.h:

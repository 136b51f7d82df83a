build-clang/obj/emulator/api_stubs.o: emulator/api_stubs.c emulator/api.h \
  emulator/awserr.h scaler/status.h

emulator/api.h:

emulator/awserr.h:

scaler/status.h:

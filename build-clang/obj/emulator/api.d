build-clang/obj/emulator/api.o: emulator/api.c emulator/api.h \
  emulator/awserr.h scaler/status.h common/xalloc.h

emulator/api.h:

emulator/awserr.h:

scaler/status.h:

common/xalloc.h:

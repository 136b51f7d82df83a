build-clang/obj/emulator/auth.o: emulator/auth.c emulator/auth.h \
  common/sigv4.h common/buf.h emulator/awserr.h scaler/status.h \
  common/xalloc.h emulator/model.h

emulator/auth.h:

common/sigv4.h:

common/buf.h:

emulator/awserr.h:

scaler/status.h:

common/xalloc.h:

emulator/model.h:

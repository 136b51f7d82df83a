build-clang/obj/emulator/awserr.o: emulator/awserr.c emulator/awserr.h \
  scaler/status.h

emulator/awserr.h:

scaler/status.h:

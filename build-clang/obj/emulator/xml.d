build-clang/obj/emulator/xml.o: emulator/xml.c emulator/xml.h \
  common/buf.h emulator/awserr.h scaler/status.h emulator/model.h

emulator/xml.h:

common/buf.h:

emulator/awserr.h:

scaler/status.h:

emulator/model.h:

build-clang/obj/emulator/acbor.o: emulator/acbor.c emulator/acbor.h \
  common/buf.h emulator/awserr.h scaler/status.h emulator/model.h \
  emulator/awsjson.h

emulator/acbor.h:

common/buf.h:

emulator/awserr.h:

scaler/status.h:

emulator/model.h:

emulator/awsjson.h:

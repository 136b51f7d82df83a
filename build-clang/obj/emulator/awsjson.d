build-clang/obj/emulator/awsjson.o: emulator/awsjson.c emulator/awsjson.h \
  common/buf.h emulator/awserr.h scaler/status.h emulator/model.h

emulator/awsjson.h:

common/buf.h:

emulator/awserr.h:

scaler/status.h:

emulator/model.h:

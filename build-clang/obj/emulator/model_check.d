build-clang/obj/emulator/model_check.o: emulator/model_check.c \
  emulator/model.h emulator/awserr.h scaler/status.h

emulator/model.h:

emulator/awserr.h:

scaler/status.h:

build-clang/obj/emulator/query.o: emulator/query.c emulator/query.h \
  emulator/awserr.h scaler/status.h emulator/model.h common/xalloc.h

emulator/query.h:

emulator/awserr.h:

scaler/status.h:

emulator/model.h:

common/xalloc.h:

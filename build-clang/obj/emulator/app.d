build-clang/obj/emulator/app.o: emulator/app.c emulator/app.h \
  scaler/rng.h

emulator/app.h:

scaler/rng.h:

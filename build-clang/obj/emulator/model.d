build-clang/obj/emulator/model.o: emulator/model.c emulator/model.h

emulator/model.h:

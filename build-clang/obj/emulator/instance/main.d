build-clang/obj/emulator/instance/main.o: emulator/instance/main.c \
  emulator/instance_main.h

emulator/instance_main.h:

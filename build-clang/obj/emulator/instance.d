build-clang/obj/emulator/instance.o: emulator/instance.c \
  emulator/instance.h common/ev.h common/log.h common/xalloc.h

emulator/instance.h:

common/ev.h:

common/log.h:

common/xalloc.h:

build-clang/obj/emulator/balancer.o: emulator/balancer.c \
  emulator/balancer.h common/xalloc.h

emulator/balancer.h:

common/xalloc.h:

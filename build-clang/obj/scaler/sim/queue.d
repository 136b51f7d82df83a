build-clang/obj/scaler/sim/queue.o: scaler/sim/queue.c scaler/sim/queue.h \
  common/xalloc.h

scaler/sim/queue.h:

common/xalloc.h:

build-clang/obj/scaler/sim/timeline.o: scaler/sim/timeline.c \
  scaler/sim/timeline.h common/xalloc.h

scaler/sim/timeline.h:

common/xalloc.h:

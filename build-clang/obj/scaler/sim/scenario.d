build-clang/obj/scaler/sim/scenario.o: scaler/sim/scenario.c \
  scaler/sim/scenario.h common/units.h common/xalloc.h

scaler/sim/scenario.h:

common/units.h:

common/xalloc.h:

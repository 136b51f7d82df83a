build-clang/obj/scaler/sim/model.o: scaler/sim/model.c scaler/sim/model.h \
  common/hist.h scaler/sim/scenario.h common/xalloc.h scaler/rng.h \
  scaler/sim/queue.h

scaler/sim/model.h:

common/hist.h:

scaler/sim/scenario.h:

common/xalloc.h:

scaler/rng.h:

scaler/sim/queue.h:

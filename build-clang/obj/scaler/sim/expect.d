build-clang/obj/scaler/sim/expect.o: scaler/sim/expect.c \
  scaler/sim/expect.h common/hist.h scaler/sim/scenario.h \
  scaler/sim/timeline.h common/xalloc.h scaler/sim/model.h

scaler/sim/expect.h:

common/hist.h:

scaler/sim/scenario.h:

scaler/sim/timeline.h:

common/xalloc.h:

scaler/sim/model.h:

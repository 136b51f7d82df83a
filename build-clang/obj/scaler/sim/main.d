build-clang/obj/scaler/sim/main.o: scaler/sim/main.c common/units.h \
  common/xalloc.h scaler/sim/elastic.h scaler/sim/timeline.h \
  scaler/sim/expect.h common/hist.h scaler/sim/scenario.h \
  scaler/sim/report.h common/buf.h scaler/sim/run.h scaler/sim/model.h

common/units.h:

common/xalloc.h:

scaler/sim/elastic.h:

scaler/sim/timeline.h:

scaler/sim/expect.h:

common/hist.h:

scaler/sim/scenario.h:

scaler/sim/report.h:

common/buf.h:

scaler/sim/run.h:

scaler/sim/model.h:

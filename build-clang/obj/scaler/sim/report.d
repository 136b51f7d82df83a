build-clang/obj/scaler/sim/report.o: scaler/sim/report.c \
  scaler/sim/report.h common/buf.h scaler/sim/elastic.h \
  scaler/sim/timeline.h common/svg.h common/xalloc.h

scaler/sim/report.h:

common/buf.h:

scaler/sim/elastic.h:

scaler/sim/timeline.h:

common/svg.h:

common/xalloc.h:

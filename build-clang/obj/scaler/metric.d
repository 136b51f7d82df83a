build-clang/obj/scaler/metric.o: scaler/metric.c scaler/metric.h \
  scaler/status.h

scaler/metric.h:

scaler/status.h:

build-clang/obj/scaler/alarm.o: scaler/alarm.c scaler/alarm.h \
  scaler/metric.h scaler/status.h

scaler/alarm.h:

scaler/metric.h:

scaler/status.h:

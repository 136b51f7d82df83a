build-clang/obj/scaler/cloudwatch.o: scaler/cloudwatch.c \
  scaler/cloudwatch.h scaler/alarm.h scaler/metric.h scaler/status.h

scaler/cloudwatch.h:

scaler/alarm.h:

scaler/metric.h:

scaler/status.h:

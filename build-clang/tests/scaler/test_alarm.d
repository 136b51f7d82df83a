build-clang/tests/scaler/test_alarm: tests/unit/scaler/test_alarm.c \
  scaler/alarm.h scaler/metric.h scaler/status.h

scaler/alarm.h:

scaler/metric.h:

scaler/status.h:

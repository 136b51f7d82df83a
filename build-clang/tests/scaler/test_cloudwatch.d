build-clang/tests/scaler/test_cloudwatch: \
  tests/unit/scaler/test_cloudwatch.c scaler/cloudwatch.h scaler/alarm.h \
  scaler/metric.h scaler/status.h

scaler/cloudwatch.h:

scaler/alarm.h:

scaler/metric.h:

scaler/status.h:

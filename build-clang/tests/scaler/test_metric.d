build-clang/tests/scaler/test_metric: tests/unit/scaler/test_metric.c \
  scaler/metric.h scaler/status.h

scaler/metric.h:

scaler/status.h:

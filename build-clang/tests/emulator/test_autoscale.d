build-clang/tests/emulator/test_autoscale: \
  tests/unit/emulator/test_autoscale.c emulator/autoscale.h common/ev.h \
  scaler/cloudwatch.h scaler/alarm.h scaler/metric.h scaler/status.h \
  scaler/ec2.h scaler/elb.h scaler/world.h scaler/rng.h

emulator/autoscale.h:

common/ev.h:

scaler/cloudwatch.h:

scaler/alarm.h:

scaler/metric.h:

scaler/status.h:

scaler/ec2.h:

scaler/elb.h:

scaler/world.h:

scaler/rng.h:

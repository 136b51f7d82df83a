build-clang/tests/scaler/test_world: tests/unit/scaler/test_world.c \
  scaler/world.h scaler/rng.h scaler/status.h scaler/asg.h \
  scaler/policy.h scaler/cloudwatch.h scaler/alarm.h scaler/metric.h \
  scaler/ec2.h scaler/elb.h

scaler/world.h:

scaler/rng.h:

scaler/status.h:

scaler/asg.h:

scaler/policy.h:

scaler/cloudwatch.h:

scaler/alarm.h:

scaler/metric.h:

scaler/ec2.h:

scaler/elb.h:

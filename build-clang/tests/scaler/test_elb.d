build-clang/tests/scaler/test_elb: tests/unit/scaler/test_elb.c \
  scaler/elb.h scaler/ec2.h scaler/status.h

scaler/elb.h:

scaler/ec2.h:

scaler/status.h:

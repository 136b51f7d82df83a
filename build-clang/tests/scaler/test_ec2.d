build-clang/tests/scaler/test_ec2: tests/unit/scaler/test_ec2.c \
  scaler/ec2.h scaler/status.h

scaler/ec2.h:

scaler/status.h:

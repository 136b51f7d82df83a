build-clang/tests/scaler/test_asg: tests/unit/scaler/test_asg.c \
  scaler/asg.h scaler/policy.h scaler/status.h scaler/rng.h

scaler/asg.h:

scaler/policy.h:

scaler/status.h:

scaler/rng.h:

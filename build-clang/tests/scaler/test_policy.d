build-clang/tests/scaler/test_policy: tests/unit/scaler/test_policy.c \
  scaler/policy.h scaler/status.h

scaler/policy.h:

scaler/status.h:

build-clang/tests/emulator/test_balancer: \
  tests/unit/emulator/test_balancer.c emulator/balancer.h

emulator/balancer.h:

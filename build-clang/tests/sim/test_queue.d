build-clang/tests/sim/test_queue: tests/unit/sim/test_queue.c \
  scaler/sim/queue.h

scaler/sim/queue.h:

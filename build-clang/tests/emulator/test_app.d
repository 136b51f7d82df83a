build-clang/tests/emulator/test_app: tests/unit/emulator/test_app.c \
  emulator/app.h scaler/rng.h

emulator/app.h:

scaler/rng.h:

build-clang/obj/emulator/api_autoscaling.o: emulator/api_autoscaling.c \
  emulator/api.h emulator/awserr.h scaler/status.h common/xalloc.h \
  emulator/model.h emulator/server.h common/buf.h common/ev.h \
  common/sigv4.h scaler/asg.h scaler/policy.h scaler/rng.h \
  scaler/world.h

emulator/api.h:

emulator/awserr.h:

scaler/status.h:

common/xalloc.h:

emulator/model.h:

emulator/server.h:

common/buf.h:

common/ev.h:

common/sigv4.h:

scaler/asg.h:

scaler/policy.h:

scaler/rng.h:

scaler/world.h:

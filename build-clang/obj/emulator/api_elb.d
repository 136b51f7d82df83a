build-clang/obj/emulator/api_elb.o: emulator/api_elb.c emulator/api.h \
  emulator/awserr.h scaler/status.h common/xalloc.h emulator/server.h \
  common/buf.h common/ev.h common/sigv4.h scaler/elb.h scaler/ec2.h \
  scaler/world.h scaler/rng.h

emulator/api.h:

emulator/awserr.h:

scaler/status.h:

common/xalloc.h:

emulator/server.h:

common/buf.h:

common/ev.h:

common/sigv4.h:

scaler/elb.h:

scaler/ec2.h:

scaler/world.h:

scaler/rng.h:

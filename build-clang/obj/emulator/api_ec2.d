build-clang/obj/emulator/api_ec2.o: emulator/api_ec2.c emulator/api.h \
  emulator/awserr.h scaler/status.h common/xalloc.h emulator/server.h \
  common/buf.h common/ev.h common/sigv4.h scaler/ec2.h

emulator/api.h:

emulator/awserr.h:

scaler/status.h:

common/xalloc.h:

emulator/server.h:

common/buf.h:

common/ev.h:

common/sigv4.h:

scaler/ec2.h:

build-clang/obj/emulator/server.o: emulator/server.c emulator/server.h \
  common/buf.h common/ev.h common/sigv4.h common/log.h common/xalloc.h \
  emulator/acbor.h emulator/awserr.h scaler/status.h emulator/model.h \
  emulator/admin.h emulator/api.h emulator/auth.h emulator/awsjson.h \
  emulator/autoscale.h emulator/query.h emulator/xml.h scaler/ec2.h \
  scaler/elb.h scaler/world.h scaler/rng.h

emulator/server.h:

common/buf.h:

common/ev.h:

common/sigv4.h:

common/log.h:

common/xalloc.h:

emulator/acbor.h:

emulator/awserr.h:

scaler/status.h:

emulator/model.h:

emulator/admin.h:

emulator/api.h:

emulator/auth.h:

emulator/awsjson.h:

emulator/autoscale.h:

emulator/query.h:

emulator/xml.h:

scaler/ec2.h:

scaler/elb.h:

scaler/world.h:

scaler/rng.h:

build-clang/obj/emulator/api_cloudwatch.o: emulator/api_cloudwatch.c \
  emulator/api.h emulator/awserr.h scaler/status.h common/xalloc.h \
  emulator/server.h common/buf.h common/ev.h common/sigv4.h \
  scaler/cloudwatch.h scaler/alarm.h scaler/metric.h scaler/world.h \
  scaler/rng.h

emulator/api.h:

emulator/awserr.h:

scaler/status.h:

common/xalloc.h:

emulator/server.h:

common/buf.h:

common/ev.h:

common/sigv4.h:

scaler/cloudwatch.h:

scaler/alarm.h:

scaler/metric.h:

scaler/world.h:

scaler/rng.h:

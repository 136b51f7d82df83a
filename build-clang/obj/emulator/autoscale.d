build-clang/obj/emulator/autoscale.o: emulator/autoscale.c \
  emulator/autoscale.h common/ev.h common/buf.h common/log.h \
  common/xalloc.h emulator/app.h scaler/rng.h emulator/health.h \
  emulator/instance.h emulator/lb.h scaler/cloudwatch.h scaler/alarm.h \
  scaler/metric.h scaler/status.h scaler/ec2.h scaler/elb.h \
  scaler/world.h

emulator/autoscale.h:

common/ev.h:

common/buf.h:

common/log.h:

common/xalloc.h:

emulator/app.h:

scaler/rng.h:

emulator/health.h:

emulator/instance.h:

emulator/lb.h:

scaler/cloudwatch.h:

scaler/alarm.h:

scaler/metric.h:

scaler/status.h:

scaler/ec2.h:

scaler/elb.h:

scaler/world.h:

build-clang/obj/scaler/sim/run.o: scaler/sim/run.c scaler/sim/run.h \
  scaler/sim/model.h common/hist.h scaler/sim/scenario.h \
  scaler/sim/timeline.h common/xalloc.h scaler/asg.h scaler/policy.h \
  scaler/status.h scaler/rng.h scaler/cloudwatch.h scaler/alarm.h \
  scaler/metric.h scaler/ec2.h scaler/elb.h scaler/sim/expect.h \
  scaler/world.h

scaler/sim/run.h:

scaler/sim/model.h:

common/hist.h:

scaler/sim/scenario.h:

scaler/sim/timeline.h:

common/xalloc.h:

scaler/asg.h:

scaler/policy.h:

scaler/status.h:

scaler/rng.h:

scaler/cloudwatch.h:

scaler/alarm.h:

scaler/metric.h:

scaler/ec2.h:

scaler/elb.h:

scaler/sim/expect.h:

scaler/world.h:

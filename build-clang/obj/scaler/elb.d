build-clang/obj/scaler/elb.o: scaler/elb.c scaler/elb.h scaler/ec2.h \
  scaler/status.h scaler/rng.h

scaler/elb.h:

scaler/ec2.h:

scaler/status.h:

scaler/rng.h:

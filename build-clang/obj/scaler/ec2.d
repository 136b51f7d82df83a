build-clang/obj/scaler/ec2.o: scaler/ec2.c scaler/ec2.h scaler/status.h \
  scaler/rng.h

scaler/ec2.h:

scaler/status.h:

scaler/rng.h:

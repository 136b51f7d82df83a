build-prof/obj/scaler/asg.o: scaler/asg.c scaler/asg.h scaler/policy.h \
 scaler/status.h scaler/rng.h scaler/asg_internal.h
scaler/asg.h:
scaler/policy.h:
scaler/status.h:
scaler/rng.h:
scaler/asg_internal.h:

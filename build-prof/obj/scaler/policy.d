build-prof/obj/scaler/policy.o: scaler/policy.c scaler/policy.h \
 scaler/status.h
scaler/policy.h:
scaler/status.h:

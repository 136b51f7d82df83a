build-prof/obj/scaler/status.o: scaler/status.c scaler/status.h
scaler/status.h:

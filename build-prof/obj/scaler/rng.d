build-prof/obj/scaler/rng.o: scaler/rng.c scaler/rng.h
scaler/rng.h:

build-clang/obj/scaler/sim/elastic.o: scaler/sim/elastic.c \
  scaler/sim/elastic.h scaler/sim/timeline.h

scaler/sim/elastic.h:

scaler/sim/timeline.h:

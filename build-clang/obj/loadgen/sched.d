build-clang/obj/loadgen/sched.o: loadgen/sched.c loadgen/sched.h \
  common/units.h

loadgen/sched.h:

common/units.h:

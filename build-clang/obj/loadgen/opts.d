build-clang/obj/loadgen/opts.o: loadgen/opts.c loadgen/opts.h \
  loadgen/sched.h loadgen/url.h common/buf.h common/units.h \
  common/xalloc.h

loadgen/opts.h:

loadgen/sched.h:

loadgen/url.h:

common/buf.h:

common/units.h:

common/xalloc.h:

build-clang/obj/loadgen/sweep.o: loadgen/sweep.c loadgen/sweep.h \
  common/buf.h common/svg.h common/units.h common/xalloc.h \
  loadgen/conn.h loadgen/sched.h loadgen/stats.h common/hist.h \
  loadgen/sock.h loadgen/url.h

loadgen/sweep.h:

common/buf.h:

common/svg.h:

common/units.h:

common/xalloc.h:

loadgen/conn.h:

loadgen/sched.h:

loadgen/stats.h:

common/hist.h:

loadgen/sock.h:

loadgen/url.h:

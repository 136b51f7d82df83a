build-clang/obj/loadgen/conn.o: loadgen/conn.c loadgen/conn.h \
  loadgen/sched.h loadgen/stats.h common/hist.h common/units.h \
  common/xalloc.h loadgen/resp.h loadgen/sock.h

loadgen/conn.h:

loadgen/sched.h:

loadgen/stats.h:

common/hist.h:

common/units.h:

common/xalloc.h:

loadgen/resp.h:

loadgen/sock.h:

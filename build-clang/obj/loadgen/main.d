build-clang/obj/loadgen/main.o: loadgen/main.c common/log.h \
  common/xalloc.h loadgen/conn.h loadgen/sched.h loadgen/stats.h \
  common/hist.h loadgen/opts.h loadgen/url.h loadgen/report.h \
  loadgen/sock.h loadgen/sweep.h

common/log.h:

common/xalloc.h:

loadgen/conn.h:

loadgen/sched.h:

loadgen/stats.h:

common/hist.h:

loadgen/opts.h:

loadgen/url.h:

loadgen/report.h:

loadgen/sock.h:

loadgen/sweep.h:

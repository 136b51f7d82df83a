build-clang/obj/loadgen/report.o: loadgen/report.c loadgen/report.h \
  loadgen/conn.h loadgen/sched.h loadgen/stats.h common/hist.h

loadgen/report.h:

loadgen/conn.h:

loadgen/sched.h:

loadgen/stats.h:

common/hist.h:

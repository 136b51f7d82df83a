build-clang/obj/loadgen/stats.o: loadgen/stats.c loadgen/stats.h \
  common/hist.h common/xalloc.h

loadgen/stats.h:

common/hist.h:

common/xalloc.h:

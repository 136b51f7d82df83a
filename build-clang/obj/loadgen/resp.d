build-clang/obj/loadgen/resp.o: loadgen/resp.c loadgen/resp.h \
  common/xalloc.h

loadgen/resp.h:

common/xalloc.h:

build-clang/obj/common/svg.o: common/svg.c common/svg.h common/buf.h \
  common/xalloc.h

common/svg.h:

common/buf.h:

common/xalloc.h:

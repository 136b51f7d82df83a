build-clang/obj/common/sigv4.o: common/sigv4.c common/sigv4.h \
  common/buf.h common/xalloc.h

common/sigv4.h:

common/buf.h:

common/xalloc.h:

build-prof/obj/common/buf.o: common/buf.c common/buf.h common/xalloc.h
common/buf.h:
common/xalloc.h:

build-clang/obj/common/ev.o: common/ev.c common/ev.h common/xalloc.h

common/ev.h:

common/xalloc.h:

build-prof/obj/common/hist.o: common/hist.c common/hist.h common/xalloc.h
common/hist.h:
common/xalloc.h:

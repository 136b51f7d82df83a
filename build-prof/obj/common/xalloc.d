build-prof/obj/common/xalloc.o: common/xalloc.c common/xalloc.h \
 common/log.h
common/xalloc.h:
common/log.h:

build-clang/obj/loadgen/url.o: loadgen/url.c loadgen/url.h

loadgen/url.h:

build-clang/obj/loadgen/sock.o: loadgen/sock.c loadgen/sock.h

loadgen/sock.h:

build-clang/obj/emulator/lb.o: emulator/lb.c emulator/lb.h common/ev.h \
  common/log.h common/xalloc.h emulator/balancer.h emulator/lb_http.h

emulator/lb.h:

common/ev.h:

common/log.h:

common/xalloc.h:

emulator/balancer.h:

emulator/lb_http.h:

build-clang/obj/emulator/health.o: emulator/health.c emulator/health.h \
  common/ev.h common/xalloc.h emulator/lb_http.h

emulator/health.h:

common/ev.h:

common/xalloc.h:

emulator/lb_http.h:

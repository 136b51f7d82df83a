build-clang/obj/emulator/lb_proxy.o: emulator/lb_proxy.c emulator/lb.h \
  common/ev.h common/log.h common/units.h common/xalloc.h \
  emulator/health.h emulator/instance.h

emulator/lb.h:

common/ev.h:

common/log.h:

common/units.h:

common/xalloc.h:

emulator/health.h:

emulator/instance.h:

build-clang/obj/emulator/instance_main.o: emulator/instance_main.c \
  emulator/instance_main.h common/ev.h common/log.h common/xalloc.h \
  emulator/app.h scaler/rng.h emulator/lb_http.h

emulator/instance_main.h:

common/ev.h:

common/log.h:

common/xalloc.h:

emulator/app.h:

scaler/rng.h:

emulator/lb_http.h:

build-clang/obj/emulator/main.o: emulator/main.c common/ev.h common/log.h \
  emulator/instance_main.h emulator/lb.h emulator/model.h \
  emulator/server.h common/buf.h common/sigv4.h

common/ev.h:

common/log.h:

emulator/instance_main.h:

emulator/lb.h:

emulator/model.h:

emulator/server.h:

common/buf.h:

common/sigv4.h:

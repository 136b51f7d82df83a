build-clang/obj/emulator/admin.o: emulator/admin.c emulator/admin.h \
  emulator/server.h common/buf.h common/ev.h common/sigv4.h \
  emulator/autoscale.h emulator/model.h

emulator/admin.h:

emulator/server.h:

common/buf.h:

common/ev.h:

common/sigv4.h:

emulator/autoscale.h:

emulator/model.h:

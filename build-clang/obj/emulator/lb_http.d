build-clang/obj/emulator/lb_http.o: emulator/lb_http.c emulator/lb_http.h

emulator/lb_http.h:

build-clang/tests/emulator/test_lb_http: \
  tests/unit/emulator/test_lb_http.c emulator/lb_http.h

emulator/lb_http.h:

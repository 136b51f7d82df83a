build-clang/obj/build-clang/gen/model_tables.o: \
  build-clang/gen/model_tables.c emulator/model.h

emulator/model.h:

build-prof/obj/common/units.o: common/units.c common/units.h
common/units.h:

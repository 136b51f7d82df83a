build-clang/tests/sim/test_elastic: tests/unit/sim/test_elastic.c \
  scaler/sim/elastic.h scaler/sim/timeline.h

scaler/sim/elastic.h:

scaler/sim/timeline.h:

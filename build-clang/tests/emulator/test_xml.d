build-clang/tests/emulator/test_xml: tests/unit/emulator/test_xml.c \
  emulator/xml.h common/buf.h emulator/awserr.h scaler/status.h \
  emulator/model.h

emulator/xml.h:

common/buf.h:

emulator/awserr.h:

scaler/status.h:

emulator/model.h:

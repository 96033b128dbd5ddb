lib/model/foliomap.o: lib/model/foliomap.c /work/main/config-host.h \
 lib/model/model.h lib/base/base.h lib/include/hugebuf.h \
 lib/include/hugebuf-model.h
/work/main/config-host.h:
lib/model/model.h:
lib/base/base.h:
lib/include/hugebuf.h:
lib/include/hugebuf-model.h:

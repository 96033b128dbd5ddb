lib/base/util.o: lib/base/util.c /work/main/config-host.h lib/base/base.h \
 lib/include/hugebuf.h lib/include/hugebuf-model.h
/work/main/config-host.h:
lib/base/base.h:
lib/include/hugebuf.h:
lib/include/hugebuf-model.h:

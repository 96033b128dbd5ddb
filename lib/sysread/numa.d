lib/sysread/numa.o: lib/sysread/numa.c /work/main/config-host.h \
 lib/sysread/sysread.h lib/base/base.h lib/include/hugebuf.h \
 lib/include/hugebuf-model.h
/work/main/config-host.h:
lib/sysread/sysread.h:
lib/base/base.h:
lib/include/hugebuf.h:
lib/include/hugebuf-model.h:

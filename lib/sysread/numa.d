lib/sysread/numa.o: lib/sysread/numa.c /var/tmp/wt-probetab/config-host.h \
 lib/sysread/sysread.h lib/base/base.h lib/include/hugebuf.h \
 lib/include/hugebuf-model.h
/var/tmp/wt-probetab/config-host.h:
lib/sysread/sysread.h:
lib/base/base.h:
lib/include/hugebuf.h:
lib/include/hugebuf-model.h:

lib/resource/measure.o: lib/resource/measure.c /work/main/config-host.h \
 lib/resource/resource.h lib/model/model.h lib/base/base.h \
 lib/include/hugebuf.h lib/include/hugebuf-model.h lib/sysread/sysread.h
/work/main/config-host.h:
lib/resource/resource.h:
lib/model/model.h:
lib/base/base.h:
lib/include/hugebuf.h:
lib/include/hugebuf-model.h:
lib/sysread/sysread.h:

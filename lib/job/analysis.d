lib/job/analysis.o: lib/job/analysis.c /work/main/config-host.h \
 lib/job/job.h lib/resource/resource.h lib/model/model.h lib/base/base.h \
 lib/include/hugebuf.h lib/include/hugebuf-model.h lib/sysread/sysread.h
/work/main/config-host.h:
lib/job/job.h:
lib/resource/resource.h:
lib/model/model.h:
lib/base/base.h:
lib/include/hugebuf.h:
lib/include/hugebuf-model.h:
lib/sysread/sysread.h:

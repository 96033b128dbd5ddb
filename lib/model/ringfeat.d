lib/model/ringfeat.o: lib/model/ringfeat.c \
 /var/tmp/wt-probetab/config-host.h lib/model/model.h lib/base/base.h \
 lib/include/hugebuf.h lib/include/hugebuf-model.h
/var/tmp/wt-probetab/config-host.h:
lib/model/model.h:
lib/base/base.h:
lib/include/hugebuf.h:
lib/include/hugebuf-model.h:

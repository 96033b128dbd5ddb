lib/base/json.o: lib/base/json.c /var/tmp/wt-probetab/config-host.h \
 lib/base/base.h lib/include/hugebuf.h lib/include/hugebuf-model.h
/var/tmp/wt-probetab/config-host.h:
lib/base/base.h:
lib/include/hugebuf.h:
lib/include/hugebuf-model.h:

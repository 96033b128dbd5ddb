# SPDX-License-Identifier: GPL-2.0-only
#
# hugebuf: ./configure && make && make install
#
#   make            lib/, the fio engine, the hugebuf CLI and all tests
#   make test       run the test suite (t/runtests.sh)
#   make check      the user's tier: deps, build and the suite on the
#                   running kernel, minutes (tools/check-user.sh)
#   make check-all  the whole matrix, CI's: the suite, the kernels under
#                   qemu, a second fio, sanitizers, fuzzers, the soak,
#                   the packages (tools/check.sh)
#   make unit       lib/ + unit tests without ./configure or fio (build-unit/)
#   make static     statically linked tests + CLI in t/static/ (for qemu)
#   make liburing-tests DEST=<liburing source>/test
#                   our folio-boundary tests (t/liburing/) into liburing's
#                   test suite
#   make deps       (root, Debian) install build/test dependencies and the
#                   fio source matching the installed fio
#   make deb        the Debian packages (tools/deb-build.sh), in out/deb/
#   make kernel-series [MAILS=DIR] [SIGNOFF=1]
#                   kernel/patches/ by route, in mails/: mainline and
#                   stable mails, Debian's debian/patches/
#   make install    the library (header, libhugebuf.a, libhugebuf.so.*,
#                   hugebuf.pc), the engine to $(LIBDIR)/fio, the CLI to
#                   $(BINDIR), its bash completion; DESTDIR= and PREFIX=
#                   as usual.  make uninstall removes exactly those files.

ifneq ($(wildcard config-host.mak),)
include config-host.mak
HAVE_CONFIG := 1
endif

CC ?= gcc
CFLAGS ?= -O2 -g
DESTDIR ?=
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
BINDIR ?= $(PREFIX)/bin
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions

# The one version (VERSION): the soname, hugebuf.pc, hugebuf --version
HB_VERSION := $(shell sed -n '/^[0-9]/{p;q;}' VERSION)
HB_MAJOR := $(word 1,$(subst ., ,$(HB_VERSION)))
ifeq ($(HB_MAJOR),)
$(error VERSION holds no MAJOR.MINOR.PATCH line)
endif

HB_WARN := -Wall -Wextra -Werror
HB_CPPFLAGS := -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -Ilib/include -Ilib \
	-include $(CURDIR)/config-host.h $(LIBURING_CFLAGS)
HB_CFLAGS := -std=gnu11 -fPIC $(HB_WARN) $(HB_CPPFLAGS) $(CFLAGS) $(EXTRA_CFLAGS)
HB_LDLIBS := $(LIBURING_LIBS) -ldl -pthread $(EXTRA_LDLIBS)

# lib/ is one folder per layer, each calling and including only the ones
# before it (t/lib-layers.sh checks both): base, sysread (the /proc and
# /sys readers), model (the pure model), resource (what a job takes from
# the system), job (the top).  Each has one private header named for it;
# lib/include/ holds the public API.
LIB_LAYERS := base sysread model resource job
LIB_SRCS := $(sort $(foreach d,$(LIB_LAYERS),$(wildcard lib/$(d)/*.c)))
LIB_HDRS := $(wildcard lib/include/*.h lib/*/*.h)
# the installed headers: the public API, every header of lib/include/;
# every other header of lib/ is private
PUBLIC_HDRS := $(sort $(wildcard lib/include/*.h))
LIB_OBJS := $(LIB_SRCS:.c=.o)
LIB_A := lib/libhugebuf.a
LIB_SONAME := libhugebuf.so.$(HB_MAJOR)
LIB_SO := lib/libhugebuf.so.$(HB_VERSION)
LIB_PTHREAD := -lpthread

# t/: every t/*.c is one test program.  t/helpers/*.c is the one helper
# library (t/helpers.h) of every program that exercises the kernel: the
# tests, the guest probes (kernel/probe/) and bench/regbench.  Built once,
# as t/libthelpers.a (-fPIC objects, fit for the static links too), and
# linked into each of them.
T_HELPER_SRCS := $(sort $(wildcard t/helpers/*.c))
T_HELPER_OBJS := $(T_HELPER_SRCS:.c=.o)
T_HELPERS := t/libthelpers.a
T_HELPER_HDRS := t/helpers.h $(wildcard t/helpers/*.h)
T_SRCS := $(sort $(wildcard t/*.c))
T_PROGS := $(T_SRCS:.c=.t)
CLI := cli/hugebuf
# bench/regbench: registration time beside lib's count model (bench.py's
# registration section); it shares t/helpers' THP-size switch
REGBENCH := bench/regbench
CLI_SRCS := $(sort $(wildcard cli/*.c))
CLI_HDRS := $(wildcard cli/*.h)
CLI_CFLAGS := $(HB_CFLAGS) -DHB_VERSION='"$(HB_VERSION)"'
BASHCOMP := contrib/bash-completion/hugebuf
# the unit tests that read the running kernel (io_uring's features,
# uname, /proc/meminfo, sysfs, statx) are built for the guests too; the
# others compute the model from arrays, the same on every kernel, and run
# on the host alone (under TCG they cost a guest ~25 s)
GUEST_UNITS := unit-filelimits unit-liburing-figures unit-parse \
	unit-preflight unit-ringfeat
HOST_UNITS := $(filter-out $(GUEST_UNITS:%=t/%.c),$(wildcard t/unit-*.c))
STATIC_PROGS := $(patsubst t/%.c,t/static/%,$(filter-out $(HOST_UNITS),\
	$(T_SRCS))) t/static/hugebuf

ENGINE := engines/hugebuf.so
ENGINE_ABITEST := t/hugebuf-abitest.so
ENGINE_CFLAGS := -std=gnu11 -fPIC $(HB_WARN) -D_GNU_SOURCE -Ilib/include -Ilib \
	-include $(FIO_SOURCE)/config-host.h -isystem $(FIO_SOURCE) \
	-include $(CURDIR)/config-host.h $(LIBURING_CFLAGS) $(CFLAGS) \
	$(EXTRA_CFLAGS)

.PHONY: all lib shlib engine cli tests static test check check-all install \
	uninstall \
	kernel-series \
	clean distclean deps kernel-test bench bench-full bench-instr soak \
	check-asan fuzz \
	need-config unit deb bench-progs

all: need-config lib shlib engine cli tests bench-progs

need-config:
ifndef HAVE_CONFIG
	@echo "Makefile: not configured: run ./configure (and 'make deps' as root first on a fresh Debian machine)" >&2
	@exit 1
endif

lib: $(LIB_A)
shlib: $(LIB_SO)
engine: $(ENGINE)
cli: $(CLI)
tests: $(T_PROGS) $(CLI) $(ENGINE_ABITEST)
bench-progs: $(REGBENCH)

# each object's headers from the compiler (-MMD): a change to one
# layer's header rebuilds only the files that include it
lib/%.o: lib/%.c config-host.h
	$(CC) $(HB_CFLAGS) -MMD -MP -c -o $@ $<

-include $(LIB_OBJS:.o=.d)

$(LIB_A): $(LIB_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

# libhugebuf.so exports the functions of lib/libhugebuf.map, a version
# script written by hand (version node HUGEBUF_0.1); t/lib-layers.sh holds
# it to the public declarations gcc sees and to the programs' calls.
LIB_MAP := lib/libhugebuf.map

# the same objects (-fPIC) as a shared library, libhugebuf.so.MAJOR its
# soname; the two symlinks are made only where it is installed
$(LIB_SO): $(LIB_OBJS) $(LIB_MAP) VERSION
	$(CC) -shared -Wl,-soname,$(LIB_SONAME) -Wl,--no-undefined \
		-Wl,--version-script=$(LIB_MAP) \
		$(CFLAGS) -o $@ $(LIB_OBJS) $(HB_LDLIBS) $(LIB_PTHREAD)

t/helpers/%.o: t/helpers/%.c $(T_HELPER_HDRS) $(LIB_HDRS) config-host.h
	$(CC) $(HB_CFLAGS) -c -o $@ $<

$(T_HELPERS): $(T_HELPER_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

t/%.t: t/%.c $(T_HELPERS) $(LIB_A) $(T_HELPER_HDRS) $(LIB_HDRS)
	$(CC) $(HB_CFLAGS) -o $@ $< $(T_HELPERS) $(LIB_A) $(HB_LDLIBS)

# the programs' own objects (cli/, engines/, bench/, kernel/probe/) are
# kept: t/lib-layers.sh reads the hb_ symbols they leave undefined
bench/regbench.o: bench/regbench.c config-host.h
	$(CC) $(HB_CFLAGS) -MMD -MP -c -o $@ $<

$(REGBENCH): bench/regbench.o $(T_HELPERS) $(LIB_A)
	$(CC) $(HB_CFLAGS) -o $@ $< $(T_HELPERS) $(LIB_A) $(HB_LDLIBS)

# cli/: one file per command (info.c, plan.c with plan-output.c, check.c),
# the options (opts.c), the usage, messages and JSON output (output.c) and
# the dispatch (main.c), built in one go
CLI_OBJS := $(CLI_SRCS:.c=.o)
cli/%.o: cli/%.c config-host.h VERSION
	$(CC) $(CLI_CFLAGS) -MMD -MP -c -o $@ $<

$(CLI): $(CLI_OBJS) $(LIB_A)
	$(CC) $(CLI_CFLAGS) -o $@ $(CLI_OBJS) $(LIB_A) $(HB_LDLIBS)

ENGINE_SRCS := engines/hugebuf.c engines/options.c engines/report.c \
	engines/share.c engines/nvme.c engines/pieces.c engines/trim.c \
	engines/meta.c
ENGINE_HDRS := engines/hugebuf-engine.h engines/enter.h

# engines/hugebuf.map: the engine exports only the ops symbol fio's
# dlopen_ioengine() looks up (ioengine); lib/ inside it, linked from
# libhugebuf.a, is local to it
ENGINE_MAP := engines/hugebuf.map
ENGINE_LDFLAGS := -shared -Wl,--version-script=$(ENGINE_MAP)

ENGINE_OBJS := $(ENGINE_SRCS:.c=.o)
engines/%.o: engines/%.c config-host.mak
	$(CC) $(ENGINE_CFLAGS) -MMD -MP -c -o $@ $<

$(ENGINE): $(ENGINE_OBJS) $(LIB_A) $(ENGINE_MAP)
	$(CC) $(ENGINE_CFLAGS) $(ENGINE_LDFLAGS) -o $@ $(ENGINE_OBJS) \
		$(LIB_A) $(HB_LDLIBS)

# The engine built as if for another fio release, for t/fio-abi-guard.sh:
# its load-time guard must refuse to run inside the real one.
$(ENGINE_ABITEST): $(ENGINE_SRCS) $(ENGINE_HDRS) $(LIB_A) \
		$(LIB_HDRS) $(ENGINE_MAP) config-host.mak
	$(CC) $(ENGINE_CFLAGS) -DHBE_BUILT_FOR='"fio-0.0-abitest"' \
		$(ENGINE_LDFLAGS) -o $@ $(ENGINE_SRCS) $(LIB_A) $(HB_LDLIBS)

# make unit: lib/ and its unit tests (t/unit-*.c, with the t/helpers/
# library) built in build-unit/ and run, needing only gcc and liburing-dev:
# no ./configure, no fio source tree (a newcomer can run it before make
# deps).  Unconfigured, so without the libhugetlbfs backing.
UNIT_DIR := build-unit
UNIT_CFLAGS := -std=gnu11 $(HB_WARN) -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 \
	-Ilib/include -Ilib $(LIBURING_CFLAGS) $(CFLAGS) $(EXTRA_CFLAGS)
UNIT_LDLIBS := $(if $(LIBURING_LIBS),$(LIBURING_LIBS),-luring) -ldl -pthread \
	$(EXTRA_LDLIBS)
UNIT_PROGS := $(patsubst t/%.c,$(UNIT_DIR)/t/%.t,$(sort $(wildcard t/unit-*.c)))
UNIT_LIB_OBJS := $(patsubst %.c,$(UNIT_DIR)/%.o,$(LIB_SRCS))
UNIT_HELPER_OBJS := $(patsubst %.c,$(UNIT_DIR)/%.o,$(T_HELPER_SRCS))
UNIT_HELPERS := $(UNIT_DIR)/$(T_HELPERS)
.SECONDARY: $(UNIT_LIB_OBJS) $(UNIT_HELPER_OBJS)

unit: $(UNIT_PROGS)
	@p=0; f=0; s=0; for t in $(UNIT_PROGS); do \
		HUGEBUF_TEST_DIR=$${HUGEBUF_TEST_DIR:-/tmp} ./$$t \
			>$$t.log 2>&1; rc=$$?; \
		case $$rc in \
		0) p=$$((p + 1)); echo "PASS  $$t" ;; \
		77) s=$$((s + 1)); echo "SKIP  $$t: $$(tail -n 1 $$t.log)" ;; \
		*) f=$$((f + 1)); echo "FAIL  $$t (exit $$rc)"; \
			tail -n 20 $$t.log | sed 's/^/      | /' ;; \
		esac; \
	done; echo "$$p passed, $$f failed, $$s skipped"; [ $$f = 0 ]

$(UNIT_DIR)/lib/%.o: lib/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) -c -o $@ $<

$(UNIT_DIR)/t/helpers/%.o: t/helpers/%.c $(T_HELPER_HDRS) $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) -c -o $@ $<

$(UNIT_HELPERS): $(UNIT_HELPER_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

$(UNIT_DIR)/t/%.t: t/%.c $(UNIT_HELPERS) $(UNIT_LIB_OBJS) $(T_HELPER_HDRS) \
		$(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) -o $@ $< $(UNIT_HELPERS) $(UNIT_LIB_OBJS) \
		$(UNIT_LDLIBS)

# Static programs for a minimal initramfs on another kernel (kernel/ktest.sh):
# the tests and the CLI in t/static/, and the harness's own guest programs
# (kernel/probe/*.c, each linked with the helper library and lib/) in
# kernel/static/
KPROBE_PROGS := $(patsubst kernel/probe/%.c,kernel/static/%,\
	$(sort $(wildcard kernel/probe/*.c)))

static: need-config $(STATIC_PROGS) $(KPROBE_PROGS)


KPROBE_OBJS := $(patsubst kernel/static/%,kernel/probe/%.o,$(KPROBE_PROGS))
.SECONDARY: $(KPROBE_OBJS)

kernel/probe/%.o: kernel/probe/%.c config-host.h
	$(CC) $(HB_CFLAGS) -MMD -MP -c -o $@ $<

kernel/static/%: kernel/probe/%.o $(T_HELPERS) $(LIB_A)
	@mkdir -p kernel/static
	$(CC) $(HB_CFLAGS) -static -o $@ $< $(T_HELPERS) $(LIB_A) $(HB_LDLIBS)

t/static/%: t/%.c $(T_HELPERS) $(LIB_A) $(T_HELPER_HDRS) $(LIB_HDRS)
	@mkdir -p t/static
	$(CC) $(HB_CFLAGS) -static -o $@ $< $(T_HELPERS) $(LIB_A) $(HB_LDLIBS)

t/static/hugebuf: $(CLI_OBJS) $(LIB_A)
	@mkdir -p t/static
	$(CC) $(CLI_CFLAGS) -static -o $@ $(CLI_OBJS) $(LIB_A) $(HB_LDLIBS)

-include $(CLI_OBJS:.o=.d) $(ENGINE_OBJS:.o=.d) bench/regbench.d \
	$(patsubst %.c,%.d,$(wildcard kernel/probe/*.c))

test: all
	t/runtests.sh

# The README's two test commands, each ending "N passed, N failed, N
# skipped": the user's tier on the running kernel (what it leaves to
# check-all is listed before that line), and the whole matrix (.ci/run)
check:
	tools/check-user.sh

check-all:
	tools/check.sh

# make liburing-tests DEST=<liburing source>/test: our folio-boundary
# tests (t/liburing/, standalone liburing tests) copied there and listed in
# its Makefile's test_srcs (tools/liburing-export.sh)
.PHONY: liburing-tests
liburing-tests:
	tools/liburing-export.sh "$(DEST)"

bench: all
	bench/bench.sh

# ASan+UBSan build of lib/, the CLI and the tests in a scratch copy, then
# the suite against it; fuzzing smoke runs with libFuzzer (clang)
check-asan:
	tools/check-asan.sh

fuzz:
	t/fuzz/run.sh

bench-full: all
	bench/bench.sh --full

# Instructions per I/O of fio's hooks around the engine (callgrind),
# hugebuf against fio's io_uring: bench/instr.py, bench/README.md
bench-instr: all
	bench/instr.py

# Randomized job soak: seeded fio jobs from the engine's and fio's
# options, each verified, pool/pins/SysV back to baseline after each
SECONDS ?= 150
SEED ?= 1
soak: all
	t/_testenv.sh t/soak.py --seed $(SEED) --seconds $(SECONDS)

deps:
	tools/deps.sh

# dpkg-buildpackage in a scratch copy of the tree, then lintian
deb:
	tools/deb-build.sh

kernel-test: all static
	kernel/ktest.sh

# kernel/patches/ by route, in $(MAILS)/: mainline/ and stable-6.1/ mails
# for git send-email, debian-6.1/debian/patches/ for Debian's kernel team
# (kernel/patches/README.md); SIGNOFF=1 adds your sign-off
MAILS ?= mails
kernel-series:
	kernel/kmails.sh $(if $(filter 1,$(SIGNOFF)),--signoff) "$(MAILS)"

# the library's man3 pages, one per function family (t/docs-match.sh)
MAN3 := $(sort $(wildcard docs/man/man3/*.3))

# What make install puts down, one file per line: make uninstall removes
# these and nothing else (the directories stay: others may share them)
INSTALLED := $(addprefix $(INCLUDEDIR)/,$(notdir $(PUBLIC_HDRS))) \
	$(LIBDIR)/libhugebuf.a \
	$(LIBDIR)/libhugebuf.so.$(HB_VERSION) $(LIBDIR)/$(LIB_SONAME) \
	$(LIBDIR)/libhugebuf.so $(PKGCONFIGDIR)/hugebuf.pc \
	$(LIBDIR)/fio/hugebuf.so $(BINDIR)/hugebuf $(BASHCOMPDIR)/hugebuf \
	$(MANDIR)/man1/hugebuf.1 $(MANDIR)/man7/hugebuf-ioengine.7 \
	$(addprefix $(MANDIR)/man3/,$(notdir $(MAN3)))

# only what it installs, not the tests: with the tree built it builds
# nothing.  hugebuf.pc is written here, with the paths of this install.
install: need-config lib shlib engine cli
	install -d $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBDIR)/fio \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(BINDIR) \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man7
	install -m 0644 $(PUBLIC_HDRS) $(DESTDIR)$(INCLUDEDIR)/
	install -m 0644 $(LIB_A) $(DESTDIR)$(LIBDIR)/libhugebuf.a
	install -m 0755 $(LIB_SO) \
		$(DESTDIR)$(LIBDIR)/libhugebuf.so.$(HB_VERSION)
	ln -sf libhugebuf.so.$(HB_VERSION) $(DESTDIR)$(LIBDIR)/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(DESTDIR)$(LIBDIR)/libhugebuf.so
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' \
		-e 's|@VERSION@|$(HB_VERSION)|g' \
		-e 's|@LIBS_PRIVATE@|-ldl $(LIB_PTHREAD)|g' hugebuf.pc.in \
		>$(DESTDIR)$(PKGCONFIGDIR)/hugebuf.pc
	chmod 0644 $(DESTDIR)$(PKGCONFIGDIR)/hugebuf.pc
	install -m 0755 $(ENGINE) $(DESTDIR)$(LIBDIR)/fio/hugebuf.so
	install -m 0755 $(CLI) $(DESTDIR)$(BINDIR)/hugebuf
	install -m 0644 $(BASHCOMP) $(DESTDIR)$(BASHCOMPDIR)/hugebuf
	install -m 0644 docs/man/hugebuf.1 $(DESTDIR)$(MANDIR)/man1/hugebuf.1
	install -m 0644 docs/man/hugebuf-ioengine.7 \
		$(DESTDIR)$(MANDIR)/man7/hugebuf-ioengine.7
	install -m 0644 $(MAN3) $(DESTDIR)$(MANDIR)/man3/

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))

clean:
	rm -f lib/*/*.o lib/*/*.d $(LIB_A) lib/libhugebuf.so.* t/*.o \
		t/helpers/*.o $(T_HELPERS) t/*.t \
		$(CLI) $(ENGINE) $(ENGINE_ABITEST) $(REGBENCH)
	rm -f cli/*.[od] engines/*.[od] bench/*.[od] kernel/probe/*.[od]
	rm -rf t/static kernel/static $(UNIT_DIR)

distclean: clean
	rm -f config-host.mak config-host.h

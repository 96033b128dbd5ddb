#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# make install and make uninstall of the built tree into a scratch DESTDIR
# with PREFIX=/usr: exactly the files of the layout below, the public
# headers (lib/include/hugebuf.h and lib/include/hugebuf-model.h, the Makefile's
# PUBLIC_HDRS) and no private one, the shared library's soname from
# VERSION, a private function not exported, hugebuf.pc good enough for a
# program (pkg-config, shared and static) that runs, hugebuf --version, a bash completion that parses and knows every
# option, and an uninstall that leaves only directories and what was
# there before.  The tree must be built (make): install builds nothing.
# t_ok never fails: "cond && t_ok || fail" is an if-then-else here
# shellcheck disable=SC2015
. "$(dirname "$0")/_fio-lib.sh"
t_need_cmd make gcc pkg-config readelf bash cmp find sort
t_tmpdir

version=$(sed -n '/^[0-9]/{p;q;}' "$T_TOP/VERSION")
major=${version%%.*}
[ -n "$version" ] || t_fail_now "no MAJOR.MINOR.PATCH line in $T_TOP/VERSION"

# the make of the test, not of a make that may have started it
hb_make() {
	env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -C "$T_TOP" "$@"
}

hb_make -q lib shlib engine cli >/dev/null 2>&1 ||
	skip "the tree is not built or not up to date: run make"

D=$T_DIR/dest
mkdir -p "$D/usr/lib" "$D/usr/bin"
# someone else's files in the same directories: uninstall keeps them
echo other >"$D/usr/lib/libother.so.1"
echo other >"$D/usr/bin/other"

built="lib/libhugebuf.a lib/libhugebuf.so.$version engines/hugebuf.so cli/hugebuf"
stamps() {
	for f in $built; do
		stat -c '%n %Y' "$T_TOP/$f" 2>/dev/null || echo "$f missing"
	done
}
before=$(stamps)
if hb_make install DESTDIR="$D" PREFIX=/usr >"$T_DIR/install.log" 2>&1; then
	t_ok "make install DESTDIR=... PREFIX=/usr"
else
	sed 's/^/  | /' "$T_DIR/install.log" | tail -n 20
	t_fail_now "make install DESTDIR=$D PREFIX=/usr failed"
fi
if [ "$(stamps)" = "$before" ] &&
	! grep -q -- ' -c \| -shared ' "$T_DIR/install.log"; then
	t_ok "make install built nothing in the built tree"
else
	fail "make install rebuilt files of the built tree (see the log)"
	sed 's/^/  | /' "$T_DIR/install.log" | head -n 10
fi

# the layout, every file (and symlink) make install put down
cat >"$T_DIR/want" <<EOF
usr/bin/hugebuf
usr/bin/other
usr/include/hugebuf-job.h
usr/include/hugebuf-model.h
usr/include/hugebuf.h
usr/lib/fio/hugebuf.so
usr/lib/libhugebuf.a
usr/lib/libhugebuf.so
usr/lib/libhugebuf.so.$major
usr/lib/libhugebuf.so.$version
usr/lib/libother.so.1
usr/lib/pkgconfig/hugebuf.pc
usr/share/bash-completion/completions/hugebuf
usr/share/man/man1/hugebuf.1
usr/share/man/man7/hugebuf-ioengine.7
EOF
(cd "$D" && find . ! -type d | sed 's|^\./||' | LC_ALL=C sort) >"$T_DIR/have"
if cmp -s "$T_DIR/want" "$T_DIR/have"; then
	t_ok "installed exactly the files of the layout"
else
	fail "installed files differ from the layout (-want +have):"
	diff "$T_DIR/want" "$T_DIR/have" | sed 's/^/  | /'
fi
grep -v other "$T_DIR/have" | sed 's/^/  installed: \//'

# the headers: the public ones of lib/, each self-contained, including
# only system headers and each other
pub=$(sed -n 's/^PUBLIC_HDRS := //p' "$T_TOP/Makefile")
[ -n "$pub" ] || t_fail_now "no PUBLIC_HDRS line in $T_TOP/Makefile"
for h in $pub; do
	n=$(basename "$h")
	H=$D/usr/include/$n
	if cmp -s "$H" "$T_TOP/$h"; then
		t_ok "include/$n is $h"
	else
		fail "include/$n differs from $h (or is missing)"
	fi
	# the quoted includes of an installed header: public headers only
	for inc in $(sed -n 's/^#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$H"); do
		case " $pub " in
		*" lib/include/$inc "*) t_ok "$n includes $inc, a public header" ;;
		*) fail "$n includes \"$inc\", which is not installed" ;;
		esac
	done
	printf '#include <%s>\n' "$n" >"$T_DIR/hdr.c"
	if gcc -std=c99 -Wall -Wextra -Werror -pedantic -I"$D/usr/include" -c \
		-o "$T_DIR/hdr.o" "$T_DIR/hdr.c" 2>"$T_DIR/hdr.log"; then
		t_ok "$n compiles on its own (-std=c99 -pedantic, no _GNU_SOURCE)"
	else
		fail "$n does not compile on its own:"
		sed 's/^/  | /' "$T_DIR/hdr.log" | head -n 10
	fi
done

# the shared library: its two symlinks and its soname
L=$D/usr/lib
[ "$(readlink "$L/libhugebuf.so.$major")" = "libhugebuf.so.$version" ] &&
	[ "$(readlink "$L/libhugebuf.so")" = "libhugebuf.so.$major" ] &&
	t_ok "libhugebuf.so -> libhugebuf.so.$major -> libhugebuf.so.$version" ||
	fail "symlinks: libhugebuf.so -> $(readlink "$L/libhugebuf.so"), libhugebuf.so.$major -> $(readlink "$L/libhugebuf.so.$major")"
soname=$(readelf -d "$L/libhugebuf.so.$version" 2>/dev/null |
	sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
[ "$soname" = "libhugebuf.so.$major" ] &&
	t_ok "soname libhugebuf.so.$major (readelf -d)" ||
	fail "soname is '$soname', want libhugebuf.so.$major"
if cmp -s "$L/fio/hugebuf.so" "$T_TOP/engines/hugebuf.so"; then
	t_ok "the fio engine at LIBDIR/fio/hugebuf.so"
else
	fail "LIBDIR/fio/hugebuf.so is not engines/hugebuf.so"
fi

# hugebuf.pc through pkg-config, as a user of the installed tree would
PKG_CONFIG_PATH=$L/pkgconfig
PKG_CONFIG_SYSROOT_DIR=$D
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
pcv=$(pkg-config --modversion hugebuf 2>&1)
[ "$pcv" = "$version" ] && t_ok "pkg-config --modversion hugebuf: $pcv" ||
	fail "pkg-config --modversion hugebuf: '$pcv', want $version"
if grep -q "$D" "$L/pkgconfig/hugebuf.pc"; then
	fail "hugebuf.pc names the DESTDIR $D"
else
	t_ok "hugebuf.pc names the install paths, not the DESTDIR"
fi
flags=$(pkg-config --cflags --libs hugebuf 2>&1)
sflags=$(pkg-config --static --cflags --libs hugebuf 2>&1)
case " $flags " in
*" -I$D/usr/include "*"-L$D/usr/lib "*"-lhugebuf "*)
	t_ok "pkg-config --cflags --libs hugebuf: $flags" ;;
*)	fail "pkg-config --cflags --libs hugebuf: '$flags'" ;;
esac
case " $sflags " in
*" -luring "*) t_ok "pkg-config --static: liburing's flags too: $sflags" ;;
*) fail "pkg-config --static --libs hugebuf: '$sflags' lacks -luring" ;;
esac

# the public API only: a size, and the model (hugebuf-model.h) of a 2 MiB
# buffer on one 2 MiB folio (at 1 GiB) under 6.12: one bvec
cat >"$T_DIR/prog.c" <<'EOF'
#include <stdio.h>
#include <hugebuf.h>

static struct hb_page pages[512];

int main(void)
{
	struct hb_kmodel km;
	struct hb_imu imu;
	char buf[32];
	uint64_t v;

	if (hb_parse_size("2M", &v) || hb_kmodel_parse("6.12", &km) ||
	    hb_layout_synth(v, 0, v, 1, pages) ||
	    hb_imu_build(&km, pages, 1ULL << 30, v, &imu)) {
		fprintf(stderr, "%s\n", hb_errmsg());
		return 1;
	}
	printf("%s %s %u\n", hb_fmt_size(v, buf, sizeof(buf)), km.name,
	       imu.nr_bvecs);
	hb_imu_free(&imu);
	return 0;
}
EOF
cw="-std=gnu11 -Wall -Wextra -Werror"

# run_prog NAME MUST_NEED: links, runs, prints "2M 6.12 1"; MUST_NEED yes: the
# program needs libhugebuf.so.MAJOR, no: it has libhugebuf inside
run_prog() {
	needed=$(readelf -d "$T_DIR/$1" 2>/dev/null | grep -c "(NEEDED).*\[libhugebuf.so.$major\]")
	if [ "$2" = yes ] && [ "$needed" = 1 ] ||
		{ [ "$2" = no ] && [ "$needed" = 0 ]; }; then
		t_ok "$1: NEEDED libhugebuf.so.$major: $2"
	else
		fail "$1: NEEDED libhugebuf.so.$major $needed times, want $2"
	fi
	out=$(LD_LIBRARY_PATH=$L "$T_DIR/$1" 2>&1)
	[ "$out" = "2M 6.12 1" ] &&
		t_ok "$1 runs: 2M, and 6.12 gives a 2M folio one bvec: $out" ||
		fail "$1 printed '$out', want '2M 6.12 1'"
}

# shellcheck disable=SC2086
if gcc $cw -o "$T_DIR/prog-shared" "$T_DIR/prog.c" $flags \
	2>"$T_DIR/cc.log"; then
	t_ok "a program links with pkg-config --cflags --libs hugebuf"
	run_prog prog-shared yes
else
	fail "linking with \`pkg-config --cflags --libs hugebuf\` failed:"
	sed 's/^/  | /' "$T_DIR/cc.log" | head -n 10
fi
# a private function (of a layer header) is not in the shared library: the
# version script (lib/libhugebuf.map) exports only the public headers'
cat >"$T_DIR/private.c" <<'EOF'
#include <stddef.h>
int hb_read_file(const char *path, char *buf, size_t len);

int main(void)
{
	char buf[16];

	return hb_read_file("/proc/self/stat", buf, sizeof(buf)) != 0;
}
EOF
# shellcheck disable=SC2086
if gcc $cw -o "$T_DIR/private" "$T_DIR/private.c" $flags \
	>"$T_DIR/cc.log" 2>&1; then
	fail "a program calling the private hb_read_file() links with libhugebuf.so"
elif grep -q "undefined reference to .hb_read_file" "$T_DIR/cc.log"; then
	t_ok "libhugebuf.so does not export the private hb_read_file()"
else
	fail "linking the private-call program failed for another reason:"
	sed 's/^/  | /' "$T_DIR/cc.log" | head -n 10
fi
# libhugebuf.a into a dynamic program (the private libs from the .pc)
aflags=$(echo "$sflags" | sed 's/-lhugebuf/-l:libhugebuf.a/')
# shellcheck disable=SC2086
if gcc $cw -o "$T_DIR/prog-static-lib" "$T_DIR/prog.c" $aflags \
	2>"$T_DIR/cc.log"; then
	t_ok "a program links libhugebuf.a with pkg-config --static"
	run_prog prog-static-lib no
else
	fail "linking libhugebuf.a with \`pkg-config --static\` failed:"
	sed 's/^/  | /' "$T_DIR/cc.log" | head -n 10
fi
# and all static, where liburing.a is there
if grep -q '^LIBURING_STATIC=yes' "$T_TOP/config-host.mak" 2>/dev/null; then
	# shellcheck disable=SC2086
	if gcc $cw -static -o "$T_DIR/prog-static" "$T_DIR/prog.c" $sflags \
		2>"$T_DIR/cc.log"; then
		t_ok "a -static program links with pkg-config --static"
		run_prog prog-static no
	else
		fail "gcc -static with \`pkg-config --static\` failed:"
		sed 's/^/  | /' "$T_DIR/cc.log" | head -n 10
	fi
else
	t_skip_check "no liburing.a: apt-get install liburing-dev (static link)"
fi
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR

# the CLI's version is VERSION's
for flag in --version -V; do
	out=$("$D/usr/bin/hugebuf" $flag 2>&1)
	rc=$?
	[ "$rc" = 0 ] && [ "$out" = "hugebuf $version" ] &&
		t_ok "hugebuf $flag: $out" ||
		fail "hugebuf $flag: '$out' (exit $rc), want 'hugebuf $version' (exit 0)"
done

# the bash completion parses, completes, and knows every long option
C=$D/usr/share/bash-completion/completions/hugebuf
bash -n "$C" 2>"$T_DIR/bash.log" && t_ok "bash -n the completion" ||
	fail "bash -n $C: $(head -n 3 "$T_DIR/bash.log")"
comp=$(bash -c '. "$1"
c() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
	_hugebuf 2>/dev/null; echo "${COMPREPLY[*]}"; }
c hugebuf pl; c hugebuf check --mo; c hugebuf plan --kernel = 6.1+' \
	_ "$C" 2>&1 | tr '\n' '|')
[ "$comp" = "plan|--moved|6.1+hugebuf|" ] &&
	t_ok "completes plan, check --moved, --kernel=6.1+hugebuf" ||
	fail "completions: '$comp', want 'plan|--moved|6.1+hugebuf|'"
missing=
# the long options: the rows of getopt's table (name, *_argument, ...)
for o in $(sed -n 's/^[[:space:]]*{ "\([a-z-]*\)", *[a-z]*_argument,.*/\1/p' \
	   "$T_TOP/cli/opts.c"); do
	grep -q -- "--$o\\b" "$C" || missing="$missing --$o"
done
[ -z "$missing" ] && t_ok "the completion knows every option of cli/opts.c" ||
	fail "the completion lacks:$missing"

# uninstall: the files go, the directories and the others' files stay
if hb_make uninstall DESTDIR="$D" PREFIX=/usr >"$T_DIR/uninstall.log" 2>&1; then
	t_ok "make uninstall DESTDIR=... PREFIX=/usr"
else
	sed 's/^/  | /' "$T_DIR/uninstall.log" | tail -n 20
	fail "make uninstall DESTDIR=$D PREFIX=/usr failed"
fi
left=$(cd "$D" && find . ! -type d | sed 's|^\./||' | LC_ALL=C sort | tr '\n' ' ')
[ "$left" = "usr/bin/other usr/lib/libother.so.1 " ] &&
	t_ok "make uninstall removed every file it installed, and nothing else" ||
	fail "after make uninstall: '$left', want only usr/bin/other usr/lib/libother.so.1"

t_done

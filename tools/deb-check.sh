#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/deb-check.sh: install hugebuf's Debian packages (tools/deb-build.sh)
# with "apt-get install ./....deb", use them from their installed paths only,
# then purge them and check that nothing of them is left (root; for a
# scratch machine or root such as tools/fresh-root.sh's: it changes the
# installed packages while it runs).
#
#   - fio-engine-hugebuf depends on exactly the installed fio's version
#   - fio --enghelp loads the engine from /usr/lib/<triplet>/fio/
#   - hugebuf --version and hugebuf info, from /usr/bin
#   - man pages, bash completion, pkg-config + a program on libhugebuf.so.0
#   - examples/device-read.fio from /usr/share/doc/hugebuf/examples with
#     the installed engine, read-only on a 64 MiB scratch file (65 free
#     2 MiB hugepages, else a counted skip): exit 0, the engine's report,
#     the file's bytes unchanged
#   - purge: the packages, and those apt pulled in for them, are gone, and
#     so is every file of the .debs; the package set is that of before
#
# Usage: tools/deb-check.sh [--build] [DIR]
#   DIR      where the .debs are (default out/deb/ of this tree)
#   --build  run tools/deb-build.sh --out DIR first
# Prints "N passed, N failed, N skipped" last; exit 0 when none failed.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
dir=$top/out/deb
build=0
pkgs="hugebuf fio-engine-hugebuf libhugebuf0 libhugebuf-dev"
passed=0
failed=0
skipped=0

die() {
	echo "deb-check: $*" >&2
	exit 1
}
ok() {
	passed=$((passed + 1))
	echo "PASS  $*"
}
fail() {
	failed=$((failed + 1))
	echo "FAIL  $*"
}
skip() {
	skipped=$((skipped + 1))
	echo "SKIP  $*"
}

while [ $# -gt 0 ]; do
	case $1 in
	--build) build=1 ;;
	-h | --help) sed -n '3,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1 (--help)" ;;
	*) dir=$1 ;;
	esac
	shift
done

[ "$(id -u)" = 0 ] || die "must run as root (apt-get install, purge)"
for c in apt-get dpkg-deb dpkg-architecture fio gcc pkg-config cmp; do
	command -v "$c" >/dev/null 2>&1 ||
		die "$c not found: run 'make deps' as root first"
done
if [ "$build" = 1 ]; then
	"$top/tools/deb-build.sh" --out "$dir" || die "tools/deb-build.sh failed"
fi
debs=
for p in $pkgs; do
	d=$(find "$dir" -maxdepth 1 -name "${p}_*.deb" | head -n 1)
	[ -n "$d" ] || die "no ${p}_*.deb in $dir: run tools/deb-build.sh (or --build)"
	debs="$debs $(cd "$(dirname "$d")" && pwd)/$(basename "$d")"
done
for p in $pkgs; do
	if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q installed; then
		die "$p is installed already: this check purges what it installs, remove $p first (apt-get purge $p)"
	fi
done

tmp=$(mktemp -d /var/tmp/hugebuf-deb-check.XXXXXX) || die "mktemp failed"
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
E=/usr/lib/$triplet/fio/hugebuf.so
[ -e "/usr/lib/$triplet/fio" ] && fio_dir_before=1 || fio_dir_before=0
dpkg-query -W -f='${Package}:${Architecture}\n' | sort >"$tmp/before"
for d in $debs; do
	dpkg-deb -c "$d" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\.||'
done | sort -u >"$tmp/files"

# whatever happens below, the packages go again
purged=0
purge() {
	[ "$purged" = 0 ] || return 0
	purged=1
	dpkg-query -W -f='${Package}:${Architecture}\n' | sort >"$tmp/after"
	new=$(comm -13 "$tmp/before" "$tmp/after" | tr '\n' ' ')
	# shellcheck disable=SC2086
	[ -z "$new" ] || DEBIAN_FRONTEND=noninteractive apt-get purge -y -q \
		$new >"$tmp/purge.log" 2>&1
}
cleanup() {
	purge
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "deb-check: apt-get install$debs"
# shellcheck disable=SC2086
if DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	--no-install-recommends $debs >"$tmp/install.log" 2>&1; then
	ok "apt-get install of the four .debs"
else
	sed 's/^/  | /' "$tmp/install.log" | tail -n 20
	fail "apt-get install of the .debs failed"
	echo "$passed passed, $failed failed, $skipped skipped"
	exit 1
fi

# the engine's fio: exactly the installed one
fio_ver=$(dpkg-query -W -f='${Version}' fio)
dep=$(dpkg-query -W -f='${Depends}' fio-engine-hugebuf)
case ", $dep," in
*", fio (= $fio_ver),"*) ok "fio-engine-hugebuf depends on fio (= $fio_ver)" ;;
*) fail "fio-engine-hugebuf Depends: '$dep' lacks fio (= $fio_ver)" ;;
esac

# the engine, loaded by fio from its installed path
if [ -f "$E" ] && fio --enghelp="$E" >"$tmp/enghelp" 2>&1 &&
	grep -q '^[[:space:]]*backing' "$tmp/enghelp"; then
	ok "fio --enghelp=$E lists the engine's options"
else
	fail "fio --enghelp=$E: $(head -n 3 "$tmp/enghelp" 2>/dev/null | tr '\n' ' ')"
fi

# the CLI from /usr/bin
want="hugebuf $(dpkg-query -W -f='${Version}' hugebuf | sed 's/-[^-]*$//')"
got=$(/usr/bin/hugebuf --version 2>&1)
if [ "$got" = "$want" ]; then
	ok "hugebuf --version: $got"
else
	fail "hugebuf --version: '$got', want '$want'"
fi
if /usr/bin/hugebuf info >"$tmp/info" 2>&1 &&
	grep -q '^hugetlb pools:' "$tmp/info"; then
	ok "hugebuf info (exit 0, shows the hugetlb pools)"
else
	fail "hugebuf info: $(tail -n 3 "$tmp/info" | tr '\n' ' ')"
fi

# man pages and the bash completion where the packages put them
for m in man1/hugebuf.1.gz man7/hugebuf-ioengine.7.gz; do
	if gzip -dc "/usr/share/man/$m" 2>/dev/null | grep -q '^\.TH '; then
		ok "/usr/share/man/$m"
	else
		fail "/usr/share/man/$m missing or not a man page"
	fi
done
C=/usr/share/bash-completion/completions/hugebuf
if bash -c '. "$1" && complete -p hugebuf' _ "$C" >/dev/null 2>&1; then
	ok "bash completion $C registers for hugebuf"
else
	fail "bash completion $C does not load or register"
fi

# the library through pkg-config, linked against libhugebuf.so.0
cat >"$tmp/prog.c" <<'EOF'
#include <stdio.h>
#include <hugebuf.h>

int main(void)
{
	char buf[32];
	uint64_t v;

	if (hb_parse_size("2M", &v)) {
		fprintf(stderr, "%s\n", hb_errmsg());
		return 1;
	}
	printf("%s\n", hb_fmt_size(v, buf, sizeof(buf)));
	return 0;
}
EOF
L=/usr/lib/$triplet/libhugebuf.so.0
# shellcheck disable=SC2046
if ! gcc -std=gnu11 -Wall -Wextra -Werror -o "$tmp/prog" "$tmp/prog.c" \
	$(pkg-config --cflags --libs hugebuf) >"$tmp/cc.log" 2>&1; then
	fail "building with pkg-config hugebuf: $(head -n 3 "$tmp/cc.log" | tr '\n' ' ')"
else
	got=$("$tmp/prog" 2>&1)
	# the loader may name it by /lib (usrmerge): compare the real files
	so=$(ldd "$tmp/prog" | sed -n 's/^[[:space:]]*libhugebuf\.so\.0 => \([^ ]*\) .*/\1/p')
	if [ "$got" = 2M ] && [ -n "$so" ] &&
		[ "$(readlink -f "$so")" = "$(readlink -f "$L")" ]; then
		ok "a program built with pkg-config hugebuf runs on $L"
	else
		fail "pkg-config hugebuf program printed '$got' (want 2M), libhugebuf.so.0 from '$so' (want $L)"
	fi
fi

# an example job from the installed paths only
J=/usr/share/doc/hugebuf/examples/device-read.fio
free=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
hps=$(awk '/^Hugepagesize:/ { print $2 }' /proc/meminfo)
if [ ! -f "$J" ]; then
	fail "$J is not installed"
elif [ "${hps:-0}" != 2048 ] || [ "${free:-0}" -lt 65 ]; then
	skip "$J: needs 65 free 2 MiB hugepages, has ${free:-0} (echo 128 > /proc/sys/vm/nr_hugepages)"
else
	f=$tmp/scratch.dat
	head -c 67108864 /dev/urandom >"$f"
	cp "$f" "$tmp/scratch.orig"
	if HUGEBUF_ENGINE=$E HUGEBUF_FILE=$f HUGEBUF_RUNTIME=2 \
		HUGEBUF_REPORT_JSON=$tmp/report.json timeout -k 5 120 \
		fio --readonly "$J" >"$tmp/job.log" 2>&1; then
		ok "fio --readonly $J with HUGEBUF_ENGINE=$E: exit 0"
	else
		sed 's/^/  | /' "$tmp/job.log" | tail -n 15
		fail "fio --readonly $J failed"
	fi
	if grep -q '^hugebuf: device-read-8m: ' "$tmp/job.log" &&
		grep -q '^{' "$tmp/report.json" 2>/dev/null; then
		ok "the engine's report, on stdout and as JSON"
	else
		fail "no 'hugebuf: device-read-8m:' report or no JSON report"
	fi
	if cmp -s "$f" "$tmp/scratch.orig"; then
		ok "the job left the file's bytes unchanged"
	else
		fail "the read-only job changed the file"
	fi
fi

# purge: what the install added goes, and every file of the .debs
purge
if [ -s "$tmp/purge.log" ] && ! grep -q '^E:' "$tmp/purge.log"; then
	ok "apt-get purge of $(comm -13 "$tmp/before" "$tmp/after" | wc -l) package(s)"
else
	sed 's/^/  | /' "$tmp/purge.log" 2>/dev/null | tail -n 10
	fail "apt-get purge failed"
fi
dpkg-query -W -f='${Package}:${Architecture}\n' | sort >"$tmp/end"
if cmp -s "$tmp/before" "$tmp/end"; then
	ok "the installed packages are those of before"
else
	fail "installed packages differ from before: $(diff "$tmp/before" "$tmp/end" | grep '^[<>]' | tr '\n' ' ')"
fi
left=
while read -r p; do
	[ -e "$p" ] || [ -L "$p" ] && left="$left $p"
done <"$tmp/files"
[ "$fio_dir_before" = 0 ] && [ -e "/usr/lib/$triplet/fio" ] &&
	left="$left /usr/lib/$triplet/fio/"
if [ -z "$left" ]; then
	ok "no file of the packages is left ($(wc -l <"$tmp/files") checked)"
else
	fail "left behind:$left"
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The C sources follow the Linux kernel coding style, as the kernel's own
# scripts/checkpatch.pl reads it (-f, one file at a time), less the rules
# that only fit kernel code:
#   SPLIT_STRING       user-facing messages are split at 80 columns
#   PREFER_DEFINED_ATTRIBUTE_MACRO, ARRAY_SIZE
#                      __printf() and ARRAY_SIZE() are kernel macros
#   ENOSYS             io_uring_setup() and the register opcodes answer
#                      ENOSYS in user space, and the code names it
#   VOLATILE           a volatile read is how user space stops the
#                      compiler from dropping a page-touching load
#   EMBEDDED_FUNCTION_NAME
#                      a message that names a command ("usage") is not a
#                      function name
#   FUNCTION_ARGUMENTS fio's own prototypes, copied in its shape
#   QUOTED_WHITESPACE_BEFORE_NEWLINE
#                      strtok()'s delimiters " \n" are no message
# checkpatch.pl comes from Debian's linux-source-6.1, the tree the kernel
# harness builds: the unpacked tree in its cache, or the three files it
# needs taken from /usr/src's tarball (installed as root when missing).
. "$(dirname "$0")/_fio-lib.sh"
t_need_cmd perl tar git
t_tmpdir

cache=${KTEST_CACHE:-/var/tmp/hugebuf-kernel}
cp_dir=/var/tmp/hugebuf-checkpatch
ignore=SPLIT_STRING,PREFER_DEFINED_ATTRIBUTE_MACRO,ARRAY_SIZE,ENOSYS
ignore=$ignore,VOLATILE,EMBEDDED_FUNCTION_NAME,FUNCTION_ARGUMENTS
ignore=$ignore,QUOTED_WHITESPACE_BEFORE_NEWLINE

# a checkpatch.pl with the data files it reads beside it, or ""
find_checkpatch() {
	for f in ${HB_CHECKPATCH:-} "$cache"/src/linux-source-*/scripts/checkpatch.pl \
		"$cp_dir"/scripts/checkpatch.pl; do
		[ -f "$f" ] && { echo "$f"; return; }
	done
	tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | tail -n 1)
	if [ -z "$tarball" ] && [ "$(id -u)" = 0 ] &&
		command -v apt-get >/dev/null 2>&1; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends linux-source-6.1 >/dev/null 2>&1
		tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | tail -n 1)
	fi
	[ -n "$tarball" ] || return 0
	top=$(basename "$tarball" .tar.xz)
	mkdir -p "$cp_dir" &&
		tar -xJf "$tarball" -C "$cp_dir" --strip-components=1 \
			"$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" \
			"$top/scripts/const_structs.checkpatch" 2>/dev/null &&
		echo "$cp_dir/scripts/checkpatch.pl"
}

cp=$(find_checkpatch)
[ -n "$cp" ] ||
	skip "no kernel tree's scripts/checkpatch.pl: apt-get install linux-source-6.1"
t_info "checkpatch: $cp"

cd "$T_TOP" || t_fail_now "cannot cd to $T_TOP"
files=$(git ls-files '*.c' '*.h' 2>/dev/null | grep -v -e '^deps/' -e '^kernel/patches/')
[ -n "$files" ] || t_fail_now "no C file found (git ls-files)"
# one run over every file (perl's start-up once); its terse lines name
# the file they are about
# shellcheck disable=SC2086
perl "$cp" --no-tree --terse -f --show-types --ignore "$ignore" $files \
	2>&1 | grep -E '^[^ ]+:[0-9]+: (ERROR|WARNING|CHECK):' >"$T_DIR/out"
nr=0
for f in $files; do
	nr=$((nr + 1))
	if grep -q "^$f:" "$T_DIR/out"; then
		fail "$f is not in kernel style:"
		grep "^$f:" "$T_DIR/out" | sed 's/^/  | /'
	else
		T_PASSED=$((T_PASSED + 1))
	fi
done
t_info "$nr C files read"
t_done

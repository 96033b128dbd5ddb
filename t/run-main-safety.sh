#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# examples/run-main.sh writes and deletes only a scratch file of its own.
# Every path that is not one -- a file it did not write, a block device, a
# character device, a directory, a symbolic link -- is refused by the real
# command (no --dry-run) with one line and exit 1, before anything is
# installed or written, and the target's bytes are unchanged.  A path that
# does not exist, and a file carrying its marker, are accepted (--dry-run
# says what it would do).
. "$(dirname "$0")/_fio-lib.sh"
t_tmpdir
main=$T_TOP/examples/run-main.sh
marker="hugebuf scratch file, written by examples/run-main.sh: safe to delete"

sum() {
	sha256sum <"$1" | cut -d' ' -f1
}

# run-main.sh ARGS: exit 1 and one line on stderr naming the path and the
# read-only alternative
expect_refusal() {
	what=$1
	shift
	rc=0
	HUGEBUF_SIZE=8M sh "$main" "$@" >"$T_DIR/out" 2>"$T_DIR/err" || rc=$?
	lines=$(wc -l <"$T_DIR/err")
	if [ $rc != 1 ]; then
		fail "$what: exit $rc, not 1"
	elif [ "$lines" != 1 ] || [ -s "$T_DIR/out" ]; then
		fail "$what: not one line on stderr alone:"
		cat "$T_DIR/out" "$T_DIR/err"
	elif ! grep -q "refusing .*device-read.fio" "$T_DIR/err"; then
		fail "$what: message names no cause and fix: $(cat "$T_DIR/err")"
	else
		t_ok "$what: $(cut -c1-100 "$T_DIR/err")"
	fi
}

# run-main.sh --dry-run PATH says "would ACTION PATH"
expect_action() {
	out=$(HUGEBUF_SIZE=8M sh "$main" --dry-run "$2" 2>&1) ||
		{ fail "$1: refused: $out"; return; }
	case "$out" in
	"run-main: would $3 $2 "*) t_ok "$1: $out" ;;
	*) fail "$1: expected 'would $3', got: $out" ;;
	esac
}

# a foreign file of another size, and one of exactly the scratch size
for sz in 1 8; do
	f=$T_DIR/foreign-$sz
	head -c $((sz * 1048576)) /dev/urandom >"$f"
	before=$(sum "$f")
	expect_refusal "foreign ${sz} MiB file" "$f"
	[ -f "$f" ] && [ "$(sum "$f")" = "$before" ] &&
		t_ok "foreign ${sz} MiB file: unchanged" ||
		fail "foreign ${sz} MiB file: changed or removed"
done

# a symbolic link to a foreign file, and to a path that does not exist
f=$T_DIR/foreign-1
before=$(sum "$f")
ln -s "$f" "$T_DIR/link"
expect_refusal "symbolic link to a file" "$T_DIR/link"
[ "$(sum "$f")" = "$before" ] &&
	t_ok "symbolic link: its target is unchanged" ||
	fail "symbolic link: its target changed"
ln -s "$T_DIR/nowhere" "$T_DIR/dangling"
expect_refusal "dangling symbolic link" "$T_DIR/dangling"
[ ! -e "$T_DIR/nowhere" ] &&
	t_ok "dangling symbolic link: no target created" ||
	fail "dangling symbolic link: its target was created"

# a directory, and its contents
mkdir "$T_DIR/dir"
echo keep >"$T_DIR/dir/f"
expect_refusal "directory" "$T_DIR/dir"
[ "$(cat "$T_DIR/dir/f")" = keep ] &&
	t_ok "directory: its contents are unchanged" ||
	fail "directory: its contents changed"

# a character device
expect_refusal "character device" /dev/null
[ -c /dev/null ] &&
	t_ok "character device: /dev/null is still there" ||
	fail "character device: /dev/null is gone"

# a block device: a loop device over a file of ours
if [ "$(id -u)" = 0 ] && command -v losetup >/dev/null 2>&1; then
	head -c 8388608 /dev/urandom >"$T_DIR/backing"
	before=$(sum "$T_DIR/backing")
	if dev=$(losetup -f --show "$T_DIR/backing" 2>/dev/null); then
		t_atexit "losetup -d $dev"
		expect_refusal "block device" "$dev"
		[ -b "$dev" ] && [ "$(sum "$dev")" = "$before" ] ||
			fail "block device $dev: its bytes changed"
	else
		t_skip_check "block device: no loop device here"
	fi
else
	t_skip_check "block device: needs root and losetup"
fi

# a foreign file that starts with the marker text but is a FIFO: not read
mkfifo "$T_DIR/fifo"
expect_refusal "FIFO" "$T_DIR/fifo"

# accepted: a new path; a file with the marker, of the size and not
expect_action "new path" "$T_DIR/new" create
[ ! -e "$T_DIR/new" ] &&
	t_ok "new path: --dry-run created nothing" ||
	fail "new path: --dry-run created it"
f=$T_DIR/ours
printf '%s\n' "$marker" >"$f"
truncate -s 8M "$f"
expect_action "own scratch file, 8 MiB" "$f" reuse
truncate -s 4M "$f"
expect_action "own scratch file, 4 MiB" "$f" rewrite

# bad arguments
rc=0
sh "$main" --force "$T_DIR/x" >/dev/null 2>&1 || rc=$?
[ $rc = 2 ] &&
	t_ok "unknown option: exit 2" ||
	fail "unknown option: exit $rc, not 2"
rc=0
HUGEBUF_SIZE=3M sh "$main" --dry-run "$T_DIR/x" >/dev/null 2>&1 || rc=$?
[ $rc = 1 ] &&
	t_ok "HUGEBUF_SIZE=3M: exit 1" ||
	fail "HUGEBUF_SIZE=3M: exit $rc, not 1"
t_done

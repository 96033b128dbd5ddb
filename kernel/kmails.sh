#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# kernel/kmails.sh: kernel/patches/ through the three doors that take it
# (kernel/patches/README.md says which goes where and why):
#
#   OUTDIR/mainline/    mails for io-uring@ and netdev@: mainline/'s cover
#                       letter and patch, against 7.3.4
#   OUTDIR/stable-6.1/  the pin-leak fix as a [PATCH 6.1.y] mail for
#                       stable@ (a backport of an upstream commit)
#   OUTDIR/debian-6.1/  debian/patches/{bugfix,features}/ and the series
#                       lines to append to debian/patches/series of
#                       Debian's linux source package, tag debian/6.1.192-3
#
# Usage: kernel/kmails.sh [--signoff] [OUTDIR]
#
#   OUTDIR      where they go [./mails]
#   --signoff   add your Signed-off-by to every mail and patch.  The files
#               in kernel/patches/ carry neither an author nor a sign-off:
#               both are the sender's (Documentation/process/
#               submitting-patches.rst, "Developer's Certificate of
#               Origin"), so only whoever sends them can add them.
#
# The author (From:) of every mail and Debian patch is you (git config
# user.name and user.email).  BUG_DEBIAN=N adds "Bug-Debian:" with
# Debian bug N to the bugfix/ patches.
#
# Before writing anything it checks, and fails on a finding:
#  - the Debian series applies with quilt (no fuzz) to the files it
#    touches, taken from /usr/src/linux-source-6.1.tar.xz, and each
#    bugfix/ patch applies alone (the mirror serves Debian's linux 6.1
#    source package index but not its files, so its unpacked form
#    linux-source-6.1, which is that package's tree with debian/patches
#    applied, stands in for it);
#  - checkpatch.pl --strict of that tree passes every 6.1 patch, and that
#    of Debian's linux-source-7.3 (kernel/k73.sh fetches it) the mainline
#    patch (kernel/checkpatch.sh: what is left out and why).
#
# Environment: KTEST_CACHE, the trees' home [/var/tmp/hugebuf-kernel].

set -euo pipefail

KDIR=$(cd "$(dirname "$0")" && pwd)
PATCHES=$KDIR/patches
TARBALL=/usr/src/linux-source-6.1.tar.xz
KTEST_CACHE=${KTEST_CACHE:-/var/tmp/hugebuf-kernel}
T61=$KTEST_CACHE/mails/linux-source-6.1
DEBIAN_TAG=debian/6.1.192-3
# shellcheck source=kernel/checkpatch.sh
. "$KDIR/checkpatch.sh"

die() {
	echo "kmails: $*" >&2
	exit 1
}

log() {
	echo "kmails: $*" >&2
}

# What the checks run that a fresh machine lacks: installed from the
# machine's own apt sources when we are root (as kernel/kbuild.sh does for
# the harness; make deps leaves the kernel tools out), else named.
# $1 = the file that must exist, $2 = the package that holds it
need_pkg() {
	[ -e "$1" ] && return 0
	[ "$(id -u)" = 0 ] ||
		die "no $1: apt-get install $2 (as root), then run this again"
	log "installing $2"
	mkdir -p "$KTEST_CACHE"
	{ apt-get update -q && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends \
		-o DPkg::Lock::Timeout=900 "$2"; } >"$KTEST_CACHE/apt-kmails.log" 2>&1 ||
		die "apt-get install $2 failed, see $KTEST_CACHE/apt-kmails.log"
	[ -e "$1" ] || die "no $1 after installing $2"
}

# ---- reading kernel/patches ------------------------------------------------

series_patches() {	# the quilt series, bugfix/ then features/
	sed -n 's|^\([a-z_]*/[^ #]*\.patch\)$|\1|p' "$PATCHES/series"
}

mainline_mails() {	# mainline/'s files, cover letter first
	(cd "$PATCHES" && ls mainline/0[0-9][0-9][0-9]-*.patch)
}

# the files a patch touches
patch_files() {
	sed -n -e 's|^--- a/||p' -e 's|^+++ b/||p' "$1" | sort -u
}

# ---- the 6.1 tree: scripts/ and the files the series touches --------------

src_id() {
	dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null ||
		stat -c '%s-%Y' "$TARBALL"
}

# What checkpatch.pl and the quilt check need of Debian's 6.1 tree: its
# scripts/, the files checkpatch looks for at a tree's top, and the
# pristine files the series touches; unpacked once per package version
tree_61() {
	local id files p stamp=$T61/.kmails
	need_pkg "$TARBALL" linux-source-6.1
	id=$(src_id)
	files=$(for p in $(series_patches); do patch_files "$PATCHES/$p"; done |
		sort -u | xargs)
	if [ "$(cat "$stamp" 2>/dev/null)" = "$id $files" ]; then
		return 0
	fi
	log "unpacking scripts/ and the series' files of $TARBALL ($id)"
	rm -rf "$T61"
	mkdir -p "$(dirname "$T61")"
	# shellcheck disable=SC2046
	tar -C "$(dirname "$T61")" -xf "$TARBALL" --wildcards \
		'linux-source-6.1/scripts/*' \
		linux-source-6.1/{COPYING,CREDITS,Kbuild,MAINTAINERS,Makefile,README} \
		$(for p in $files; do echo "linux-source-6.1/$p"; done) ||
		die "unpacking $TARBALL failed"
	# checkpatch.pl's top_of_kernel_tree() looks for these directories
	(cd "$T61" && mkdir -p Documentation arch include drivers fs init \
		ipc kernel lib)
	echo "$id $files" >"$stamp"
}

# quilt push -a with no fuzz on a copy of the pristine files, and each
# bugfix/ patch alone; $1 = the directory holding debian/patches/
check_quilt() {
	local d p out ok=1
	need_pkg /usr/bin/quilt quilt
	d=$(mktemp -d "$KTEST_CACHE/mails/quilt.XXXXXX")
	cp -a "$T61/." "$d/"
	cp -a "$1/debian" "$d/"
	cat "$d/debian/patches/series-hugebuf" >"$d/debian/patches/series"
	if ! out=$(cd "$d" && QUILT_PATCHES=debian/patches \
		   quilt push -a --fuzz=0 -q 2>&1); then
		echo "$out" >&2
		ok=0
	fi
	rm -rf "$d"
	[ $ok = 1 ] || die "the Debian series does not apply with quilt (above)"
	log "quilt: the Debian series applies to $DEBIAN_TAG's tree, no fuzz"
	for p in $(series_patches | grep '^bugfix/'); do
		out=$(cd "$T61" && patch -p1 --dry-run -F0 -s \
			<"$1/debian/patches/$p" 2>&1) ||
			die "$p does not apply alone: $out"
	done
	log "each bugfix/ patch applies alone to $DEBIAN_TAG's tree"
}

# ---- writing -------------------------------------------------------------

# the body of patch $1 (what follows its header), with the sender's
# Signed-off-by after the changelog's last tag when --signoff asks for it
signoff_body() {	# $1 = file
	awk -v sob="$([ "$SIGNOFF" = 1 ] && echo "Signed-off-by: $SENDER")" '
	!hdr { if (/^$/) hdr = 1; next }
	!done && /^---$/ {
		if (sob != "") print sob
		done = 1
	}
	{ print }' "$1"
}

# the header of patch $1: its DEP-3 lines
dep3_header() {	# $1 = file
	awk '/^$/ { exit } { print }' "$1"
}

subject_of() {	# $1 = file: the subject, folded lines joined
	awk '/^Subject: / { s = $0; sub(/^Subject: /, "", s); on = 1; next }
	on && /^[ \t]/ { sub(/^[ \t]+/, " "); s = s $0; next }
	on { print s; exit }' "$1"
}

# one Debian patch: From: and the DEP-3 header, Bug-Debian for a fix,
# then the changelog, the sender's sign-off and the diff
write_debian() {	# $1 = series line, $2 = output root
	local p=$1 f=$PATCHES/$1 out=$2/debian/patches/$1 kind=other
	case $p in bugfix/*) kind=bugfix ;; esac
	mkdir -p "$(dirname "$out")"
	{
		echo "From: $SENDER"
		dep3_header "$f"
		[ "$kind" = bugfix ] && [ -n "${BUG_DEBIAN:-}" ] &&
			echo "Bug-Debian: https://bugs.debian.org/$BUG_DEBIAN"
		echo
		signoff_body "$f"
	} >"$out"
}

# a mail: From:, Date:, To:, Cc:, the stored Subject (or $4), the body
write_mail() {	# $1 = file, $2 = out, $3 = To, $4 = Cc (one per line), $5 = subject
	local cc
	cc=$(echo "$4" | sed '/^$/d' | paste -sd ',' | sed 's/,/,\n    /g')
	{
		echo "From: $SENDER"
		echo "Date: $(date -R)"
		echo "Subject: $5"
		echo "To: $3"
		[ -z "$cc" ] || echo "Cc: $cc"
		echo
		signoff_body "$1"
	} >"$2"
}

MAINLINE_TO="io-uring@vger.kernel.org"
MAINLINE_CC="Jens Axboe <axboe@kernel.dk>
Pavel Begunkov <asml.silence@gmail.com>
netdev@vger.kernel.org"
STABLE_TO="stable@vger.kernel.org"
STABLE_CC="io-uring@vger.kernel.org
Jens Axboe <axboe@kernel.dk>
Pavel Begunkov <asml.silence@gmail.com>
Penglei Jiang <superman.xpt@gmail.com>"
STABLE_PATCH=bugfix/io_uring-fix-potential-page-leak-in-io_sqe_buffer_register.patch

write_mainline() {	# $1 = output dir
	local f s
	mkdir -p "$1"
	for f in $(mainline_mails); do
		s=$(subject_of "$PATCHES/$f")
		if [ "$(basename "$f")" = 0000-cover-letter.patch ]; then
			# a cover letter has no diff to sign
			SIGNOFF=0 write_mail "$PATCHES/$f" "$1/$(basename "$f")" \
				"$MAINLINE_TO" "$MAINLINE_CC" "$s"
		else
			write_mail "$PATCHES/$f" "$1/$(basename "$f")" \
				"$MAINLINE_TO" "$MAINLINE_CC" "$s"
		fi
	done
}

# the stable rules' option 3: "commit <sha> upstream." first, the
# changelog after it, the 6.1 differences already said in it
write_stable() {	# $1 = output dir
	local f=$PATCHES/$STABLE_PATCH sha out
	sha=$(sed -n 's/^Origin: backport, commit:\([0-9a-f]\{40\}\)$/\1/p' "$f")
	[ -n "$sha" ] || die "$STABLE_PATCH: no 'Origin: backport, commit:<40 hex>'"
	mkdir -p "$1"
	out=$1/0001-$(basename "$STABLE_PATCH")
	write_mail "$f" "$out.tmp" "$STABLE_TO" "$STABLE_CC" \
		"[PATCH 6.1.y] $(subject_of "$f")"
	awk -v sha="$sha" '
	!hdr { print; if (/^$/) { hdr = 1; print "commit " sha " upstream."; print "" } next }
	{ print }' "$out.tmp" >"$out"
	rm -f "$out.tmp"
}

write_debian_series() {	# $1 = output root
	local p
	rm -rf "$1/debian"
	for p in $(series_patches); do write_debian "$p" "$1"; done
	{
		echo "# kernel/patches of hugebuf, for $DEBIAN_TAG: append to"
		echo "# debian/patches/series (bugfix/ first; each of them also"
		echo "# applies alone, the features/ need them)"
		series_patches
	} >"$1/debian/patches/series-hugebuf"
}

# checkpatch.pl of tree $1 on file $2 (shown relative to $3); 1 on a
# finding, printed
checkpatch_one() {	# $1 = tree, $2 = file, $3 = output dir, $4 = label
	local out
	if out=$(checkpatch_mail "$1" "$2" \
		 "$([ "$SIGNOFF" = 1 ] && echo signoff)"); then
		log "checkpatch --strict ($4): clean: ${2#"$3"/}"
		return 0
	fi
	echo "$out" >&2
	return 1
}

check_checkpatch() {	# $1 = output dir
	local f rc=0 t73
	for f in "$1"/debian-6.1/debian/patches/*/*.patch "$1"/stable-6.1/*.patch; do
		checkpatch_one "$T61" "$f" "$1" 6.1 || rc=1
	done
	t73=$("$KDIR/k73.sh" --source) ||
		die "no 7.3 tree for the mainline patch's checkpatch (kernel/k73.sh --source)"
	for f in "$1"/mainline/0[0-9][0-9][0-9]-*.patch; do
		case $f in */0000-cover-letter.patch) continue ;; esac
		checkpatch_one "$t73" "$f" "$1" 7.3 || rc=1
	done
	return $rc
}

main() {
	local out=mails
	SIGNOFF=0
	while [ $# -gt 0 ]; do
		case $1 in
		--signoff) SIGNOFF=1 ;;
		-h | --help) sed -n '3,39p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
		-*) die "unknown option $1 (see --help)" ;;
		*) out=$1 ;;
		esac
		shift
	done
	local name email
	name=$(git config user.name || true)
	email=$(git config user.email || true)
	if [ -z "$name" ] || [ -z "$email" ]; then
		die "no git identity: set git config user.name and user.email (the mails and patches go out from you)"
	fi
	SENDER="$name <$email>"
	[ -z "${BUG_DEBIAN:-}" ] || [[ $BUG_DEBIAN =~ ^[0-9]+$ ]] ||
		die "BUG_DEBIAN=$BUG_DEBIAN: want a Debian bug number"
	[ -n "$(series_patches)" ] || die "kernel/patches/series lists no patch"
	[ -n "$(mainline_mails)" ] || die "kernel/patches/mainline/ has no mail"
	tree_61
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	rm -rf "$out/mainline" "$out/stable-6.1" "$out/debian-6.1"
	write_mainline "$out/mainline"
	write_stable "$out/stable-6.1"
	write_debian_series "$out/debian-6.1"
	check_quilt "$out/debian-6.1"
	check_checkpatch "$out" || die "checkpatch has findings (above)"
	log "written in $out: mainline/ (git send-email), stable-6.1/ (git send-email), debian-6.1/debian/patches/ (a merge request to Debian's kernel team); kernel/patches/README.md says which goes where"
}

main "$@"

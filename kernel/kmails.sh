#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# kernel/kmails.sh: the series of kernel/patches/ as mails for
# git send-email, each from git format-patch on Debian's linux-source-6.1
# imported into git.  kernel/patches/series lists the mails in the order
# they apply; its directories are the series:
#
#   stable/    one [PATCH 6.1.y] for stable@ (the pin leak, from upstream)
#   io_uring/  [PATCH debian-6.1 n/N] for io-uring@, with a cover letter;
#              it needs the stable patch first (prerequisite-patch-id)
#   block/     [PATCH debian-6.1 n/N] for linux-block@, with a cover letter
#
# Usage: kernel/kmails.sh [--signoff] [--update] [OUTDIR]
#
#   OUTDIR      where the mails go, one directory per series [./mails]
#   --signoff   add your Signed-off-by (git format-patch -s).  The mails
#               in kernel/patches/ carry none: the sign-off is the
#               sender's statement (Documentation/process/
#               submitting-patches.rst, "Developer's Certificate of
#               Origin"), so only whoever sends them can add it.
#   --update    rewrite kernel/patches/ itself (numbering, diffstat,
#               base-commit, series) after one of its mails was edited;
#               the author stays as it is there
#
# Without --update every mail is authored by you (git config user.name and
# user.email), as git send-email expects of the sender.  The cover
# letters' text is taken from kernel/patches/<series>/0000-cover-letter.patch.
# base-commit is the commit of the import, which is reproducible: the
# tarball's tree committed with a fixed identity and date (import_base).
# Every mail but the cover letters passes scripts/checkpatch.pl --strict
# (kernel/checkpatch.sh: what it leaves out and why) or the script fails.
#
# Environment: KTEST_CACHE, the import's home [/var/tmp/hugebuf-kernel].

set -euo pipefail

KDIR=$(cd "$(dirname "$0")" && pwd)
PATCHES=$KDIR/patches
TARBALL=/usr/src/linux-source-6.1.tar.xz
KTEST_CACHE=${KTEST_CACHE:-/var/tmp/hugebuf-kernel}
REPO=$KTEST_CACHE/mails/linux-source-6.1
SERIES_ORDER="stable io_uring block"
# shellcheck source=kernel/checkpatch.sh
. "$KDIR/checkpatch.sh"

die() {
	echo "kmails: $*" >&2
	exit 1
}

log() {
	echo "kmails: $*" >&2
}

# per series: subject prefix, To, Cc (get_maintainer.pl's lists for the
# files each touches, and the upstream authors the changelogs credit)
series_prefix() {
	case $1 in
	stable) echo "PATCH 6.1.y" ;;
	*) echo "PATCH debian-6.1" ;;
	esac
}

series_to() {
	case $1 in
	stable) echo "stable@vger.kernel.org" ;;
	io_uring) echo "io-uring@vger.kernel.org" ;;
	block) echo "linux-block@vger.kernel.org" ;;
	esac
}

series_cc() {
	case $1 in
	stable)
		echo "io-uring@vger.kernel.org"
		echo "Jens Axboe <axboe@kernel.dk>"
		echo "Penglei Jiang <superman.xpt@gmail.com>" ;;
	io_uring)
		echo "Jens Axboe <axboe@kernel.dk>"
		echo "Pavel Begunkov <asml.silence@gmail.com>"
		echo "netdev@vger.kernel.org"
		echo "debian-kernel@lists.debian.org" ;;
	block)
		echo "Jens Axboe <axboe@kernel.dk>"
		echo "debian-kernel@lists.debian.org" ;;
	esac
}

# the series' predecessor: io_uring applies on top of the stable fix
series_base() {
	case $1 in
	io_uring) echo stable ;;
	*) echo base ;;
	esac
}

# ---- the import ------------------------------------------------------------

src_id() {
	dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null ||
		stat -c '%s-%Y' "$TARBALL"
}

# Debian's source as one commit whose id depends only on the tarball: the
# tree (git add -f, since Debian's .gitignore ignores everything) under a
# fixed identity, date and message
import_base() {
	local id stamp=$REPO/../.imported
	id=$(src_id)
	if [ -d "$REPO/.git" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$id" ]; then
		return 0
	fi
	[ -f "$TARBALL" ] ||
		die "no $TARBALL: apt-get install linux-source-6.1 (or run 'make deps')"
	log "importing $TARBALL ($id) into git at $REPO (about 3 minutes)"
	rm -rf "$(dirname "$REPO")"
	mkdir -p "$(dirname "$REPO")"
	tar -C "$(dirname "$REPO")" -xf "$TARBALL"
	(
		cd "$REPO"
		git init -q
		git add -A -f
		GIT_AUTHOR_NAME=Debian GIT_AUTHOR_EMAIL=debian-kernel@lists.debian.org \
		GIT_COMMITTER_NAME=Debian \
		GIT_COMMITTER_EMAIL=debian-kernel@lists.debian.org \
		GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' \
		GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
			git commit -q -m "Debian linux-source-6.1 $id"
		git tag -f base >/dev/null
		git config notes.rewriteRef refs/notes/commits
	)
	echo "$id" >"$stamp"
}

# ---- reading the stored mails ------------------------------------------------

# the mails of series $1, in the order of kernel/patches/series
series_mails() {
	sed -n "s|^\($1/[0-9][0-9][0-9][0-9]-.*\.patch\)\$|\1|p" "$PATCHES/series"
}

# the note of a mail: what git format-patch --notes put below '---'
mail_notes() {
	awk '
	/^---$/ && !cut { cut = 1; next }
	cut == 1 && /^Notes:$/ { in_n = 1; next }
	in_n && /^    / { sub(/^    /, ""); print; next }
	in_n && /^$/ { blank++; next }
	in_n { exit }
	' "$1"
}

# the cover letter's subject (without the [PATCH ...] tag) and blurb
cover_subject() {
	awk '
	/^Subject: / { s = $0; sub(/^Subject: (\[[^]]*\] )?/, "", s); on = 1; next }
	on && /^[ \t]/ { sub(/^[ \t]+/, " "); s = s $0; next }
	on { print s; exit }' "$1"
}

cover_blurb() {
	awk '
	!body && /^$/ { body = 1; next }
	!body { next }
	/^[^ ].* \([0-9]+\):$/ { exit }
	{ print }' "$1" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}

# ---- the branches ------------------------------------------------------------

# branch $1 from its base, the stored mails applied, their notes kept
build_branch() {
	local s=$1 m n
	git -C "$REPO" checkout -q -f -B "$s" "$(series_base "$s")"
	for m in $(series_mails "$s"); do
		git -C "$REPO" -c user.name=kmails -c user.email=kmails@localhost \
			am -q --committer-date-is-author-date "$PATCHES/$m" ||
			{ git -C "$REPO" am --abort; die "$m does not apply to $(series_base "$s")"; }
		n=$(mail_notes "$PATCHES/$m")
		[ -z "$n" ] || printf '%s\n' "$n" | git -C "$REPO" notes add -f -F - HEAD 2>/dev/null
	done
}

# make the sender the author of every commit of series $1
reset_author() {
	git -C "$REPO" -c "user.name=$SENDER_NAME" -c "user.email=$SENDER_EMAIL" \
		rebase -q --committer-date-is-author-date \
		--exec 'git commit -q --amend --no-edit --reset-author' \
		"$(series_base "$1")" "$1" >/dev/null
}

# ---- the mails -------------------------------------------------------------

fill_cover() {	# $1 = generated cover, $2 = stored cover
	local subj blurb d=
	[ -f "$2" ] || die "no cover letter $2: write one (subject and text; the rest is generated)"
	subj=$(cover_subject "$2")
	blurb=$(cover_blurb "$2")
	[ -n "$subj" ] && [ -n "$blurb" ] || die "$2: no subject or no text"
	# --update keeps the stored letter's date: only an edit changes it
	[ "$UPDATE" = 0 ] || d=$(sed -n 's/^Date: //p' "$2" | head -n 1)
	SUBJ=$subj BLURB=$blurb DATE=$d python3 - "$1" <<-'EOF'
	import os, re, sys
	p = sys.argv[1]
	s = open(p).read()
	if os.environ["DATE"]:
	    s = re.sub(r"(?m)^Date: .*$", lambda m: "Date: " + os.environ["DATE"], s, 1)
	s = s.replace("*** SUBJECT HERE ***", os.environ["SUBJ"], 1)
	s = s.replace("*** BLURB HERE ***", os.environ["BLURB"], 1)
	open(p, "w").write(s)
	EOF
}

format_series() {	# $1 = series, $2 = output dir
	local s=$1 out=$2/$1 n args=() a
	n=$(series_mails "$s" | wc -l)
	rm -rf "$out.new"
	mkdir -p "$out.new"
	args=(-q --notes --base=base -o "$out.new"
	      "--subject-prefix=$(series_prefix "$s")"
	      "--to=$(series_to "$s")")
	while read -r a; do args+=("--cc=$a"); done < <(series_cc "$s")
	[ "$s" = stable ] || args+=(--cover-letter -n)
	[ "$SIGNOFF" = 0 ] || args+=(-s)
	git -C "$REPO" -c "user.name=$SENDER_NAME" -c "user.email=$SENDER_EMAIL" \
		format-patch "${args[@]}" "$(series_base "$s")..$s"
	[ "$s" = stable ] ||
		fill_cover "$out.new/0000-cover-letter.patch" \
			"$PATCHES/$s/0000-cover-letter.patch"
	[ "$s" = stable ] || n=$((n + 1))
	[ "$(ls "$out.new" | wc -l)" -eq "$n" ] ||
		die "$s: format-patch wrote $(ls "$out.new" | wc -l) files, expected $n"
	rm -rf "$out"
	mv "$out.new" "$out"
}

check_mails() {	# $1 = output dir
	local f out rc=0
	for f in "$1"/*/0[0-9][0-9][0-9]-*.patch; do
		case $f in */0000-cover-letter.patch) continue ;; esac
		if out=$(checkpatch_mail "$REPO" "$f" \
			 "$([ "$SIGNOFF" = 1 ] && echo signoff)"); then
			log "checkpatch --strict: clean: ${f#"$1"/}"
		else
			echo "$out" >&2
			rc=1
		fi
	done
	return $rc
}

write_series_file() {	# $1 = output dir
	local s f
	{
		sed -n '/^#/p' "$PATCHES/series"
		for s in $SERIES_ORDER; do
			for f in "$1/$s"/0[0-9][0-9][0-9]-*.patch; do
				case $f in */0000-cover-letter.patch) continue ;; esac
				echo "$s/$(basename "$f")"
			done
		done
	} >"$1/series.new"
	mv "$1/series.new" "$1/series"
}

main() {
	local out=mails s
	SIGNOFF=0 UPDATE=0
	while [ $# -gt 0 ]; do
		case $1 in
		--signoff) SIGNOFF=1 ;;
		--update) UPDATE=1 ;;
		-h | --help) sed -n '3,34p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
		-*) die "unknown option $1 (see --help)" ;;
		*) out=$1 ;;
		esac
		shift
	done
	command -v git >/dev/null || die "no git: apt-get install git"
	if [ "$UPDATE" = 1 ]; then
		[ "$SIGNOFF" = 0 ] || die "--update writes kernel/patches/, which carries no sign-off: drop --signoff"
		out=$PATCHES
	fi
	SENDER_NAME=$(git config user.name || true)
	SENDER_EMAIL=$(git config user.email || true)
	if [ "$UPDATE" = 0 ] && { [ -z "$SENDER_NAME" ] || [ -z "$SENDER_EMAIL" ]; }; then
		die "no git identity: set git config user.name and user.email (the mails go out from you)"
	fi
	if [ "$UPDATE" = 1 ]; then
		# kernel/patches/ keeps its authors, the cover letters too
		SENDER_NAME=$(sed -n 's/^From: \(.*\) <.*>$/\1/p;T;q' "$PATCHES/$(series_mails stable | head -1)")
		SENDER_EMAIL=$(sed -n 's/^From: .* <\(.*\)>$/\1/p;T;q' "$PATCHES/$(series_mails stable | head -1)")
	fi
	import_base
	for s in $SERIES_ORDER; do
		[ -n "$(series_mails "$s")" ] || die "kernel/patches/series lists no $s/ mail"
		build_branch "$s"
		[ "$UPDATE" = 1 ] || reset_author "$s"
	done
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	for s in $SERIES_ORDER; do
		format_series "$s" "$out"
	done
	[ "$UPDATE" = 0 ] || write_series_file "$out"
	check_mails "$out" || die "checkpatch has findings (above)"
	log "mails in $out: $(cd "$out" && ls -d */ | tr -d / | tr '\n' ' ')"
	[ "$UPDATE" = 1 ] ||
		log "send each series with: git send-email $out/SERIES/*.patch (kernel/README.md, 'Sending the series')"
}

main "$@"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# kernel/patches/ is mails a maintainer can take (kernel/kmails.sh writes
# them; kernel/ktest.sh applies, builds and checkpatches them):
#  - kernel/patches/series lists every patch mail of stable/, io_uring/
#    and block/ once, each exists and carries a diff;
#  - the stable mail is a "[PATCH 6.1.y]" whose body starts with the
#    upstream commit line (40 hex digits) and carries a Fixes: tag;
#  - io_uring/ and block/ are numbered series "[PATCH debian-6.1 i/N]" in
#    file order, each with a cover letter "0/N" that has a base-commit
#    (io_uring/ also the stable patch as its prerequisite-patch-id), and
#    each patch says below '---' that it is for Debian's 6.1;
#  - no mail carries a Signed-off-by (the sender adds it), and no
#    changelog (above '---') names a tool of this project.
. "$(dirname "$0")/_fio-lib.sh"

P=$T_TOP/kernel/patches
[ -f "$P/series" ] || t_fail_now "no kernel/patches/series"

listed=$(sed -n 's|^\([a-z_]*/[0-9][0-9][0-9][0-9]-.*\.patch\)$|\1|p' "$P/series")
present=$(cd "$P" && ls */[0-9][0-9][0-9][0-9]-*.patch | grep -v '/0000-cover-letter\.patch$')
if [ "$(echo "$listed" | sort)" = "$(echo "$present" | sort)" ]; then
	t_ok "series lists the $(echo "$listed" | wc -l) patch mails present, each once"
else
	fail "series and kernel/patches/*/ differ: listed '$(echo $listed)', present '$(echo $present)'"
fi

# subject of mail $1, folded lines joined
subject() {
	awk '/^Subject: / { s = $0; on = 1; next }
	on && /^[ \t]/ { sub(/^[ \t]+/, " "); s = s $0; next }
	on { print s; exit }' "$1"
}

# the changelog: the body above the first '---' line
changelog() {
	awk '!b && /^$/ { b = 1; next } b && /^---$/ { exit } b' "$1"
}

# the part below '---', up to the diff
below_cut() {
	awk '/^---$/ { on = 1; next } /^diff --git / { exit } on' "$1"
}

for m in $listed; do
	f=$P/$m
	[ -f "$f" ] || continue
	grep -q '^diff --git ' "$f" || fail "$m: no diff"
	if grep -q '^Signed-off-by:' "$f"; then
		fail "$m: carries a Signed-off-by; the sender adds theirs (kmails.sh --signoff)"
	fi
	if changelog "$f" | grep -qiE 'hugebuf|ktest|kmails|kernel/probe|regbuf-'; then
		fail "$m: the changelog names a tool of this project: $(changelog "$f" | grep -iE 'hugebuf|ktest|kmails|kernel/probe|regbuf-' | head -n 1)"
	fi
done
t_ok "no Signed-off-by and no project tool in the changelogs"

st=$(echo "$listed" | grep '^stable/' || true)
if [ "$(echo "$st" | grep -c .)" != 1 ]; then
	fail "stable/: want exactly one mail, have '$(echo $st)'"
else
	f=$P/$st
	case $(subject "$f") in
	"Subject: [PATCH 6.1.y] "*) t_ok "stable: subject $(subject "$f" | cut -c10-)" ;;
	*) fail "stable: subject is not [PATCH 6.1.y]: $(subject "$f")" ;;
	esac
	first=$(changelog "$f" | grep -m1 .)
	if echo "$first" | grep -qE '^commit [0-9a-f]{40} upstream\.$'; then
		t_ok "stable: body starts with '$first'"
	else
		fail "stable: body does not start with 'commit <40 hex> upstream.': $first"
	fi
	if changelog "$f" | grep -qE '^Fixes: [0-9a-f]{12,} \("'; then
		t_ok "stable: $(changelog "$f" | grep '^Fixes:')"
	else
		fail "stable: no Fixes: tag"
	fi
fi

for s in io_uring block; do
	mails=$(echo "$listed" | grep "^$s/" || true)
	n=$(echo "$mails" | grep -c . || true)
	[ "$n" -gt 0 ] || { fail "$s/: no patch"; continue; }
	cover=$P/$s/0000-cover-letter.patch
	if [ ! -f "$cover" ]; then
		fail "$s/: no cover letter"
		continue
	fi
	case $(subject "$cover") in
	"Subject: [PATCH debian-6.1 0/$n] "*) ;;
	*) fail "$s/: cover letter subject is not 0/$n: $(subject "$cover")" ;;
	esac
	grep -q '^base-commit: [0-9a-f]\{40\}$' "$cover" ||
		fail "$s/: cover letter has no base-commit"
	if [ "$s" = io_uring ] &&
	   ! grep -q '^prerequisite-patch-id: [0-9a-f]\{40\}$' "$cover"; then
		fail "io_uring/: cover letter names no prerequisite (the stable patch)"
	fi
	grep -q '\*\*\* \(SUBJECT\|BLURB\) HERE \*\*\*' "$cover" &&
		fail "$s/: cover letter still has format-patch's placeholders"
	i=0
	bad=0
	for m in $mails; do
		i=$((i + 1))
		case $(subject "$P/$m") in
		"Subject: [PATCH debian-6.1 $i/$n] "*) ;;
		*) fail "$m: subject is not $i/$n: $(subject "$P/$m")"; bad=1 ;;
		esac
		below_cut "$P/$m" | grep -q "For Debian's 6.1" ||
			{ fail "$m: does not say below '---' that it is for Debian's 6.1"; bad=1; }
	done
	[ $bad = 1 ] || t_ok "$s/: $n patch(es) numbered 1/$n..$n/$n after a cover letter with its base, each for Debian's 6.1"
done

t_done

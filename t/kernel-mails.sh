#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# kernel/patches/ in the forms its three routes take (kernel/patches/
# README.md; kernel/kmails.sh writes them, kernel/ktest.sh builds them):
#  - series is a quilt series listing every patch of bugfix/ and features/
#    once, bugfix/ first, each there with a diff;
#  - every patch of bugfix/ and features/ opens with a DEP-3 header
#    (Subject:, Origin:, Forwarded:) and every bugfix/ patch has a Fixes:
#    tag;
#  - mainline/ is a cover letter "[PATCH 0/N]" and patches "[PATCH i/N]",
#    the SEND_ZC fix with its Fixes: tag;
#  - no file carries a From: or Signed-off-by: line (the sender's identity
#    is added when sending), a base-commit (the tree is Debian's, not a
#    fetchable commit) or a changelog naming a tool of this project;
#  - every commit id cited anywhere is in known-ids.txt, not withdrawn
#    there, and a quoted subject after it is the one listed;
#  - a file that gives a measured ratio or count says it is under qemu TCG.
. "$(dirname "$0")/_fio-lib.sh"

P=$T_TOP/kernel/patches
K=$P/known-ids.txt
[ -f "$P/series" ] || t_fail_now "no kernel/patches/series"
[ -f "$K" ] || t_fail_now "no kernel/patches/known-ids.txt"

listed=$(sed -n 's|^\([a-z_]*/[^ #]*\.patch\)$|\1|p' "$P/series")
present=$(cd "$P" && ls bugfix/*.patch features/*.patch 2>/dev/null)
if [ "$(echo "$listed" | sort)" = "$(echo "$present" | sort)" ]; then
	t_ok "series lists the $(echo "$listed" | wc -l) patches of bugfix/ and features/, each once"
else
	fail "series and bugfix/ + features/ differ: listed '$(echo "$listed" | xargs)', present '$(echo "$present" | xargs)'"
fi
order=$(echo "$listed" | sed 's|/.*||' | uniq | xargs)
[ "$order" = "bugfix features" ] ||
	fail "series: want bugfix/ then features/, have '$order'"

# the header: lines up to the first empty one
header() {
	awk '/^$/ { exit } { print }' "$1"
}

# the changelog: the body above the first '---' line
changelog() {
	awk '!b && /^$/ { b = 1; next } b && /^---$/ { exit } b' "$1"
}

# subject of mail $1, folded lines joined
subject() {
	awk '/^Subject: / { s = $0; on = 1; next }
	on && /^[ \t]/ { sub(/^[ \t]+/, " "); s = s $0; next }
	on { print s; exit }' "$1"
}

bad=0
for m in $listed; do
	f=$P/$m
	[ -f "$f" ] || { fail "$m: listed but not there"; bad=1; continue; }
	grep -q '^diff --git ' "$f" || { fail "$m: no diff"; bad=1; }
	for h in Subject Origin Forwarded; do
		header "$f" | grep -q "^$h: ." ||
			{ fail "$m: no DEP-3 $h: in its header"; bad=1; }
	done
	case $m in
	bugfix/*)
		changelog "$f" | grep -qE '^Fixes: [0-9a-f]{12} \("' ||
			{ fail "$m: a bug fix without a Fixes: tag"; bad=1; } ;;
	esac
done
[ $bad = 1 ] || t_ok "every patch has a DEP-3 header (Subject, Origin, Forwarded), every bugfix/ a Fixes: tag"

n=$(ls "$P"/mainline/0[0-9][0-9][0-9]-*.patch 2>/dev/null |
	grep -vc '/0000-cover-letter\.patch$' || true)
if [ "$n" -gt 0 ] && [ -f "$P/mainline/0000-cover-letter.patch" ]; then
	bad=0
	case $(subject "$P/mainline/0000-cover-letter.patch") in
	"Subject: [PATCH 0/$n] "*) ;;
	*) fail "mainline/: cover letter subject is not 0/$n"; bad=1 ;;
	esac
	i=0
	for f in "$P"/mainline/0[0-9][0-9][0-9]-*.patch; do
		case $f in */0000-cover-letter.patch) continue ;; esac
		i=$((i + 1))
		case $(subject "$f") in
		"Subject: [PATCH $i/$n] "*) ;;
		*) fail "mainline/$(basename "$f"): subject is not $i/$n"; bad=1 ;;
		esac
		grep -q '^diff --git ' "$f" ||
			{ fail "mainline/$(basename "$f"): no diff"; bad=1; }
	done
	grep -q '^Fixes: 57bebf807e2a ("' "$P"/mainline/0[0-9][0-9][0-9]-*.patch ||
		{ fail "mainline/: the SEND_ZC fix has no Fixes: 57bebf807e2a"; bad=1; }
	[ $bad = 1 ] || t_ok "mainline/: a cover letter and $n patch(es) numbered 1/$n..$n/$n, Fixes: 57bebf807e2a"
else
	fail "mainline/: no cover letter or no patch"
fi

all=$(cd "$P" && ls bugfix/*.patch features/*.patch mainline/*.patch)
bad=0
for m in $all; do
	f=$P/$m
	if grep -qE '^(From|Signed-off-by): ' "$f"; then
		fail "$m: carries '$(grep -m1 -E '^(From|Signed-off-by): ' "$f")': the sender adds their own identity"
		bad=1
	fi
	if grep -qE '^base-commit: |@localhost' "$f"; then
		fail "$m: names a private base or a placeholder address"
		bad=1
	fi
	if changelog "$f" | grep -qiE 'hugebuf|ktest|kmails|kernel/probe|regbuf-'; then
		fail "$m: the changelog names a tool of this project: $(changelog "$f" | grep -iE 'hugebuf|ktest|kmails|kernel/probe|regbuf-' | head -n 1)"
		bad=1
	fi
	if grep -qE '[0-9]\.[0-9]+ *- *[0-9]\.[0-9]+|[0-9] -> [0-9]|[0-9]%' "$f" &&
	   ! grep -q 'TCG' "$f"; then
		fail "$m: gives measured figures without saying they are qemu TCG's"
		bad=1
	fi
done
[ $bad = 1 ] || t_ok "no From:, Signed-off-by:, base-commit or project tool; figures marked as qemu TCG's"

# known-ids.txt: "id | release | subject | checked"
known() {	# $1 = 12-char id: its line
	grep -E "^$1 \\|" "$K"
}
bad=0
ids=$(cd "$P" && cat $all | grep -v '^index ' |
	grep -oE '\b[0-9a-f]{12,40}\b' | cut -c1-12 | sort -u)
for id in $ids; do
	line=$(known "$id")
	if [ -z "$line" ]; then
		fail "$id is cited but not in known-ids.txt (add it with its subject and where it was checked)"
		bad=1
		continue
	fi
	case $line in
	*"| withdrawn |"*)
		fail "$id is cited but known-ids.txt lists it as withdrawn: $line"
		bad=1 ;;
	esac
done
# a quoted subject after an id (commit <id> ("..."), Fixes: <id> ("..."))
# must be the one listed; subjects may be folded over two lines
cited=$(cd "$P" && for m in $all; do
	awk '{ printf "%s ", $0 } END { print "" }' "$m"; done |
	grep -oE '\b[0-9a-f]{12}[0-9a-f]{0,28} \("[^"]+"\)' |
	sed -E 's/^([0-9a-f]{12})[0-9a-f]* \("(.*)"\)$/\1|\2/' |
	sed -E 's/ +/ /g' | sort -u)
mismatch=$(echo "$cited" | while IFS='|' read -r id subj; do
	[ -n "$id" ] || continue
	want=$(known "$id" | awk -F' [|] ' '{ print $3 }')
	[ -z "$want" ] || [ "$subj" = "$want" ] ||
		echo "$id cited as \"$subj\", known-ids.txt has \"$want\""
done)
if [ -n "$mismatch" ]; then
	echo "$mismatch" | while read -r l; do echo "FAIL: $l"; done
	fail "cited subjects differ from known-ids.txt (above)"
	bad=1
fi
[ $bad = 1 ] || t_ok "the $(echo "$ids" | wc -w) cited ids are in known-ids.txt, none withdrawn, subjects as listed"

# every listed id carries the full id a public record gives for it
# ("record: <40 hex>"), and that full id begins with the listed one
bad=0
norec=$(grep -vE '^(#|$)' "$K" | while IFS= read -r l; do
	id=${l%% *}
	rec=$(echo "$l" | grep -oE 'record: [0-9a-f]{40}\b' | cut -c9-)
	case $rec in
	"$id"*) ;;
	*) echo "$id" ;;
	esac
done)
if [ -n "$norec" ]; then
	fail "known-ids.txt: no 'record: <full id>' beginning with the id for $(echo "$norec" | xargs)"
	bad=1
fi
[ $bad = 1 ] || t_ok "every id of known-ids.txt has its full id from a public record"

t_done

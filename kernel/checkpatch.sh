# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# kernel/checkpatch.sh: the one checkpatch run of a patch of
# kernel/patches/, sourced by kernel/kbuild.sh (ktest's check on every
# run that builds the series) and kernel/kmails.sh (before it writes the
# mails and Debian's patches).  --strict, with these message types left
# out:
#  - MISSING_SIGN_OFF, unless the sender's sign-off was asked for: the
#    mails carry none, whoever sends them adds theirs;
#  - UNKNOWN_COMMIT_ID: the trees are Debian's tarballs, without history,
#    so no upstream commit id can be looked up;
#  - GIT_COMMIT_ID in kmails' stable-6.1/ mail only: a 6.1.y backport
#    starts with the stable rules' "commit <40 hex> upstream." line, which
#    is not the 'commit <sha> ("title")' reference style checkpatch asks
#    of changelogs (stable-kernel-rules.rst, option 3).
# The commit ids that UNKNOWN_COMMIT_ID cannot look up are checked by
# t/kernel-mails.sh against kernel/patches/known-ids.txt instead.

# checkpatch_mail TREE MAIL [signoff]: its output; status 0 when it found
# nothing (0 errors, 0 warnings, 0 checks)
checkpatch_mail() {
	local tree=$1 mail=$2 ign=UNKNOWN_COMMIT_ID out
	[ "${3:-}" = signoff ] || ign=MISSING_SIGN_OFF,$ign
	case $mail in
	*/stable-6.1/*) ign=$ign,GIT_COMMIT_ID ;;
	esac
	# never a git tree (GIT_DIR to nowhere): kmails' and ktest's unpacked
	# sources then judge a patch alike
	out=$(cd "$tree" && GIT_DIR=/nonexistent/.git ./scripts/checkpatch.pl \
		--strict --ignore "$ign" "$mail" 2>&1) || true
	printf '%s\n' "$out"
	# not "printf | grep -q": under pipefail the printf that grep -q
	# left behind dies of SIGPIPE, and a clean patch reads as a finding
	case $'\n'$out in
	*$'\n''total: 0 errors, 0 warnings, 0 checks'*) return 0 ;;
	esac
	return 1
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/fresh-root.sh: prove the README's two commands on a fresh Debian
# root (root only).  debootstrap a minbase Debian with git from the mirror
# this machine's apt sources use, copy the apt sources and keyrings in
# (not our derived deb-src entry: make deps must derive it itself), git
# clone the repository into it and run, inside a chroot:
#
#   examples/run-main.sh     (skipped with --check-only)
#   make check               (tools/check.sh with --check-only: a base
#                             system has no make until make deps ran)
#   tools/deb-check.sh --build
#                            the Debian packages: dpkg-buildpackage and
#                            lintian (tools/deb-build.sh), apt-get install
#                            ./....deb, the CLI and an example job from the
#                            installed paths, purge, nothing left behind
#
# It is a chroot, not a VM: the kernel, /proc, /sys, the hugepage pools and
# the disks are this machine's.  Prints the closing line "N passed, N
# failed, N skipped" last: the test command's and the package step's added.
#
# Usage: tools/fresh-root.sh [options] [REPO]
#   REPO              git repository to clone, HEAD (default: this tree)
#   --check-only      only the test command (and the package step)
#   --no-deb          without the package step
#   --deb-only        only the package step (after tools/deps.sh)
#   --env VAR=VALUE   pass to the commands (repeatable); HB_*, FUZZ_*,
#                     KTEST_* and HUGEBUF_* of the environment pass too,
#                     e.g. HB_SKIP_KERNEL=1 HB_SKIP_FUZZ=1 HB_SKIP_ASAN=1
#   --suite NAME      Debian suite (default: this machine's, else bookworm)
#   --only-suites L   keep only the apt entries of the suites in the comma
#                     list L (e.g. bookworm: a minimal container without
#                     bookworm-updates and bookworm-security)
#   --no-apt-conf     do not copy this machine's own apt settings (then
#                     apt refuses the mirror's expired sid Release)
#   --root DIR        root directory (default /var/tmp/hugebuf-fresh,
#                     replaced); the base system is cached in DIR.base.tar
#   --rebase          debootstrap again instead of using the cached base
#   --keep            leave the root in place afterwards (unmounted)
#   --shell           open a shell in the root instead of the commands
# Exit status: the test command's (tools/deps.sh's with --deb-only), or
# when that is 0, the package step's.
set -u -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
repo=$top
root=/var/tmp/hugebuf-fresh
suite=
check_only=0
rebase=0
keep=0
shell=0
deb=1
deb_only=0
only_suites=
apt_conf=1
envs=()

die() {
	echo "fresh-root: $*" >&2
	exit 1
}
log() { echo "fresh-root: $*" >&2; }

while [ $# -gt 0 ]; do
	case $1 in
	--check-only) check_only=1 ;;
	--no-deb) deb=0 ;;
	--deb-only) deb_only=1 ;;
	--env) shift; envs+=("${1:?--env needs VAR=VALUE}") ;;
	--env=*) envs+=("${1#--env=}") ;;
	--suite) shift; suite=${1:?} ;;
	--only-suites) shift; only_suites=${1:?} ;;
	--no-apt-conf) apt_conf=0 ;;
	--root) shift; root=${1:?} ;;
	--rebase) rebase=1 ;;
	--keep) keep=1 ;;
	--shell) shell=1 ;;
	-h | --help) sed -n '3,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1 (--help)" ;;
	*) repo=$1 ;;
	esac
	shift
done
for v in $(env | sed -n 's/^\(\(HB\|FUZZ\|KTEST\|HUGEBUF\)_[A-Za-z0-9_]*\)=.*/\1/p'); do
	envs+=("$v=${!v}")
done

[ "$(id -u)" = 0 ] || die "must run as root (debootstrap, mounts, chroot)"
case $root in
/ | /var | /var/tmp | /tmp | "$top" | "$top"/*) die "--root $root: choose a directory of its own" ;;
esac
git -C "$repo" rev-parse --verify -q HEAD >/dev/null ||
	die "$repo is not a git repository with a commit"
[ -n "$suite" ] || suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$suite" ] || suite=bookworm

# ---- the mirror: from this machine's apt sources, never a fixed host ------

. "$top/tools/apt-sources.sh"
# shellcheck disable=SC2046
set -- $( { deb822_awk mirror "$suite"; oneline_awk mirror "$suite"; } | head -n 1)
mirror=${1:-}
keyring=${2:-}
[ -n "$mirror" ] ||
	die "no enabled apt source for suite $suite in $srcdir or $srclist: use --suite"

if ! command -v debootstrap >/dev/null 2>&1; then
	log "installing debootstrap"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends debootstrap >/dev/null ||
		die "apt-get install debootstrap failed"
fi

# ---- mounts: always unmount everything below the root before removing it -

mounts_below() {
	awk -v r="$root/" 'index($2 "/", r) == 1 { print $2 }' /proc/self/mounts |
		sort -r
}

unmount_all() {
	local m
	for m in $(mounts_below); do
		umount "$m" 2>/dev/null || umount -l "$m" ||
			log "cannot unmount $m"
	done
	[ -z "$(mounts_below)" ]
}

remove_root() {
	unmount_all || die "still mounted below $root: not removing it"
	rm -rf --one-file-system "$root"
}

bind() {
	[ -e "$1" ] || return 0
	mkdir -p "$root$1"
	mount --bind "$1" "$root$1" || die "mount --bind $1 failed"
}

# a failed kernel stage keeps its console logs (kernel/ktest.sh's
# run.XXXXXX): copied out before the root goes, to $root.kernel-runs
save_kernel_runs() {
	local d
	for d in "$root"/var/tmp/hugebuf-kernel/run.*; do
		[ -d "$d" ] || continue
		mkdir -p "$root.kernel-runs/${d##*/}" &&
			cp -a "$d"/*.log* "$d"/rc-* "$root.kernel-runs/${d##*/}/" &&
			log "kept the kernel stage's logs: $root.kernel-runs/${d##*/}"
	done 2>/dev/null
}

finish() {
	save_kernel_runs
	unmount_all
	if [ "$keep" = 1 ]; then
		log "root kept in $root"
	else
		remove_root
	fi
}

# ---- the base system, cached --------------------------------------------

base=$root.base.tar
remove_root
[ "$rebase" = 1 ] && rm -f "$base"
mkdir -p "$root"
trap finish EXIT
trap 'exit 130' INT TERM
if [ -f "$base" ]; then
	log "unpacking the cached base system $base"
	tar -C "$root" -xpf "$base" || die "unpacking $base failed"
else
	kopt=()
	[ -n "$keyring" ] && [ -f "$keyring" ] && kopt=(--keyring="$keyring")
	log "debootstrap $suite minbase+git from $mirror (log $root.debootstrap.log)"
	debootstrap --variant=minbase --include=git "${kopt[@]}" \
		"$suite" "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
		{ tail -n 20 "$root.debootstrap.log"; die "debootstrap failed"; }
	rm -rf "$root"/var/cache/apt/archives/*.deb
	tar -C "$root" -cpf "$base.tmp" . && mv "$base.tmp" "$base" ||
		log "could not cache the base system (going on)"
fi

# ---- apt configuration as this machine has it ----------------------------

# --only-suites: drop the suites not in comma list $1 from the root's
# entries (deb822 Suites: fields, one-line entries' suite word); a stanza
# or line left with no suite goes
keep_only_suites() {
	local f
	for f in "$root/etc/apt/sources.list" "$root"/etc/apt/sources.list.d/*; do
		[ -f "$f" ] || continue
		awk -v keep=",$1," '
		function flush() {
			if (n && !drop) for (i = 1; i <= n; i++) print st[i]
			if (n && !drop) print ""
			n = 0; drop = 0
		}
		FILENAME ~ /\.sources$/ {
			if ($0 ~ /^[ \t]*$/) { flush(); next }
			if (tolower($1) == "suites:") {
				out = ""
				for (i = 2; i <= NF; i++)
					if (index(keep, "," $i ","))
						out = out " " $i
				if (out == "") drop = 1
				$0 = "Suites:" out
			}
			st[++n] = $0
			next
		}
		/^[ \t]*deb(-src)?[ \t]/ {
			w = $0; sub(/\[[^]]*\]/, "", w); split(w, a, /[ \t]+/)
			j = (a[1] == "") ? 2 : 1
			if (!index(keep, "," a[j + 2] ",")) next
		}
		{ print }
		END { flush() }' "$f" >"$f.new" && mv "$f.new" "$f"
	done
	log "apt entries kept for suites $1 only"
}

rm -f "$root/etc/apt/sources.list" "$root"/etc/apt/sources.list.d/*
[ -f "$srclist" ] && cp "$srclist" "$root/etc/apt/sources.list"
for f in "$srcdir"/*.sources "$srcdir"/*.list; do
	[ -f "$f" ] || continue
	case $(basename "$f") in hugebuf-deb-src.*) continue ;; esac
	cp "$f" "$root/etc/apt/sources.list.d/"
done
[ -n "$only_suites" ] && keep_only_suites "$only_suites"
for d in /etc/apt/trusted.gpg.d /etc/apt/keyrings; do
	[ -d "$d" ] && mkdir -p "$root$d" && cp -a "$d/." "$root$d/"
done
# keyrings the sources name (Signed-By: / signed-by=) that the root lacks
for k in $(cat "$root/etc/apt/sources.list" "$root"/etc/apt/sources.list.d/* \
	2>/dev/null | grep -oiE '(signed-by[:=] *)/[^] ]+' | sed 's/^[^/]*//'); do
	[ -f "$k" ] && [ ! -f "$root$k" ] && mkdir -p "$root$(dirname "$k")" &&
		cp "$k" "$root$k"
done
# the machine's own apt settings (files no package owns: a proxy, a
# mirror's Check-Valid-Until, ...), as a fresh machine of this kind has them
for f in /etc/apt/apt.conf.d/*; do
	[ -f "$f" ] && [ $apt_conf = 1 ] || continue
	dpkg -S "$f" >/dev/null 2>&1 && continue
	cp "$f" "$root/etc/apt/apt.conf.d/"
done
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

# ---- mounts (this machine's kernel) and the clone ------------------------

# the root is a mount point of its own, as / is on a machine: "ip netns
# exec" (t/fio-clientserver.sh) runs "mount --make-rslave /"
mount --bind "$root" "$root" || die "mount --bind $root on itself failed"
mkdir -p "$root/proc" "$root/sys"
mount -t proc proc "$root/proc" || die "mounting proc failed"
bind /sys
bind /dev
bind /dev/pts
mountpoint -q /dev/shm && bind /dev/shm
mountpoint -q /dev/hugepages && bind /dev/hugepages

mkdir -p "$root/mnt/src"
mount --bind -o ro "$repo" "$root/mnt/src" || die "mount --bind $repo failed"
mount -o remount,bind,ro "$root/mnt/src" 2>/dev/null
head=$(git -C "$repo" rev-parse --short HEAD)
log "git clone $repo ($head) into $root/root/hugebuf"
chroot "$root" git -c safe.directory='*' clone -q /mnt/src /root/hugebuf ||
	die "git clone in the root failed"
umount "$root/mnt/src"

# ---- the README's commands -----------------------------------------------

run() {
	chroot "$root" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		LANG=C.UTF-8 "${envs[@]}" /bin/bash -c "cd /root/hugebuf && $1"
}

if [ "$shell" = 1 ]; then
	run "exec bash -i"
	exit
fi
out=$root.log
: >"$out"
rc=0
[ ${#envs[@]} -gt 0 ] && log "environment: ${envs[*]}"
[ "$deb_only" = 1 ] && [ "$deb" = 0 ] &&
	die "--deb-only and --no-deb leave nothing to run"
if [ "$deb_only" = 1 ]; then
	:
elif [ "$check_only" = 0 ]; then
	log "== examples/run-main.sh"
	run "examples/run-main.sh" 2>&1 | tee -a "$out"
	rc=$?
	log "examples/run-main.sh exited $rc"
	cmd="make check"
else
	# make comes with make deps (build-essential); tools/check.sh is what
	# make check runs
	cmd="tools/check.sh"
	run "command -v make >/dev/null" && cmd="make check"
fi
t=
if [ "$deb_only" = 0 ]; then
	log "== $cmd"
	run "$cmd" 2>&1 | tee -a "$out"
	rc=$?
	t=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
	log "$cmd exited $rc (log $out), commit $head, suite $suite, mirror $mirror"
else
	# a base system has neither the build tools nor the fio source
	log "== tools/deps.sh"
	run "tools/deps.sh" 2>&1 | tee -a "$out"
	rc=$?
	[ "$rc" = 0 ] || t="0 passed, 1 failed, 0 skipped"
fi

# the Debian packages, built, installed, used and purged in the root
if [ "$deb" = 1 ] && { [ "$deb_only" = 0 ] || [ "$rc" = 0 ]; }; then
	dlog=$root.deb.log
	log "== tools/deb-check.sh --build"
	run "tools/deb-check.sh --build" 2>&1 | tee "$dlog"
	drc=$?
	log "tools/deb-check.sh exited $drc (log $dlog)"
	d=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$dlog" | tail -n 1)
	# a step that stopped before its closing line counts as one failure
	[ -n "$d" ] || d="0 passed, 1 failed, 0 skipped"
	[ "$drc" = 0 ] || [ "$rc" != 0 ] || rc=$drc
	echo "package step: $d"
	if [ "$deb_only" = 0 ]; then
		echo "test command: ${t:-no closing line}"
		# a test command without a closing line counts as one failure
		: "${t:=0 passed, 1 failed, 0 skipped}"
	fi
	t=$(printf '%s\n%s\n' "${t:-0 passed, 0 failed, 0 skipped}" "$d" |
		awk '{ p += $1; f += $3; s += $5 }
		END { printf "%d passed, %d failed, %d skipped", p, f, s }')
fi
echo "${t:-no closing line}"
exit $rc

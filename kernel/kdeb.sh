# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# kernel/kdeb.sh: Debian's own kernel images for kernel/ktest.sh, sourced
# by it.  A kernels.tab line "deb:SUITES:GLOB" is the newest package of
# SUITES whose name matches GLOB, fetched from the machine's own mirror:
# each suite's entry is derived from the machine's entry of the same kind
# (a -security suite from "<codename>-security", every other suite from
# "<codename>": same URIs, components and keyring; tools/apt-sources.sh)
# into one private apt state, $KTEST_CACHE/apt-kernels, so /etc/apt and
# the system's lists stay as they are.  apt-get reads the machine's
# /etc/apt/apt.conf.d as it is (this machine's Check-Valid-Until "false"
# lets it use sid's expired Release, signature still checked), checks each
# InRelease with the keyring, the Packages index against it and the .deb
# against the index's SHA-256.  What a guest needs is kept, decompressed,
# in $KTEST_CACHE/deb/PACKAGE_VERSION/ (vmlinuz, config, release,
# modules/; PACKAGE_VERSION_nvme-only/ has vmlinuz and release only);
# delete that directory to fetch it again.
# Needs from ktest.sh: TOP, KTEST_CACHE, log, die; kbuild.sh's kernel_field.

APT_KERNELS=$KTEST_CACHE/apt-kernels
DEBS=$KTEST_CACHE/deb
# the modules a guest loads when the image has them as modules (not built
# in): the virtio disk (vda), the NVMe namespace and its ext4
GUEST_MODULES="virtio_pci virtio_blk nvme ext4"
declare -A DEB_IMG DEB_CONFIG DEB_MODS DEB_PKGVER DEB_NVMEONLY

# apt's first E: or W: line in log $1 that gives a reason
apt_reason() {
	grep -E '^(E|W):' "$1" | grep -v 'Download is performed unsandboxed' |
		head -n 1
}

# The private apt state of every suite kernels.tab names, its indexes
# updated once per run (under $KTEST_CACHE/apt.lock: a build ahead may
# fetch beside this run).  A suite whose index cannot be had is left out
# of it; deb_pick() names it.
deb_index() {
	local codename s pairs="" suites
	[ -n "${DEB_INDEXED:-}" ] && return "$DEB_INDEXED"
	DEB_INDEXED=1
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] ||
		{ DEB_NOINDEX="no VERSION_CODENAME in /etc/os-release"; return 1; }
	suites=$(awk '!/^#/ && $2 ~ /^deb:/ { split($2, a, ":")
		n = split(a[2], s, ","); for (i = 1; i <= n; i++) print s[i] }' \
		"$KERNELS_TAB" | sort -u)
	for s in $suites; do
		case $s in
		*-security) pairs="$pairs $codename-security $s" ;;
		*) pairs="$pairs $codename $s" ;;
		esac
	done
	# shellcheck source=tools/apt-sources.sh
	. "$TOP/tools/apt-sources.sh"
	# shellcheck disable=SC2086
	apt_state_binaries "$APT_KERNELS" $pairs || {
		DEB_NOINDEX="no enabled apt source of $codename to derive $(echo $suites) from"
		return 1
	}
	log "apt indexes of" $suites "(private state $APT_KERNELS)"
	# apt-get update says W: for an index it cannot fetch and E: for a
	# suite the mirror lacks; the other suites' indexes are in either way
	( flock -w 900 8 && apt_state_run "$APT_KERNELS" \
		-o Acquire::Languages=none update ) 8>"$KTEST_CACHE/apt.lock" \
		>"$APT_KERNELS/update.log" 2>&1 ||
		log "apt-get update exited non-zero: $(apt_reason "$APT_KERNELS/update.log")"
	DEB_INDEXED=0
}

# Why suite $1 has no index: no entry of the machine's to derive it from
# (a root whose sources hold only bookworm has no security archive URI),
# or apt's own line about that suite, or its first complaint
deb_suite_why() {
	local why
	grep -qs -E "[ /]$1( |/|\$)" "$APT_KERNELS"/sources.list.d/bin.* ||
		{ echo "$1: no entry of this machine's apt sources to take its URI from (a -security suite needs the machine's own -security entry)"; return; }
	why=$(grep -E '^(E|W):' "$APT_KERNELS/update.log" | grep -F "/$1/" | head -n 1)
	echo "$1: ${why:-$(apt_reason "$APT_KERNELS/update.log")}"
}

# the index of suite $1 in the private state, if apt has it
deb_list() {
	local f
	for f in "$APT_KERNELS"/lists/*_dists_"$1"_main_binary-amd64_Packages*; do
		[ -f "$f" ] && echo "$f" && return 0
	done
	return 1
}

# The newest package of kernel $1's suites whose name matches its glob:
# sets DEB_PKG and DEB_VER, and DEB_ALSO (the companions linux-binary-S
# needs: linux-modules-S and linux-base-S), or DEB_WHY.  A source ending
# in ":nvme-only" (DEB_BARE=1) takes linux-binary-S alone, for a series
# whose companions the mirror does not serve: no modules and no config,
# so the guest's disks are NVMe (built in on Debian's cloud configs:
# kboot.sh, main_args) and what needs the config is a counted skip.
deb_pick() {
	local src suites pat s f lists="" missing="" p v pkgs
	src=$(kernel_field "$1" source)
	suites=${src#deb:}
	pat=${suites#*:}
	suites=${suites%%:*}
	DEB_PKG= DEB_VER= DEB_ALSO= DEB_WHY= DEB_BARE=
	case $pat in
	*:nvme-only) pat=${pat%:nvme-only} DEB_BARE=1 ;;
	esac
	deb_index || { DEB_WHY="$pat: $DEB_NOINDEX"; return 1; }
	for s in ${suites//,/ }; do
		if f=$(deb_list "$s"); then
			lists="$lists $f"
		else
			missing="$missing $s"
		fi
	done
	for s in $missing; do log "$1: no index of $(deb_suite_why "$s")"; done
	pkgs=$APT_KERNELS/packages-$1
	for f in $lists; do /usr/lib/apt/apt-helper cat-file "$f"; done |
		awk '/^Package: linux-(image|binary|modules|base)-/ { p = $2 }
		/^Package: / && $2 !~ /^linux-/ { p = "" }
		/^Version: / && p != "" { print p, $2 }' >"$pkgs"
	while read -r p v; do
		# shellcheck disable=SC2053
		[[ $p == $pat ]] || continue
		if [ -z "$DEB_VER" ] || dpkg --compare-versions "$v" gt "$DEB_VER"; then
			DEB_PKG=$p DEB_VER=$v
		fi
	done <"$pkgs"
	if [ -z "$DEB_PKG" ]; then
		if [ -n "$missing" ]; then
			DEB_WHY="$pat: no index of $(for s in $missing; do deb_suite_why "$s"; done | paste -sd';')"
		else
			DEB_WHY="$pat: not served in ${suites//,/ or }"
		fi
		return 1
	fi
	case $DEB_BARE:$DEB_PKG in
	1:*)
		for p in "linux-modules-${DEB_PKG#linux-binary-}" \
			 "linux-base-${DEB_PKG#linux-binary-}"; do
			grep -qxF "$p $DEB_VER" "$pkgs" &&
				log "$1: $p $DEB_VER is served now: drop :nvme-only from kernels.tab to boot a normal guest"
		done
		return 0 ;;
	*:linux-binary-*)
		for p in "linux-modules-${DEB_PKG#linux-binary-}" \
			 "linux-base-${DEB_PKG#linux-binary-}"; do
			grep -qxF "$p $DEB_VER" "$pkgs" || {
				DEB_WHY="$p $DEB_VER (with $DEB_PKG: the modules or the config) is not served in ${suites//,/ or }"
				return 1
			}
			DEB_ALSO="$DEB_ALSO $p=$DEB_VER"
		done ;;
	esac
}

# the modules of GUEST_MODULES that unpacked image $1 (its modules tree
# $2) has as modules, with what each depends on ahead of it (the order of
# modules.dep), decompressed into $3/ (busybox insmod does not
# decompress) and listed in $3/order
deb_modules() {	# $1 = root, $2 = modules dir, $3 = destination
	local root=$1 mdir=$2 out=$3 m
	declare -A path seen
	local f n
	mkdir -p "$out"
	: >"$out/order"
	while read -r f; do
		n=${f##*/}
		n=${n%%.ko*}
		path[${n//-/_}]=$f
	done < <(find "$mdir" -name '*.ko' -o -name '*.ko.xz' -o -name '*.ko.zst' -o -name '*.ko.gz')
	add_module() {
		local m=$1 f dst dep
		[ -n "${seen[$m]:-}" ] && return 0
		seen[$m]=1
		f=${path[$m]:-}
		if [ -z "$f" ]; then
			grep -q "/${m//_/[-_]}\.ko$" "$mdir/modules.builtin" 2>/dev/null ||
				log "warning: $m is neither a module nor built in"
			return 0
		fi
		dst=$out/$m.ko
		case $f in
		*.xz) xz -dc "$f" >"$dst" ;;
		*.zst) zstd -q -dc "$f" >"$dst" ;;
		*.gz) gzip -dc "$f" >"$dst" ;;
		*) cp "$f" "$dst" ;;
		esac || die "cannot decompress $f"
		for dep in $(tr '\0' '\n' <"$dst" | sed -n 's/^depends=//p' | head -1 | tr , ' '); do
			add_module "${dep//-/_}"
		done
		echo "$m" >>"$out/order"
	}
	for m in $GUEST_MODULES; do add_module "$m"; done
}

# Download kernel $1's packages (deb_pick's) into $2 and keep what a guest
# needs: vmlinuz, config, release and modules/ (deb_modules)
deb_unpack() {	# $1 = kernel, $2 = cache dir
	local k=$1 dir=$2 p rel mdir deb
	rm -rf "$dir"
	mkdir -p "$dir/dl"
	log "fetching $DEB_PKG $DEB_VER$DEB_ALSO (apt-get download)"
	# shellcheck disable=SC2086
	if ! (cd "$dir/dl" && apt_state_run "$APT_KERNELS" download \
		"$DEB_PKG=$DEB_VER" $DEB_ALSO) >"$dir/fetch.log" 2>&1; then
		DEB_WHY="$DEB_PKG $DEB_VER cannot be downloaded: $(apt_reason "$dir/fetch.log") (see $dir/fetch.log)"
		return 1
	fi
	for deb in "$dir"/dl/*.deb; do
		dpkg -x "$deb" "$dir/root" ||
			{ DEB_WHY="$deb does not unpack with dpkg -x"; return 1; }
	done
	# /boot/vmlinuz-V (linux-image-*) or /usr/lib/modules/V/vmlinuz
	for p in "$dir"/root/boot/vmlinuz-* "$dir"/root/usr/lib/modules/*/vmlinuz; do
		[ -f "$p" ] && break
	done
	[ -f "$p" ] || { DEB_WHY="$DEB_PKG $DEB_VER holds no vmlinuz"; return 1; }
	case $p in
	*/boot/vmlinuz-*) rel=${p##*/vmlinuz-} ;;
	*) rel=${p%/vmlinuz}; rel=${rel##*/} ;;
	esac
	mv "$p" "$dir/vmlinuz"
	for p in "$dir/root/boot/config-$rel" "$dir/root/usr/lib/modules/$rel/config"; do
		[ -f "$p" ] && cp "$p" "$dir/config"
	done
	if [ -n "$DEB_BARE" ]; then
		rm -rf "$dir/root" "$dir/dl"
		echo "$rel" >"$dir/release"
		log "$k: $DEB_PKG $DEB_VER alone, release $rel: NVMe-only guest (no modules, no config)"
		return 0
	fi
	[ -f "$dir/config" ] || { DEB_WHY="$DEB_PKG $DEB_VER holds no config of $rel"; return 1; }
	for mdir in "$dir/root/lib/modules/$rel" "$dir/root/usr/lib/modules/$rel"; do
		[ -d "$mdir" ] && break
	done
	deb_modules "$dir/root" "$mdir" "$dir/modules"
	rm -rf "$dir/root" "$dir/dl"
	echo "$rel" >"$dir/release"
	log "$k: $DEB_PKG $DEB_VER, release $rel, modules: $(echo $(cat "$dir/modules/order"))"
}

# Kernel $1's image in the cache, fetched and unpacked when it is not
# (under $KTEST_CACHE/apt.lock: a build ahead may fetch the same one):
# sets DEB_IMG, DEB_CONFIG, DEB_MODS and DEB_PKGVER for it; 1 with
# DEB_WHY when it cannot be had
deb_ready() {
	local k=$1 dir rc=0
	[ -n "${DEB_IMG[$k]:-}" ] && return 0
	deb_pick "$k" || return 1
	dir=$DEBS/${DEB_PKG}_$DEB_VER${DEB_BARE:+_nvme-only}
	if ! [ -s "$dir/release" ]; then
		exec 8>"$KTEST_CACHE/apt.lock"
		flock -w 900 8 ||
			{ DEB_WHY="$KTEST_CACHE/apt.lock held for 15 minutes"; return 1; }
		[ -s "$dir/release" ] || deb_unpack "$k" "$dir" || rc=1
		flock -u 8
		[ $rc = 0 ] || return 1
	fi
	DEB_IMG[$k]=$dir/vmlinuz
	DEB_PKGVER[$k]="$DEB_PKG $DEB_VER"
	if [ -n "$DEB_BARE" ]; then
		DEB_NVMEONLY[$k]="linux-base-${DEB_PKG#linux-binary-} $DEB_VER"
		DEB_PKGVER[$k]="$DEB_PKG $DEB_VER (alone: NVMe-only)"
		return 0
	fi
	DEB_CONFIG[$k]=$dir/config
	DEB_MODS[$k]=$dir/modules
}

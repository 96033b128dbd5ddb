# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# kernel/kreport.sh: the per-guest tables of kernel/ktest.sh from the
# console logs (also for ktest.sh --profile RUNDIR), sourced by it: the
# NVMe profile of the series (profile-diff.awk), bio-profile's plain
# O_DIRECT counts (bioprof.awk), fault-plain's case summaries,
# sendzc-probe's SEND_ZC charges, and the per-kernel table of
# kernel/README.md.  Which tables print, in which order: kernel/probes.tab's
# report column (print_probes()).
# Needs from ktest.sh: KDIR, KTEST_KERNELS, R, probe_rows; kdeb.sh's
# DEB_PKGVER.

# ---- every probe's table -----------------------------------------------------

# each report function of kernel/probes.tab once, in the table's order,
# over the guests its probe ran in; a "lines" report prints the probe's own
# lines per kernel
print_probes() {	# dir, kernels of the DMA-direct guests, of the IOMMU guests
	local dir=$1 name guest tag report prog ks done=" "
	while read -r name guest _ _ _ tag _ _ report prog _ <&3; do
		ks=$2
		[ "$guest" = iommu ] && ks=$3
		case $report in
		-) continue ;;
		lines)
			# shellcheck disable=SC2086
			print_lines "$dir" "$name" "$guest" "$tag" "$prog" $ks
			continue ;;
		esac
		case $done in *" $report "*) continue ;; esac
		done="$done$report "
		# shellcheck disable=SC2086
		"$report" "$dir" $ks
	done 3< <(probe_rows)
}

# a probe's own lines (those that start with its tag), per kernel
print_lines() {	# dir, probe name, guest, tag, program, kernels...
	local dir=$1 name=$2 guest=$3 tag=$4 prog=$5 k f
	shift 5
	printf '
%s (kernel/probe/%s), its %s lines:
' "$name" "$prog" "$tag"
	for k in "$@"; do
		f=$dir/console-$k.log.txt
		[ "$guest" = iommu ] && f=$dir/console-$k-iommu.log.txt
		[ -f "$f" ] || continue
		grep -a "^$tag " "$f" | sed "s/^/  $k: /"
	done
	printf '
'
}

# ---- the series' profile on NVMe ---------------------------------------------

# one table in the shape of the series' perf diff: per 8 MiB I/O, column A
# (before) and column B (after), from nvme-profile's NVPROF lines
profile_diff() {	# op, fileA, backingA, fileB, backingB
	awk -v op="$1" -v fa="$2" -v ba="$3" -v fb="$4" -v bb="$5" \
		-f "$KDIR/profile-diff.awk" "$2" "$4"
}

# per guest kernel: 4 KiB pages (before) against 2 MiB hugepages (after);
# then the series itself: control against patched 6.1, both 2 MiB
print_profile() {	# dir with console-<kernel>.log.txt, kernels...
	local dir=$1 k op f
	shift
	printf '\nNVMe profile per 8 MiB O_DIRECT I/O on nvme0n1 (kernel/probe/nvme-profile.c).\n'
	printf 'Calls (kprobe events) and requests are exact. The wall time per I/O is\n'
	printf 'seen from user space under TCG: compare ratios only.\n'
	for k in "$@"; do
		f=$dir/console-$k.log.txt
		[ -f "$f" ] || continue
		for op in read write; do
			printf '\n%s, %s_FIXED: before = 4 KiB pages, after = 2 MiB hugepages\n' \
				"$k ($(grep -a -o '@@KTEST BEGIN [^ ]*' "$f" | head -1 | cut -d' ' -f3))" \
				"$(echo $op | tr a-z A-Z)"
			profile_diff $op "$f" 4k "$f" 2M
		done
	done
	if [ -f "$dir/console-control.log.txt" ] && [ -f "$dir/console-patched.log.txt" ]; then
		for op in read write; do
			printf '\nthe series, %s_FIXED from 2 MiB hugepages: before = control 6.1, after = patched 6.1\n' \
				"$(echo $op | tr a-z A-Z)"
			profile_diff $op "$dir/console-control.log.txt" 2M \
				"$dir/console-patched.log.txt" 2M
		done
	fi
	printf '\n'
}

# per guest: kernel/probe/bio-profile's plain O_DIRECT counts (BIOPROF)
print_bioprof() {	# dir with console-<kernel>.log.txt, kernels...
	local dir=$1 k f
	shift
	printf '\nPlain O_DIRECT per I/O on nvme0n1 (kernel/probe/bio-profile.c):\n'
	printf 'calls are exact; wall_us is microseconds per I/O under TCG (a ratio only).\n'
	for k in "$@"; do
		f=$dir/console-$k.log.txt
		[ -f "$f" ] && awk -v k="$k" -f "$KDIR/bioprof.awk" "$f"
	done
	printf '\n'
}

# kernel/probe/nvme-values.sh's cases (NVVAL lines), value x kernel: the
# outcome, NVMe commands per I/O and their opcodes of fio's own engine and
# of hugebuf's, the region's bytes after each (md5 prefix, or the PI read
# back by fio's engine), and the case's verdict
print_nvvalues() {	# dir with console-<kernel>.log.txt, kernels...
	local dir=$1 k f
	shift
	printf '\nfio 3.41 values on NVMe (kernel/probe/nvme-values.sh): per case and\n'
	printf 'kernel, fio'"'"'s own engine against hugebuf'"'"'s: outcome / NVMe I/O commands\n'
	printf 'per I/O / opcodes:count (the nvme_setup_cmd tracepoint, qid != 0);\n'
	printf 'data = the region after each (md5) or fio'"'"'s PI read-back of ours.\n'
	printf '%-14s %-8s %-34s %-34s %-27s %s\n' case kernel "fio's engine" hugebuf \
		data result
	for k in "$@"; do
		f=$dir/console-$k.log.txt
		[ -f "$f" ] || continue
		grep -a '^NVVAL case=[^ ]* ns=' "$f" | awk -v k="$k" '{
			delete v
			for (i = 2; i <= NF; i++) {
				j = index($i, "=")
				if (j && !seen) v[substr($i, 1, j - 1)] = substr($i, j + 1)
				if (substr($i, 1, 4) == "why=" || substr($i, 1, 5) == "skip=") seen = 1
			}
			seen = 0
			r = v["result"]
			# commands compared per byte moved (nvme-values.sh)
			if (v["cmds"] == "per-byte")
				r = r "/per-byte"
			# outcomes that differ as the kernel model says
			if (v["expect"] == "model")
				r = r "/as-modelled"
			if (r == "skip" && v["fio"] == "") {
				s = $0; sub(/.*skip=/, "", s)
				printf "%-14s %-8s skip: %s\n", v["case"], k, s
				next
			}
			printf "%-14s %-8s %-34s %-34s %-27s %s\n", v["case"], k,
				v["fio"], v["hugebuf"], v["data"], r
		}'
	done
	printf '\n'
}

# per guest: kernel/probe/fault-plain's case summaries (FAULTPLAIN), every
# allocation of one plain O_DIRECT I/O failing in turn
print_faultplain() {	# dir with console-<kernel>.log.txt, kernels...
	local dir=$1 k f
	shift
	printf '\nPlain O_DIRECT, its N-th allocation failing, N = 1, 2, ...\n'
	printf '(kernel/probe/fault-plain.c): attempts = I/Os tried; complete = full\n'
	printf 'I/Os; leaks = attempts that left a pin, a hugepage or a 4 KiB/THP page\n'
	printf 'held; bad = wrong data read back.\n'
	for k in "$@"; do
		f=$dir/console-$k.log.txt
		[ -f "$f" ] || continue
		grep -a '^FAULTPLAIN ' "$f" | awk -v k="$k" '
		/^FAULTPLAIN summary / {
			for (i = 3; i <= NF; i++) { split($i, a, "="); v[a[1]] = a[2] }
			printf "  %-10s %-5s %-10s %8s  attempts=%s complete=%s enomem=%s eagain=%s eio=%s other=%s short=%s leaks=%s bad=%s %s\n",
				k, v["op"], v["backing"], v["len"], v["attempts"],
				v["complete"], v["enomem"], v["eagain"], v["eio"],
				v["other"], v["short"], v["leak_attempts"],
				v["bad_data"], v["result"]
			next }
		/^FAULTPLAIN control / {
			for (i = 3; i <= NF; i++) { split($i, a, "="); v[a[1]] = a[2] }
			printf "  %-10s leak check, vmspliced %-10s held while spliced=%s, after close=%s %s\n",
				k, v["backing"], v["held_while_spliced"],
				v["held_after_close"], v["result"]
			next }
		/ skip=| error=/ { printf "  %-10s %s\n", k, $0 }'
	done
	printf '\n'
}

# regcost-probe -s's scale lines: one 1 GiB registration per backing and
# guest, with the model's scan beside the time, and patched's time as a
# fraction of control's (the series' io_uring 5/5; TCG: ratios only)
print_regscale() {	# dir with console-<kernel>.log.txt, kernels...
	local dir=$1 k f
	shift
	printf '
One registration of 1 GiB in one call (kernel/probe/regcost-probe.c -s):
'
	printf 'heads = compound heads seen; reads = headpage_already_acct() entries
'
	printf '(up to 7.1), lookups = per-ring references (7.2, io_uring 5/5); time under
'
	printf 'TCG, once: compare ratios only.
'
	for k in "$@"; do
		f=$dir/console-$k.log.txt
		[ -f "$f" ] || continue
		grep -a '^REGCOST scale backing=' "$f" | sed "s/^/$k /"
	done | awk '
	{
		k = $1
		for (i = 4; i <= NF; i++) { split($i, a, "="); v[a[1]] = a[2] }
		b = v["backing"]
		if (v["size"] == "") {
			sub(/^[^ ]+ REGCOST scale backing=[^ ]+ /, "")
			printf "  %-10s %-4s %s\n", k, b, $0
			delete v
			next
		}
		printf "  %-10s %-4s heads=%-6s reads=%-11s lookups=%-6s register=%9.1f ms unregister=%7.1f ms VmPin %s kB (model %s) %s\n",
			k, b, v["heads"], v["scan_reads"], v["ring_lookups"],
			v["register_us"] / 1000, v["unregister_us"] / 1000,
			v["vmpin_kb"], v["predicted_kb"], $NF
		t[k, b] = v["register_us"]
		delete v
	}
	END {
		split("thp shmem", bs, " ")
		for (i = 1; i <= 2; i++)
			if (t["control", bs[i]] > 0 && t["patched", bs[i]] > 0)
				printf "  patched/control, %s: %.3f of the time\n",
					bs[i], t["patched", bs[i]] / t["control", bs[i]]
	}'
	printf '\n'
}

# sendzc-probe's cases: 8 MiB of SEND_ZC from one registered buffer over
# loopback TCP per guest, what sk_wmem_queued was charged for the bytes in
# flight (io_sg_from_iter(): PAGE_ALIGN(bv_len + bv_offset) per frag)
print_sendzc() {	# dir with console-<kernel>.log.txt, kernels...
	local dir=$1 k f
	shift
	printf '\nSEND_ZC of 8 MiB from a registered buffer over loopback TCP\n'
	printf '(kernel/probe/sendzc-probe.c): wmem = peak sk_wmem_queued; ratio =\n'
	printf 'bytes in flight (SIOCOUTQ) per byte of sk_wmem_queued over the samples\n'
	printf 'with bytes in flight, every case at the send buffer'"'"'s limit; 1 when each\n'
	printf 'frag is charged its bytes; rx = the receiver'"'"'s ratio\n'
	printf '(SIOCINQ per sk_rmem_alloc); short = short sends; waits =\n'
	printf 'sk_stream_wait_memory() calls; stall = longest gap between receives;\n'
	printf 'time under TCG, once: compare ratios only.\n'
	printf '  %-8s %-8s %8s %9s %7s %7s %9s %6s %6s %8s %8s %5s %4s\n' \
		kernel case bytes wmem ratio rx rmem short waits stall_ms \
		total_ms prune data
	for k in "$@"; do
		f=$dir/console-$k.log.txt
		[ -f "$f" ] || continue
		grep -a '^SENDZC case=.* bytes=' "$f" | sed "s/^/$k /"
	done | awk '
	{
		k = $1
		for (i = 3; i <= NF; i++) { split($i, a, "="); v[a[1]] = a[2] }
		if (v["bytes"] == "") {
			sub(/^[^ ]+ SENDZC /, "")
			printf "  %-8s %s\n", k, $0
			delete v
			next
		}
		printf "  %-8s %-8s %8s %9s %7s %7s %9s %6s %6s %8s %8s %5s %4s\n",
			k, v["case"], v["bytes"], v["wmem_peak"], v["ratio"],
			v["rx_ratio"], v["rmem_peak"], v["short"],
			v["memwaits"], v["stall_ms"], v["total_ms"], v["prune"],
			v["data"]
		delete v
	}'
	printf '\nThe charge against lib'"'"'s model (hb_model_sendzc_overcharge(): over-charged\n'
	printf 'where a coalesced buffer meets a kernel that charges a frag from its\n'
	printf 'bvec'"'"'s first page; hb_sendzc_ratio_matches() against the 4 KiB case):\n'
	for k in "$@"; do
		f=$dir/console-$k.log.txt
		[ -f "$f" ] || continue
		grep -a '^SENDZC charge ' "$f" | sed "s/^SENDZC charge /  $k /"
	done
	printf '\n'
}

# One Markdown row per guest, all measured in that guest: hugebuf check's
# bvecs (the model whose requests and kernel memory the measurement
# matched, so "?" when it matched none), regbuf-probe's requests per 8 MiB
# READ_FIXED and kernel memory per 512 MiB registration, and the verdict
print_kernels_md() {
	local k b
	printf '\nKernels (uname -r in the guest; Debian package and version, or built here)\n'
	for k in $KTEST_KERNELS; do
		printf '  %-10s %-32s %s\n' "$k" "${R[$k,release]:-n/a}" \
			"${DEB_PKGVER[$k]:-built: $(kernel_field "$k" source)}"
	done
	printf '\n| kernel | uname -r | package | bvecs / 8 MiB hugetlb buffer | requests / 8 MiB, 2M / 4K | kernel kB / 512 MiB | hugebuf check: coalesced, matches model |\n'
	printf '|---|---|---|---:|---:|---:|---|\n'
	for k in $KTEST_KERNELS; do
		b=${R[$k,nbvec]:-n/a}
		[ "${R[$k,match]:-}" = true ] || b="? (model ${b} not matched)"
		printf '| %s | `%s` | %s | %s | %s / %s | %s | %s |\n' "$k" \
			"${R[$k,release]:-n/a}" \
			"${DEB_PKGVER[$k]:-built here}" "$b" "${R[$k,reqs]:-n/a}" \
			"${R[$k,reqs4k]:-n/a}" "${R[$k,kmem]:-n/a}" \
			"${R[$k,coal]:-n/a}, ${R[$k,match]:-n/a}"
	done
	printf '\n'
}

# ---- a kernel report's context -----------------------------------------------

# After the BUG/WARNING lines of a guest: where the first report stopped,
# its RIP and the top of its call trace (a soft lockup's stuck function),
# so that a failed run is read from ktest's output alone -- tools/
# fresh-root.sh's chroot, and with it the console log, is gone after it.
bad_trace() {	# console log
	BRE="^$BAD_RE" awk '
	BEGIN { re = ENVIRON["BRE"] }
	!on && $0 ~ re { on = 1; next }
	on && (/ RIP: / || / \? / || /\+0x[0-9a-f]+\/0x[0-9a-f]+/) {
		sub(/^\[ *[0-9.]+\] */, "")
		print "  trace: " $0
		if (++n == 12) exit
	}
	on && n && $0 ~ re { exit }' "$1"
}

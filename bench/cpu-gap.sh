#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/cpu-gap.sh: where the CPU of "hugebuf 4k fixed" and fio's
# "io_uring malloc fixed" goes at 8M and 32M randread (issue 44), in
# counts: kernel tracepoint hits per I/O (perf stat, counted in the fio
# process's threads, and system-wide for the block layer), and user-space
# instructions per I/O (callgrind).  Each figure is the difference of two
# runs of N1 and N2 I/Os divided by N2 - N1, so start-up (allocation,
# registration, page faults) drops out.  Then, for a job of each kind
# running 4 s, its buffers through lib's segment model (seg-profile -m):
# the share of adjacent pages and the scatterlist entries and virtio
# descriptors per request they give on this disk.  A third configuration,
# "nodefer", is hugebuf's with defer_taskrun=0 (a plain ring): the
# flags each ring was set up with are printed (strace), and the CPU per
# GiB of all three is timed, interleaved in rounds, with bench.py's own
# timer (bench/gaptime.py).  (perf's task-clock of the N1 and N2 runs
# differs by less than their start-up varies: no CPU figure from it.)
#
#   bench/cpu-gap.sh [--no-callgrind]
#
# Environment: FIO (fio), HUGEBUF_ENGINE (engines/hugebuf.so),
# HUGEBUF_GAP_FILE (/var/tmp/hugebuf-instr.dat, a file of 1 GiB or more
# on the disk measured), HUGEBUF_GAP_IODEPTH (16), HUGEBUF_GAP_CONFIGS
# (the configurations: "hugebuf fio nodefer"), HUGEBUF_GAP_ROUNDS (the
# timed rounds: 5; 0 leaves them out), HUGEBUF_GAP_RUNTIME (seconds per
# timed run, a comma list: 2), HUGEBUF_GAP_EVENTS (1: the timed runs
# also count what lands on each fio thread, bench/threadevents.py; a
# path: and keep each run's counts there as JSON lines).  Root (perf
# counts kernel tracepoints); run on a quiet machine: it reads the disk,
# counts its requests and times CPU.
set -u -o pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
FIO=${FIO:-fio}
ENGINE=${HUGEBUF_ENGINE:-$TOP/engines/hugebuf.so}
FILE=${HUGEBUF_GAP_FILE:-/var/tmp/hugebuf-instr.dat}
DEPTH=${HUGEBUF_GAP_IODEPTH:-16}
CONFIGS=${HUGEBUF_GAP_CONFIGS:-hugebuf fio nodefer}
ROUNDS=${HUGEBUF_GAP_ROUNDS:-5}
RUNTIME=${HUGEBUF_GAP_RUNTIME:-2}
EVENTS=${HUGEBUF_GAP_EVENTS:-}
CALLGRIND=1
SEGPROF=$TOP/kernel/static/seg-profile
[ "${1:-}" = --no-callgrind ] && CALLGRIND=0

die() { echo "cpu-gap: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root: perf counts kernel tracepoints"
command -v perf >/dev/null || die "no perf: apt-get install linux-perf"
[ -f "$ENGINE" ] || die "no $ENGINE: run ./configure && make"
[ -f "$FILE" ] || die "no $FILE: make bench-instr writes it, or set HUGEBUF_GAP_FILE"

# in the fio process's threads (perf stat follows them)
TASK_EVENTS="task-clock,context-switches,page-faults,\
syscalls:sys_enter_io_uring_enter,io_uring:io_uring_submit_req,\
io_uring:io_uring_queue_async_work,io_uring:io_uring_task_add,\
io_uring:io_uring_task_work_run,io_uring:io_uring_local_work_run,\
io_uring:io_uring_cqring_wait,iomap:iomap_dio_rw_begin,\
ext4:ext4_ext_map_blocks_enter,block:block_bio_queue,block:block_split,\
block:block_getrq,block:block_plug,block:block_unplug,\
block:block_rq_insert,block:block_rq_issue,block:block_rq_requeue,\
irq:irq_handler_entry,irq:softirq_entry,sched:sched_switch,\
sched:sched_wakeup,ipi:ipi_send_cpu,kmem:kmalloc,kmem:kmem_cache_alloc,\
kmem:mm_page_alloc,workqueue:workqueue_queue_work"
# everywhere (kblockd re-runs a stopped queue, completions come in
# interrupts): other activity on the machine adds to these
SYS_EVENTS="block:block_rq_issue,block:block_rq_requeue,\
block:block_rq_complete,workqueue:workqueue_queue_work,\
irq:irq_handler_entry"

fio_args() {	# config bs nios
	local eng
	case $1 in
	hugebuf) eng=(--ioengine=external:"$ENGINE" --backing=4k --fixedbufs=1
		--registerfiles --report=off) ;;
	nodefer) eng=(--ioengine=external:"$ENGINE" --backing=4k
		--fixedbufs=1 --registerfiles --report=off
		--defer_taskrun=0) ;;
	fio) eng=(--ioengine=io_uring --fixedbufs=1 --registerfiles=1
		--mem=malloc) ;;
	*) die "unknown configuration $1: use hugebuf, fio or nodefer" ;;
	esac
	echo --name=gap --filename="$FILE" --size=1g --io_size=1t --direct=1 \
		--thread --randrepeat=0 --norandommap --rw=randread --bs="$2" \
		--iodepth="$DEPTH" --number_ios="$3" --output=/dev/null \
		"${eng[@]}"
}

# perf stat's CSV of one run: "count,,event,..." -> "event count"
counts() {	# scope(task|sys) config bs nios
	local out
	out=$(mktemp)
	# shellcheck disable=SC2046
	if [ "$1" = task ]; then
		perf stat -x, -o "$out" -e "$TASK_EVENTS" -- \
			"$FIO" $(fio_args "$2" "$3" "$4") >/dev/null 2>&1
	else
		perf stat -a -x, -o "$out" -e "$SYS_EVENTS" -- \
			"$FIO" $(fio_args "$2" "$3" "$4") >/dev/null 2>&1
	fi || { rm -f "$out"; die "fio under perf failed: $2 $3 $4"; }
	awk -F, '$1 ~ /^[0-9.]+$/ { print $3, $1 }' "$out"
	rm -f "$out"
}

# per-I/O figures: (count at N2 - count at N1) / (N2 - N1)
per_io() {	# scope config bs n1 n2
	join <(counts "$1" "$2" "$3" "$4" | sort) \
		<(counts "$1" "$2" "$3" "$5" | sort) |
		awk -v d=$(($5 - $4)) '{ printf "%s %.2f\n", $1, ($3 - $2) / d }'
}

# the buffers of a running job through lib's segment model
# (kernel/probe/seg-profile -m): contiguity, entries and descriptors
contiguity() {	# config bs
	local pid disk
	[ -x "$SEGPROF" ] || { echo "# no $SEGPROF: make static"; return; }
	disk=$(df --output=source "$FILE" | tail -1)
	disk=/dev/$(lsblk -no pkname "$disk" 2>/dev/null || basename "$disk")
	[ "$disk" = /dev/ ] && disk=$(df --output=source "$FILE" | tail -1)
	# shellcheck disable=SC2046
	"$FIO" $(fio_args "$1" "$2" 100000) --time_based --runtime=4s &
	pid=$!
	sleep 2
	echo "## $2 $1: $("$SEGPROF" -m "$pid" -b $((${2%m} << 20)) -d "$disk")"
	wait "$pid"
}

# the io_uring_setup flags of a configuration's rings of at least
# $DEPTH entries (lib's feature probes make smaller ones)
ring_flags() {	# config
	local out
	command -v strace >/dev/null || { echo "no strace"; return; }
	out=$(mktemp)
	# shellcheck disable=SC2046
	strace -f -qq -e trace=io_uring_setup -o "$out" \
		"$FIO" $(fio_args "$1" 8m 1) >/dev/null 2>&1
	awk -v d="$DEPTH" 'match($0, /io_uring_setup\([0-9]+, \{flags=[^,]*/) {
		s = substr($0, RSTART + 15, RLENGTH - 15)
		n = s; sub(/,.*/, "", n)
		f = s; sub(/.*flags=/, "", f)
		if (n + 0 >= d) { printf "%s%s", sep, f; sep = " " } }' "$out"
	rm -f "$out"
}

# callgrind's total instructions of one run
instr() {	# config bs nios
	local out
	out=$(mktemp)
	# shellcheck disable=SC2046
	LD_BIND_NOW=1 valgrind --tool=callgrind --callgrind-out-file="$out" \
		"$FIO" $(fio_args "$1" "$2" "$3") >/dev/null 2>&1 ||
		{ rm -f "$out"; die "fio under callgrind failed: $1 $2 $3"; }
	awk '/^summary:/ { print $2 }' "$out"
	rm -f "$out"
}

# the per-I/O tables, one column per configuration, in $CONFIGS order
table() {	# scope
	local cfg f files=()
	for cfg in $CONFIGS; do
		files+=("/tmp/cpu-gap.$$.$1.$cfg")
	done
	f=$(mktemp)
	cp "${files[0]}" "$f"
	for cfg in "${files[@]:1}"; do
		join "$f" "$cfg" >"$f.j" && mv "$f.j" "$f"
	done
	awk '{ printf "%-40s", $1
		for (i = 2; i <= NF; i++) printf " %12s", $i; print "" }' "$f"
	rm -f "$f"
}

echo "# cpu-gap: $(uname -r), $("$FIO" --version), iodepth $DEPTH, $FILE"
for cfg in $CONFIGS; do
	fio_args "$cfg" 8m 1 >/dev/null
	echo "## ring flags, $cfg: $(ring_flags "$cfg")"
done
for bs in 8m 32m; do
	if [ $bs = 8m ]; then n1=100 n2=300; else n1=30 n2=90; fi
	for scope in task sys; do
		for cfg in $CONFIGS; do
			per_io $scope "$cfg" $bs $n1 $n2 \
				>"/tmp/cpu-gap.$$.$scope.$cfg"
		done
		echo "## $bs, $scope, per I/O ($n1 -> $n2 I/Os): event $CONFIGS"
		table $scope
	done
	rm -f /tmp/cpu-gap.$$.*
	for cfg in $CONFIGS; do
		contiguity "$cfg" $bs
	done
	[ $CALLGRIND = 1 ] || continue
	command -v valgrind >/dev/null || { echo "# no valgrind"; continue; }
	for cfg in $CONFIGS; do
		a=$(instr "$cfg" $bs $n1) b=$(instr "$cfg" $bs $n2)
		echo "## $bs user-space instructions per I/O, $cfg: $(((b - a) / (n2 - n1)))"
	done
done

# the same configurations timed as `make bench` times them, interleaved
[ "$ROUNDS" -gt 0 ] || exit 0
# each configuration's engine arguments (gaptime.py adds the job's own)
keep='^--(ioengine|backing|fixedbufs|registerfiles|report|mem|defer_)'
specs=()
for cfg in $CONFIGS; do
	specs+=("$cfg=$(fio_args "$cfg" 8m 1 | tr ' ' '\n' | grep -E -- "$keep" |
		tr '\n' ' ')")
done
echo "## timed (bench.py's run_point), $ROUNDS rounds of $RUNTIME s," \
	"randread iodepth $DEPTH"
evopt=()
case $EVENTS in
'' | 0) ;;
1) evopt=(--events) ;;
*) evopt=(--events="$EVENTS") ;;
esac
HUGEBUF_ENGINE=$ENGINE FIO=$FIO python3 "$TOP/bench/gaptime.py" \
	"${evopt[@]}" "$FILE" "$DEPTH" "$ROUNDS" "$RUNTIME" 8M,32M "${specs[@]}"

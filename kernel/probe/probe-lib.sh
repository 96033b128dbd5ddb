#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# probe-lib.sh: what the guest probes written in shell share, sourced
# from the same directory (kboot.sh copies it beside them into the
# guest's /hugebuf/bin).  POSIX sh: the guests run busybox.
#
#   value_ns NSID          the value controller's namespace of NSID as
#                          nvmeXnY (its block device, or only its ng
#                          character device where the kernel hides the
#                          disk); serial hugebufval, kboot.sh
#   wait_value_ns NSID     the same, waiting up to 10 s: the controller's
#                          namespaces appear asynchronously after boot
#   first_function F...    the first of the functions F that this kernel
#                          has as a text symbol (kprobe-able), or nothing
#   kprobes_on NAME:FUNC...  a kprobe event NAME on FUNC each, enabled
#   kprobes_off NAME...    those events disabled and removed (no error
#                          for one that is not there)
#   kprobe_hits NAME       the hit count of event NAME (kprobe_profile)
#   jfield FILE KEY        a number or string field of the JSON report
#                          line in FILE (flat keys only)
# every variable of these functions begins with pl_: sh has no locals
PT_TRACING=/sys/kernel/tracing

value_ns() {	# nsid
	for pl_c in /sys/class/nvme/nvme*; do
		[ "$(tr -d ' \n' <"$pl_c/serial" 2>/dev/null)" = hugebufval ] ||
			continue
		for pl_n in "$pl_c"/nvme*n*; do
			[ "$(cat "$pl_n/nsid" 2>/dev/null)" = "$1" ] || continue
			echo "${pl_n##*/}"
			return 0
		done
	done
	return 1
}

wait_value_ns() {	# nsid
	pl_i=0
	while ! value_ns "$1" >/dev/null && [ $pl_i -lt 50 ]; do
		sleep 0.2
		pl_i=$((pl_i + 1))
	done
	value_ns "$1"
}

first_function() {	# function...
	for pl_f in "$@"; do
		grep -q " [tT] $pl_f\$" /proc/kallsyms &&
			{ echo "$pl_f"; return 0; }
	done
	return 1
}

kprobes_on() {	# name:function...
	for pl_p in "$@"; do
		pl_e=$PT_TRACING/events/kprobes/${pl_p%%:*}
		echo "p:${pl_p%%:*} ${pl_p#*:}" >>$PT_TRACING/kprobe_events &&
			echo 1 >"$pl_e/enable" || return 1
	done
}

kprobes_off() {	# name...
	for pl_e in "$@"; do
		[ -d "$PT_TRACING/events/kprobes/$pl_e" ] || continue
		echo 0 >"$PT_TRACING/events/kprobes/$pl_e/enable"
		echo "-:$pl_e" >>$PT_TRACING/kprobe_events
	done
}

kprobe_hits() {	# name
	awk -v e="$1" '$1 == e { print $2 }' $PT_TRACING/kprobe_profile
}

jfield() {	# file, key
	grep -o "\"$2\":[^,}]*" "$1" | head -n 1 | cut -d: -f2 | tr -d '"'
}

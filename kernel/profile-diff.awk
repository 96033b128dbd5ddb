# SPDX-License-Identifier: GPL-2.0-only
#
# kernel/profile-diff.awk: one table in the shape of the series' perf diff,
# per 8 MiB I/O, column A (before) and column B (after), from
# kernel/probe/nvme-profile's NVPROF lines in two guest console logs.
# Usage: awk -v op=read|write -v fa=LOG_A -v ba=4k|2M -v fb=LOG_B -v bb=4k|2M \
#            -f profile-diff.awk LOG_A LOG_B
# Calls and device requests are exact counts (kprobe events); the wall time
# is microseconds of the fastest I/O seen from user space with no probe
# armed, under TCG a ratio only.
function kv(s, k,	a, i) {
	for (i = 1; i <= split(s, a, " "); i++)
		if (index(a[i], k "=") == 1)
			return substr(a[i], length(k) + 2)
	return ""
}
FNR == 1 { col = (FILENAME == fa && !seen++) ? "A" : "B"; bk = col == "A" ? ba : bb }
!/^NVPROF op=/ || kv($0, "op") != op || kv($0, "backing") != bk { next }
/ ios=/ {
	ios[col] = kv($0, "ios"); req[col] = kv($0, "requests")
	wall[col] = kv($0, "wall_usec")
	next
}
/ sym=/ {
	s = kv($0, "sym")
	if (!(s in order)) { order[s] = ++n; name[n] = s }
	hits[col, s] = kv($0, "hits")
}
END {
	if (!ios["A"] || !ios["B"]) { print "  (no profile: nvme-profile did not run)"; exit }
	printf "  %10s %10s %10s  %s\n", "before", "after", "delta", "per I/O"
	printf "  %10g %10g %+10g  %s\n", req["A"] / ios["A"],
		req["B"] / ios["B"], req["B"] / ios["B"] - req["A"] / ios["A"],
		"device requests"
	for (i = 1; i <= n; i++) {
		s = name[i]
		ca = hits["A", s] / ios["A"]; cb = hits["B", s] / ios["B"]
		if (ca == 0 && cb == 0)
			continue
		printf "  %10g %10g %+10g  %s\n", ca, cb, cb - ca, s
	}
	if (wall["A"] > 0 && wall["B"] > 0)
		printf "  %10.0f %10.0f %9.2fx  %s\n", wall["A"], wall["B"],
			wall["B"] / wall["A"], "wall time, us (TCG: a ratio)"
}

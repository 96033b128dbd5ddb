#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# second-fio: fio's client/server protocol is the release's
#
# Scale-out on fio's own distributed mode: two test hosts in network
# namespaces on this machine, each running `fio --server` bound to its
# private address, and a client in a third namespace that drives both
# with examples/hugepage-randread-8m.fio (sizes made small: the job file
# goes to the servers as text, and ${VAR}s are expanded by whoever parses
# it, so a copy with the values filled in is sent).  The engine is at the
# same path for both servers (the namespaces share the file system).
#
#   client ns  10.231.1.1/24 --veth-- 10.231.1.2/24  server ns 1
#              10.231.2.1/24 --veth-- 10.231.2.2/24  server ns 2
#
# No address or route is added outside the namespaces; namespaces (and
# with them the veths) and the servers are removed on every exit path.
# Checks: fio's JSON has a result for each host, each with error 0 and
# bytes read, and the "All clients" sum equals the two.
. "$(dirname "$0")/_fio-lib.sh"

t_need_root "it creates network namespaces"
t_need_engine
t_need_cmd ip python3 ss
[ -f "$T_TOP/examples/hugepage-randread-8m.fio" ] || skip "examples/hugepage-randread-8m.fio is missing"
[ "$(t_free_hugepages)" -ge 64 ] || skip "needs 64 free 2M hugepages, $(t_free_hugepages) free"
t_tmpdir cd
chmod 0755 "$T_DIR"

tag=hbcs$$
ns_c=$tag-c
port=8765
ip netns add "$ns_c" 2>/dev/null || skip "cannot create network namespaces (ip netns add failed)"
t_atexit "ip netns del $ns_c"
ip -n "$ns_c" link set lo up
servers=
for i in 1 2; do
	ns=$tag-s$i
	ip netns add "$ns" || t_fail_now "ip netns add $ns failed"
	t_atexit "ip netns del $ns"
	ip link add "$tag-c$i" netns "$ns_c" type veth peer name "$tag-s$i" netns "$ns" ||
		t_fail_now "cannot create a veth pair into $ns"
	ip -n "$ns_c" addr add "10.231.$i.1/24" dev "$tag-c$i"
	ip -n "$ns" addr add "10.231.$i.2/24" dev "$tag-s$i"
	ip -n "$ns_c" link set "$tag-c$i" up
	ip -n "$ns" link set "$tag-s$i" up
	ip -n "$ns" link set lo up
	ip netns exec "$ns" "$FIO" --server="ip:10.231.$i.2,$port" \
		>"$T_DIR/server$i.log" 2>&1 &
	t_atexit "kill $!"
	servers="$servers 10.231.$i.2"
done
for i in 1 2; do
	for t in $(seq 1 50); do
		ip netns exec "$tag-s$i" ss -ltn | grep -q "10.231.$i.2:$port" && break
		sleep 0.1
	done
	ip netns exec "$tag-s$i" ss -ltn | grep -q "10.231.$i.2:$port" ||
		t_fail_now "fio server $i does not listen: $(cat "$T_DIR/server$i.log")"
done
t_info "fio servers listening on$servers (port $port), client in $ns_c"

data=$T_DIR/data
"$FIO" --name=layout --filename="$data" --size=64M --rw=write --bs=1M \
	--output=/dev/null >/dev/null 2>&1 || t_fail_now "cannot create $data"
job=$T_DIR/hugepage-randread-8m.fio
sed -e "s|\${HUGEBUF_ENGINE}|$HUGEBUF_ENGINE|" -e "s|\${HUGEBUF_FILE}|$data|" \
	-e 's|\${HUGEBUF_SIZE}|64M|' -e 's|\${HUGEBUF_RUNTIME}|2|' \
	-e 's|^iodepth=.*|iodepth=4|' \
	"$T_TOP/examples/hugepage-randread-8m.fio" >"$job"
grep -v '^#' "$job" | grep -q '\${' && t_fail_now "unexpanded variables left in $job"
t_baseline

out=$T_DIR/client.json
# shellcheck disable=SC2046
timeout -k 5 120 ip netns exec "$ns_c" "$FIO" $(printf -- '--client=%s ' $servers) \
	--output-format=json --output="$out" "$job" >"$out.err" 2>&1
rc=$?
[ $rc -lt 124 ] || t_fail_now "fio --client hung (exit $rc)"
# shellcheck disable=SC2086
t_check "fio --client: every server read its share" \
	$T_CHECK clients "$out" $servers
[ $rc = 0 ] && t_ok "fio --client exit 0" ||
	fail "fio --client exit $rc: $(tail -n 5 "$out.err")"
t_check_baseline "after the client/server run"
t_done

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# lib/ is a one-way stack: a file calls only files of its own layer or
# below, and the calls between files have no cycle.  Read from the
# objects (nm), so it checks what is linked, not what a comment says:
#   base      util.c: errors, sizes, small file readers; json.c: the
#             growing string and the JSON writer
#   readers   /proc and /sys: sysinfo.c, blkdev.c, pagemap.c, filelimits.c,
#             numa.c
#   model     pure, arrays in, tables out: model.c, kmodel.c, account.c,
#             ptmap.c, vimport.c, layout.c, predict.c, plain.c, verdict.c,
#             ringfeat.c, iommu.c
#   resources backing.c, register.c, measure.c, probe.c, preflight.c,
#             alloc.c, ringprobe.c
#   top       analysis.c, report.c, kdetect.c, jobplan.c: the running
#             model (hb_kmodel_running) is asked for here and only here
. "$(dirname "$0")/_fio-lib.sh"
t_need_cmd nm tsort
lib=$T_TOP/lib
ls "$lib"/*.o >/dev/null 2>&1 || skip "no lib/*.o: run make"

layer_of() {
	case $1 in
	util | json) echo 0 ;;
	sysinfo | blkdev | pagemap | filelimits | numa) echo 1 ;;
	model | kmodel | account | ptmap | vimport | layout | predict | plain | \
		verdict | ringfeat | iommu)
		echo 2 ;;
	backing | register | measure | probe | preflight | alloc | ringprobe)
		echo 3 ;;
	analysis | report | kdetect | jobplan) echo 4 ;;
	*) echo "" ;;
	esac
}

# every file has its layer
t_tmpdir
for o in "$lib"/*.o; do
	f=$(basename "$o" .o)
	[ -n "$(layer_of "$f")" ] || t_fail_now "lib/$f.c has no layer: add it here"
done

# "symbol file" for every function lib/ defines
for o in "$lib"/*.o; do
	f=$(basename "$o" .o)
	nm --defined-only "$o" | awk -v f="$f" '$2 ~ /^[TDBR]$/ { print $3, f }'
done | sort >"$T_DIR/defs"

# "caller callee" for every call between two files
for o in "$lib"/*.o; do
	f=$(basename "$o" .o)
	nm -u "$o" | awk '{ print $NF }' | sort |
		join - "$T_DIR/defs" | awk -v f="$f" '$2 != f { print f, $2 }'
done | sort -u >"$T_DIR/calls"
[ -s "$T_DIR/calls" ] || t_fail_now "no calls between lib/ files found"

# one check per call between two files: down the stack, and the pure
# model reads nothing (only base helpers below it)
while read -r from to; do
	lf=$(layer_of "$from")
	lt=$(layer_of "$to")
	if [ "$lt" -gt "$lf" ]; then
		fail "lib/$from.c (layer $lf) calls up into lib/$to.c (layer $lt)"
	elif [ "$lf" = 2 ] && [ "$lt" != 0 ] && [ "$lt" != 2 ]; then
		fail "lib/$from.c (the pure model) calls lib/$to.c, a reader"
	else
		T_PASSED=$((T_PASSED + 1))
	fi
done <"$T_DIR/calls"
t_info "$(wc -l <"$T_DIR/calls") calls between lib/ files checked"

# tsort names the files of a cycle on stderr
if tsort "$T_DIR/calls" >/dev/null 2>"$T_DIR/tsort"; then
	t_ok "no cycle in the calls between lib/ files"
else
	fail "calls between lib/ files form a cycle:"
	cat "$T_DIR/tsort"
fi

# the running model: asked for in the top layer only
below=
for o in "$lib"/*.o; do
	f=$(basename "$o" .o)
	if nm -u "$o" | grep -qw 'hb_kmodel_running\|hb_kdetect_cached' &&
		[ "$(layer_of "$f")" != 4 ]; then
		below="$below lib/$f.c"
	fi
done
if [ -n "$below" ]; then
	fail "the running model is asked for below the top layer:$below"
else
	t_ok "the running model is asked for on top only"
fi
if grep -n 'static bool.*detecting' "$lib"/*.c; then
	fail "a re-entrancy flag is back in lib/"
else
	t_ok "no re-entrancy flag in lib/"
fi
t_done

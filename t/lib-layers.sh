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
#             foliomap.c, regcost.c, ptmap.c, vimport.c, layout.c, predict.c,
#             plain.c, verdict.c, ringfeat.c, iommu.c
#   resources backing.c, register.c, measure.c, probe.c, preflight.c,
#             alloc.c, ringprobe.c
#   top       analysis.c, report.c, kdetect.c, jobplan.c: the running
#             model (hb_kmodel_running) is asked for here and only here
# and the headers: the public ones (the Makefile's PUBLIC_HDRS, installed)
# include only system headers and each other, the model's none of the
# rest; hugebuf-model.h declares only what the base and the pure model
# define; libhugebuf.so exports exactly the functions the public headers
# declare (as gcc reads them) and engines/hugebuf.so only fio's ops symbol.
. "$(dirname "$0")/_fio-lib.sh"
t_need_cmd nm tsort gcc
lib=$T_TOP/lib
ls "$lib"/*.o >/dev/null 2>&1 || skip "no lib/*.o: run make"

layer_of() {
	case $1 in
	util | json) echo 0 ;;
	sysinfo | blkdev | pagemap | filelimits | numa) echo 1 ;;
	model | kmodel | account | foliomap | regcost | ptmap | vimport | layout | predict | plain | \
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

# --- the headers ---
pub=$(sed -n 's/^PUBLIC_HDRS := //p' "$T_TOP/Makefile")
[ -n "$pub" ] || t_fail_now "no PUBLIC_HDRS line in the Makefile"
model=lib/hugebuf-model.h
for h in lib/hugebuf.h "$model"; do
	case " $pub " in
	*" $h "*) ;;
	*) t_fail_now "PUBLIC_HDRS ($pub) lacks $h" ;;
	esac
done
# quoted includes of header $1
includes() {
	sed -n 's/^#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$T_TOP/$1"
}
for h in $pub; do
	for inc in $(includes "$h"); do
		if [ "$h" = "$model" ]; then
			fail "$model (the pure model, the bottom) includes \"$inc\""
			continue
		fi
		case " $pub " in
		*" lib/$inc "*) T_PASSED=$((T_PASSED + 1)) ;;
		*) fail "public $h includes the private \"$inc\"" ;;
		esac
	done
done
nr_priv=0
for h in "$lib"/*.h; do
	case " $pub " in
	*" lib/$(basename "$h") "*) continue ;;
	esac
	nr_priv=$((nr_priv + 1))
	# a private header is never reached from a public one (checked
	# above) and is not installed: the install rule names PUBLIC_HDRS
done
grep -q 'install -m 0644 $(PUBLIC_HDRS) ' "$T_TOP/Makefile" &&
	! grep -q 'install .*lib/[a-z-]*\.h' "$T_TOP/Makefile" &&
	t_ok "make install puts down PUBLIC_HDRS ($pub), not the $nr_priv private headers" ||
	fail "the Makefile installs a header other than PUBLIC_HDRS"

# the functions a header declares, as gcc reads them (-aux-info)
declared() {
	printf '#include "%s"\n' "$(basename "$1")" >"$T_DIR/decl.c"
	gcc -std=gnu11 -I"$T_TOP/lib" -fsyntax-only -aux-info "$T_DIR/aux" \
		"$T_DIR/decl.c" || t_fail_now "gcc cannot read $1"
	grep "^/\* [^ ]*lib/$(basename "$1"):" "$T_DIR/aux" |
		sed 's/.*[ *]\(hb_[a-z0-9_]*\) (.*/\1/' | LC_ALL=C sort -u
}
# hugebuf-model.h: the base's and the pure model's functions only
declared "$model" >"$T_DIR/model-decl"
[ -s "$T_DIR/model-decl" ] || t_fail_now "$model declares no function"
impure=
while read -r fn _; do
	f=$(awk -v s="$fn" '$1 == s { print $2 }' "$T_DIR/defs")
	case $(layer_of "$f") in
	0 | 2) T_PASSED=$((T_PASSED + 1)) ;;
	*) impure="$impure $fn (lib/$f.c)" ;;
	esac
done <"$T_DIR/model-decl"
[ -z "$impure" ] &&
	t_ok "$model: $(wc -l <"$T_DIR/model-decl") functions, each of the base or the pure model" ||
	fail "$model declares functions that are not pure:$impure"

# libhugebuf.so exports exactly the public declarations
so=$(ls "$lib"/libhugebuf.so.* 2>/dev/null | head -n 1)
for h in $pub; do declared "$h"; done | LC_ALL=C sort -u >"$T_DIR/pub-decl"
if [ -z "$so" ]; then
	t_skip_check "no lib/libhugebuf.so.*: make shlib"
else
	nm -D --defined-only "$so" | awk '$2 ~ /^[TDBRW]$/ { print $3 }' |
		LC_ALL=C sort -u >"$T_DIR/exports"
	if cmp -s "$T_DIR/exports" "$T_DIR/pub-decl"; then
		t_ok "$(basename "$so") exports the $(wc -l <"$T_DIR/exports") functions of the public headers, nothing else"
	else
		fail "$(basename "$so") exports differ from the public declarations (-declared +exported):"
		diff "$T_DIR/pub-decl" "$T_DIR/exports" | grep '^[<>]' | sed 's/^/  | /'
	fi
fi
# the engine: fio's ops symbol (ioengines.c dlsym()s "ioengine") only
eng=$T_TOP/engines/hugebuf.so
if [ -e "$eng" ]; then
	e=$(nm -D --defined-only "$eng" | awk '{ print $3 }' | tr '\n' ' ')
	[ "$e" = "ioengine " ] &&
		t_ok "engines/hugebuf.so exports only ioengine" ||
		fail "engines/hugebuf.so exports '$e', want only ioengine"
else
	t_skip_check "no engines/hugebuf.so: make engine"
fi
t_done

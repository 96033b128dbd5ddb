#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# lib/ is a one-way stack of layers, one folder each, in the order of the
# Makefile's LIB_LAYERS:
#   base      errors, sizes, small-file readers, the JSON writer
#   sysread   the readers of /proc and /sys
#   model     the pure model of the kernel: arrays in, tables out
#   resource  what a job takes from the system: preflight, allocation,
#             backings, registration, the folio probe, the ring's features
#   job       the top: one job's plan, analysis, verdict and report; the
#             running model (hb_kmodel_running) is asked for here only
# A file's layer is its folder.  Checked here, from what is built:
#  - calls (nm of the objects): a file calls only files of its own layer
#    or below, the pure model only the base and itself, and the calls
#    between files have no cycle;
#  - includes (the compiler's own dependency files, -MMD): a file reaches
#    only the headers of its own layer, the layers below and the public
#    ones, the pure model only the base's; each layer has one private
#    header named for it;
# and the headers: the public ones (the Makefile's PUBLIC_HDRS, installed)
# include only system headers and each other, the model's none of the
# rest; hugebuf-model.h declares only what the base and the pure model
# define; libhugebuf.so exports exactly the functions the public headers
# declare (as gcc reads them) and engines/hugebuf.so only fio's ops symbol.
. "$(dirname "$0")/_fio-lib.sh"
t_need_cmd nm tsort gcc
lib=$T_TOP/lib
layers=$(sed -n 's/^LIB_LAYERS := //p' "$T_TOP/Makefile")
[ -n "$layers" ] || t_fail_now "no LIB_LAYERS line in the Makefile"
ls "$lib"/*/*.o >/dev/null 2>&1 || skip "no lib/*/*.o: run make"

# the index of layer $1 in LIB_LAYERS, "" for a folder that is none
layer_of() {
	i=0
	for l in $layers; do
		[ "$l" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
	echo ""
}
l_model=$(layer_of model)
l_base=$(layer_of base)
l_top=$(layer_of job)

# every source file sits in a layer's folder, and every folder but the
# public headers' is a layer with its one private header
t_tmpdir
for f in "$lib"/*.c "$lib"/*.h; do
	[ -e "$f" ] && fail "lib/$(basename "$f") is outside every layer's folder"
done
for d in "$lib"/*/; do
	d=$(basename "$d")
	[ "$d" = include ] && continue
	if [ -z "$(layer_of "$d")" ]; then
		fail "lib/$d/ is no layer: add it to LIB_LAYERS in order"
	elif [ ! -f "$lib/$d/$d.h" ]; then
		fail "lib/$d/ has no private header lib/$d/$d.h"
	else
		T_PASSED=$((T_PASSED + 1))
	fi
done

# "symbol layer/file" for every function lib/ defines
for o in "$lib"/*/*.o; do
	f=${o#"$lib"/}
	f=${f%.o}
	nm --defined-only "$o" | awk -v f="$f" '$2 ~ /^[TDBR]$/ { print $3, f }'
done | sort >"$T_DIR/defs"

# "caller callee" (layer/file each) for every call between two files
for o in "$lib"/*/*.o; do
	f=${o#"$lib"/}
	f=${f%.o}
	nm -u "$o" | awk '{ print $NF }' | sort |
		join - "$T_DIR/defs" | awk -v f="$f" '$2 != f { print f, $2 }'
done | sort -u >"$T_DIR/calls"
[ -s "$T_DIR/calls" ] || t_fail_now "no calls between lib/ files found"

# one check per call between two files: down the stack, and the pure
# model reads nothing (only the base below it)
while read -r from to; do
	lf=$(layer_of "${from%%/*}")
	lt=$(layer_of "${to%%/*}")
	if [ "$lt" -gt "$lf" ]; then
		fail "lib/$from.c (layer ${from%%/*}) calls up into lib/$to.c"
	elif [ "$lf" = "$l_model" ] && [ "$lt" != "$l_base" ] &&
		[ "$lt" != "$l_model" ]; then
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

# the headers each object was compiled from, as the compiler wrote them
# (make's -MMD): every lib/ header it reached, directly or not, is of
# its own layer or below, public, or (for the pure model) the base's
nr_inc=0
for o in "$lib"/*/*.o; do
	f=${o#"$lib"/}
	f=${f%.o}
	d=${o%.o}.d
	if [ ! -f "$d" ]; then
		fail "lib/$f.d is missing: the Makefile builds lib/ with -MMD"
		continue
	fi
	lf=$(layer_of "${f%%/*}")
	for h in $(tr -d '\\' <"$d" | tr ' ' '\n' | grep '^lib/.*\.h$' | sort -u); do
		hl=${h#lib/}
		hl=${hl%%/*}
		nr_inc=$((nr_inc + 1))
		[ "$hl" = include ] && continue
		lh=$(layer_of "$hl")
		if [ -z "$lh" ] || [ "$lh" -gt "$lf" ]; then
			fail "lib/$f.c (layer ${f%%/*}) includes $h, above it"
		elif [ "$lf" = "$l_model" ] && [ "$lh" != "$l_base" ] &&
			[ "$lh" != "$l_model" ]; then
			fail "lib/$f.c (the pure model) includes $h, a reader's"
		fi
	done
done
[ "$nr_inc" -gt 0 ] || t_fail_now "no lib/ header found in lib/*/*.d"
t_ok "no lib/ file includes a header above its layer ($nr_inc includes)"

# and each private header, read as written: only the headers of the
# layers below it and the public ones
for h in "$lib"/*/*.h; do
	d=$(basename "$(dirname "$h")")
	[ "$d" = include ] && continue
	lh=$(layer_of "$d")
	for inc in $(sed -n 's/^#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$h"); do
		li=
		case $inc in
		*/*) li=$(layer_of "${inc%%/*}") ;;
		*) [ -f "$lib/include/$inc" ] &&
			{ T_PASSED=$((T_PASSED + 1)); continue; } ;;
		esac
		if [ -n "$li" ] && [ "$li" -lt "$lh" ]; then
			T_PASSED=$((T_PASSED + 1))
		else
			fail "lib/$d/$(basename "$h") includes \"$inc\", not below it"
		fi
	done
done

# the running model: asked for in the top layer only
below=
for o in "$lib"/*/*.o; do
	f=${o#"$lib"/}
	if nm -u "$o" | grep -qw 'hb_kmodel_running\|hb_kdetect_cached' &&
		[ "$(layer_of "${f%%/*}")" != "$l_top" ]; then
		below="$below lib/${f%.o}.c"
	fi
done
if [ -n "$below" ]; then
	fail "the running model is asked for below the top layer:$below"
else
	t_ok "the running model is asked for on top only"
fi
if grep -n 'static bool.*detecting' "$lib"/*/*.c; then
	fail "a re-entrancy flag is back in lib/"
else
	t_ok "no re-entrancy flag in lib/"
fi

# --- the headers ---
pub=$(sed -n 's/^PUBLIC_HDRS := //p' "$T_TOP/Makefile")
[ -n "$pub" ] || t_fail_now "no PUBLIC_HDRS line in the Makefile"
model=lib/include/hugebuf-model.h
for h in lib/include/hugebuf.h "$model"; do
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
		*" lib/include/$inc "*) T_PASSED=$((T_PASSED + 1)) ;;
		*) fail "public $h includes the private \"$inc\"" ;;
		esac
	done
done
nr_priv=0
for h in "$lib"/*/*.h; do
	case " $pub " in
	*" lib/${h#"$lib"/} "*) continue ;;
	esac
	nr_priv=$((nr_priv + 1))
	# a private header is never reached from a public one (checked
	# above) and is not installed: the install rule names PUBLIC_HDRS
done
grep -q 'install -m 0644 $(PUBLIC_HDRS) ' "$T_TOP/Makefile" &&
	! grep -q 'install .*lib/[a-z/-]*\.h' "$T_TOP/Makefile" &&
	t_ok "make install puts down PUBLIC_HDRS ($pub), not the $nr_priv private headers" ||
	fail "the Makefile installs a header other than PUBLIC_HDRS"

# the functions a header declares, as gcc reads them (-aux-info)
declared() {
	printf '#include "%s"\n' "$(basename "$1")" >"$T_DIR/decl.c"
	gcc -std=gnu11 -I"$T_TOP/lib/include" -fsyntax-only -aux-info "$T_DIR/aux" \
		"$T_DIR/decl.c" || t_fail_now "gcc cannot read $1"
	grep "^/\* [^ ]*lib/include/$(basename "$1"):" "$T_DIR/aux" |
		sed 's/.*[ *]\(hb_[a-z0-9_]*\) (.*/\1/' | LC_ALL=C sort -u
}
# hugebuf-model.h: the base's and the pure model's functions only
declared "$model" >"$T_DIR/model-decl"
[ -s "$T_DIR/model-decl" ] || t_fail_now "$model declares no function"
impure=
while read -r fn _; do
	f=$(awk -v s="$fn" '$1 == s { print $2 }' "$T_DIR/defs")
	case $(layer_of "${f%%/*}") in
	"$l_base" | "$l_model") T_PASSED=$((T_PASSED + 1)) ;;
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

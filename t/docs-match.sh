#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# second-fio: fio --enghelp of that release
#
# The man pages document exactly what the code has: the engine options
# fio --enghelp lists, the CLI flags of hugebuf --help (and of cli/opts.c's
# option table), the keys of the engine's JSON report (from a short 4k
# job) and of the CLI's info / plan / check --json, each against the
# entries of docs/man/hugebuf-ioengine.7 and docs/man/hugebuf.1; the
# functions libhugebuf.so exports (lib/libhugebuf.map) against the
# SYNOPSIS of the man3 pages (docs/man/man3/); and every page is clean
# under mandoc -T lint -W warning.  The kernel harness's probes
# (kernel/probes.tab) are each in kernel/README.md's list.
#
# The pages' markup this reads: an entry is a ".TP" line followed by
# ".B name" or ".BI name= value" (hyphens written "\-"), inside the
# section or subsection named below; .TP entries nested in .RS/.RE (the
# values of one option) are not entries.
. "$(dirname "$0")/_fio-lib.sh"

MAN1=$T_TOP/docs/man/hugebuf.1
MAN7=$T_TOP/docs/man/hugebuf-ioengine.7
if [ ! -f "$MAN1" ] || [ ! -f "$MAN7" ]; then
	t_fail_now "docs/man/hugebuf.1 or hugebuf-ioengine.7 is missing"
fi
t_need_cmd python3
t_tmpdir

# man_entries FILE HEADER: the entry names under the line HEADER (".SH X"
# or ".SS X" as written, quotes left out), up to the next section (or subsection,
# for an .SS header), one per line, sorted
man_entries() {
	awk -v hdr="$2" '
	BEGIN { gsub(/"/, "", hdr) }
	{ line = $0; gsub(/"/, "", line) }
	line == hdr { on = 1; sub_only = (hdr ~ /^\.SS/); depth = 0; next }
	on && /^\.SH/ { on = 0 }
	on && sub_only && /^\.SS/ { on = 0 }
	!on { next }
	/^\.RS/ { depth++; next }
	/^\.RE/ { depth--; next }
	/^\.TP/ { want = (depth == 0); next }
	want {
		want = 0
		if ($1 != ".B" && $1 != ".BI") next
		n = $2
		gsub(/"/, "", n); gsub(/\\-/, "-", n); gsub(/\\&/, "", n)
		sub(/=.*/, "", n); sub(/^--/, "", n)
		print n
	}' "$1" | sort -u
}

# json_paths top|nested: the keys of the JSON object on stdin (the first
# line that is one), one per line, sorted.  nested: dotted paths of every
# key at every level, "name[]" for an array of objects, a number key "N".
json_paths() {
	python3 -c '
import json, sys
mode = sys.argv[1]
doc = None
for line in sys.stdin:
    line = line.strip()
    if line.startswith("{"):
        doc = json.loads(line)
        break
if not isinstance(doc, dict):
    sys.exit("no JSON object")
out = set()
def walk(v, prefix):
    for k, x in v.items():
        p = prefix + ("N" if k.isdigit() else k)
        if isinstance(x, list):
            out.add(p + "[]")
            items, p = x, p + "[]"
        else:
            out.add(p)
            items = [x]
        if mode == "nested":
            for i in items:
                if isinstance(i, dict):
                    walk(i, p + ".")
walk(doc, "")
print("\n".join(sorted(out)))
' "$1"
}

# same WHAT CODE DOC: one check, the name lists in the files CODE (what the
# code has) and DOC (what the page documents) are equal
same() {
	if [ ! -s "$2" ]; then
		fail "$1: the code side is empty"
		return
	fi
	if [ ! -s "$3" ]; then
		fail "$1: the page documents none"
		return
	fi
	if cmp -s "$2" "$3"; then
		t_ok "$1: the same $(wc -l <"$2") names"
		return
	fi
	fail "$1: the code and the page differ"
	comm -23 "$2" "$3" | sed 's/^/    undocumented: /'
	comm -13 "$2" "$3" | sed 's/^/    documented, not in the code: /'
}

D=$T_DIR

# ---- the engine's options ---------------------------------------------
man_entries "$MAN7" '.SH "ENGINE OPTIONS"' >"$D/opt.doc"
if ! command -v "$FIO" >/dev/null 2>&1; then
	t_skip_check "engine options: fio not found (run make deps)"
elif [ ! -f "$HUGEBUF_ENGINE" ]; then
	t_skip_check "engine options: no engine at $HUGEBUF_ENGINE (run make)"
elif ! "$FIO" --enghelp="$HUGEBUF_ENGINE" >"$D/enghelp" 2>&1; then
	fail "fio --enghelp=$HUGEBUF_ENGINE failed: $(head -n 2 "$D/enghelp")"
else
	sed -n 's/^\([a-z0-9_]*\) *: .*/\1/p' "$D/enghelp" | sort -u >"$D/opt.code"
	# the options of newer fio releases are documented in their own
	# subsection: compared only where the engine was built for one
	if ! grep -qx readfua "$D/opt.code"; then
		man_entries "$MAN7" '.SS "Options of fio 3.41 and later"' \
			>"$D/opt.341"
		comm -23 "$D/opt.doc" "$D/opt.341" >"$D/opt.doc2"
		mv "$D/opt.doc2" "$D/opt.doc"
		t_info "fio $("$FIO" --version) has no 3.41 options: $(wc -l <"$D/opt.341") documented ones not compared"
	fi
	same "engine options (fio --enghelp vs hugebuf-ioengine.7)" \
		"$D/opt.code" "$D/opt.doc"
fi

# ---- the library's man3 pages ---------------------------------------------
# every function lib/libhugebuf.map exports is in the SYNOPSIS of a page
# of docs/man/man3/, and every function a SYNOPSIS names is exported
MAN3_DIR=$T_TOP/docs/man/man3
sed -n 's/^[[:space:]]*\(hb_[a-z0-9_]*\);.*/\1/p' "$T_TOP/lib/libhugebuf.map" |
	LC_ALL=C sort -u >"$D/fn.code"
for page in "$MAN3_DIR"/*.3; do
	[ -e "$page" ] || continue
	awk '/^\.SH SYNOPSIS/ { on = 1; next } /^\.SH/ { on = 0 } on' "$page" |
		grep -o 'hb_[a-z0-9_]*(' | tr -d '('
done | LC_ALL=C sort >"$D/fn.doc.all"
dup=$(uniq -d "$D/fn.doc.all" | tr '\n' ' ')
[ -z "$dup" ] && t_ok "man3: each function in one SYNOPSIS" ||
	fail "man3: functions in more than one SYNOPSIS: $dup"
uniq "$D/fn.doc.all" >"$D/fn.doc"
same "exported functions (lib/libhugebuf.map vs the SYNOPSIS of docs/man/man3/*.3)" \
	"$D/fn.code" "$D/fn.doc"

# ---- the CLI's flags ----------------------------------------------------
man_entries "$MAN1" '.SH OPTIONS' >"$D/flags.doc"
if [ ! -x "$HUGEBUF_CLI" ]; then
	t_skip_check "CLI: no CLI at $HUGEBUF_CLI (run make)"
	t_done
fi
if ! "$HUGEBUF_CLI" --help >"$D/help" 2>&1; then
	fail "hugebuf --help exited non-zero"
else
	# the usage names every flag but --help itself
	{ grep -o -- '--[a-z][a-z-]*' "$D/help" | sed 's/^--//'; echo help; } |
		sort -u >"$D/flags.code"
	same "CLI flags (hugebuf --help, and help, vs hugebuf.1)" \
		"$D/flags.code" "$D/flags.doc"
fi
if [ -f "$T_TOP/cli/opts.c" ]; then
	# the commands' flags, and the top-level ones cli/main.c takes first
	{
		sed -n 's/^[[:space:]]*{ "\([a-z-]*\)", [a-z_]*argument,.*/\1/p' \
			"$T_TOP/cli/opts.c"
		grep -o '!strcmp(cmd, "--[a-z-]*")' "$T_TOP/cli/main.c" |
			sed 's/.*"--\([a-z-]*\)")/\1/'
	} | sort -u >"$D/flags.table"
	same "CLI flags (cli/opts.c's option table vs hugebuf.1)" \
		"$D/flags.table" "$D/flags.doc"
fi

# ---- the CLI's JSON ------------------------------------------------------
# cli_json NAME HEADER ARGS...: the nested keys of hugebuf ARGS --json
# against the page's subsection HEADER
cli_json() {
	t_n=$1 t_h=$2
	shift 2
	man_entries "$MAN1" "$t_h" >"$D/$t_n.doc"
	if ! "$HUGEBUF_CLI" "$@" >"$D/$t_n.json" 2>"$D/$t_n.err"; then
		fail "hugebuf $*: exit $?: $(head -n 1 "$D/$t_n.err")"
		return 1
	fi
	if ! json_paths nested <"$D/$t_n.json" >"$D/$t_n.code"; then
		fail "hugebuf $*: no JSON object on stdout"
		return 1
	fi
	return 0
}

if cli_json info '.SS "info \-\-json"' info --json; then
	# kernel_detect is null when the detection could not run
	if grep -q '"kernel_detect":null' "$D/info.json"; then
		t_info "kernel_detect is null here: its members are not compared"
		grep -v '^kernel_detect\.' "$D/info.doc" >"$D/info.doc2"
		mv "$D/info.doc2" "$D/info.doc"
	fi
	same "info --json keys (hugebuf.1)" "$D/info.code" "$D/info.doc"
fi
# every optional key: --bvecs, --plain, the queue limits and --iommu
# (strict here; the keys of lazy, a refused --pt and a contrast that is
# not modelled come from three more runs, the warning of a slow
# registration from a fourth)
if cli_json plan '.SS "plan \-\-json"' plan --backing=hugetlb:2M --size=8M \
	--offset=4096 --bvecs --plain --queue-limits=1M,128,64K --iommu --json; then
	for a in "--size=8M --iommu=lazy" "--size=8M --iommu --pt" \
		"--size=4M --iommu --pt"; do
		# shellcheck disable=SC2086 # $a is several flags
		"$HUGEBUF_CLI" plan --backing=hugetlb:2M $a --kernel=6.12 \
			--queue-limits=4M,127,4G --json | json_paths nested
	done >>"$D/plan.code"
	# register.warning: a registration the accounting scan makes slow
	"$HUGEBUF_CLI" plan --backing=mthp:16K --size=1G --kernel=6.18 --json |
		json_paths nested >>"$D/plan.code"
	sort -u "$D/plan.code" -o "$D/plan.code"
	same "plan --json keys, with --bvecs, --plain, --queue-limits and --iommu (hugebuf.1)" \
		"$D/plan.code" "$D/plan.doc"
fi

# check allocates 8 MiB of 2M hugepages and reads a file through them
free=$(t_free_hugepages)
if [ "$(id -u)" != 0 ]; then
	t_skip_check "check --json keys: needs root"
elif [ "$free" -lt 8 ]; then
	t_skip_check "check --json keys: needs 8 free 2M hugepages, $free free"
elif ! dd if=/dev/zero of="$D/check.dat" bs=1M count=8 status=none; then
	fail "cannot write $D/check.dat"
else
	# exit 1 (does not match the model) still prints the whole document
	"$HUGEBUF_CLI" check --file="$D/check.dat" --json >"$D/check.json" \
		2>"$D/check.err"
	rc=$?
	man_entries "$MAN1" '.SS "check \-\-json"' >"$D/check.doc"
	if [ $rc -gt 1 ]; then
		fail "hugebuf check --json: exit $rc: $(head -n 1 "$D/check.err")"
	elif ! json_paths nested <"$D/check.json" >"$D/check.code"; then
		fail "hugebuf check --json: no JSON object on stdout"
	else
		# requests and kmem hold either a note or the measurement
		for g in requests kmem; do
			if grep -qx "$g.note" "$D/check.code"; then
				t_info "$g: not measured here ($g.note)"
				grep -v "^$g\.[a-z_]*$" "$D/check.doc" >"$D/c2"
				echo "$g.note" >>"$D/c2"
			else
				grep -vx "$g.note" "$D/check.doc" >"$D/c2"
			fi
			sort -u "$D/c2" >"$D/check.doc"
		done
		same "check --json keys (hugebuf.1)" "$D/check.code" \
			"$D/check.doc"
	fi
fi

# ---- the engine's JSON report -------------------------------------------
man_entries "$MAN7" '.SS "JSON report"' >"$D/report.doc"
man_entries "$MAN7" '.SS "Passthrough keys"' >"$D/pt.doc"
man_entries "$MAN7" '.SS "Metadata keys"' >"$D/md.doc"
if ! command -v "$FIO" >/dev/null 2>&1; then
	t_skip_check "report JSON keys: fio not found (run make deps)"
elif [ ! -f "$HUGEBUF_ENGINE" ]; then
	t_skip_check "report JSON keys: no engine at $HUGEBUF_ENGINE (run make)"
else
	# backing=4k needs no hugepages; a file on the test file system
	if ! t_fio report --name=docs --ioengine="external:$HUGEBUF_ENGINE" \
		--backing=4k --filename="$D/data" --size=4M --bs=1M \
		--rw=read --direct=1 --iodepth=2; then
		fail "the 4k report job failed: $(head -n 3 "$D/report.err")"
	elif ! json_paths top <"$D/report.report" >"$D/report.code"; then
		fail "the report job wrote no JSON line to HUGEBUF_REPORT_JSON"
	else
		# the file's limits are only there when statx gave them
		if ! grep -qx dio_mem_align "$D/report.code"; then
			t_info "no file limits in this report: dio_*/atomic_unit_*/atomic_segments_max not compared"
			grep -v '^dio_\|^atomic_unit_\|^atomic_segments_max$' \
				"$D/report.doc" >"$D/r2"
			mv "$D/r2" "$D/report.doc"
		fi
		same "report JSON keys of a 4k job (hugebuf-ioengine.7)" \
			"$D/report.code" "$D/report.doc"
	fi
fi
# no NVMe namespace to run a passthrough job on: the pt_* keys the writer
# has (lib/job/report.c) against the page's passthrough keys
if [ -f "$T_TOP/lib/job/report.c" ]; then
	grep -oE '"pt_[a-z_]+\\?"' "$T_TOP/lib/job/report.c" | tr -d '\\"' |
		sort -u >"$D/pt.code"
	same "passthrough pt_* keys (lib/job/report.c vs hugebuf-ioengine.7)" \
		"$D/pt.code" "$D/pt.doc"
	# md_per_io_size needs a namespace with metadata: the md_* keys
	grep -oE '"md_[a-z_]+\\?"' "$T_TOP/lib/job/report.c" | tr -d '\\"' |
		sort -u >"$D/md.code"
	same "metadata md_* keys (lib/job/report.c vs hugebuf-ioengine.7)" \
		"$D/md.code" "$D/md.doc"
fi

# ---- kernel/probes.tab -----------------------------------------------------
# every probe of the harness's table is in kernel/README.md's list under
# "## The probes" (an item "- `name`: ...", or "- `a`, `b`: ..." for
# several), and the list names no other
KTAB=$T_TOP/kernel/probes.tab
KREADME=$T_TOP/kernel/README.md
if [ -f "$KTAB" ] && [ -f "$KREADME" ]; then
	grep -v -e '^#' -e '^[[:space:]]*$' "$KTAB" | awk '{ print $1 }' |
		sort -u >"$D/probes.code"
	sed -n '/^## The probes$/,/^#/p' "$KREADME" | grep '^- `' |
		sed 's/`:.*/`/' | grep -o '`[^`]*`' | tr -d '`' |
		sort -u >"$D/probes.doc"
	same "guest probes (kernel/probes.tab vs kernel/README.md)" \
		"$D/probes.code" "$D/probes.doc"
fi

# ---- lint ------------------------------------------------------------------
if ! command -v mandoc >/dev/null 2>&1; then
	t_skip_check "mandoc lint: mandoc not found (run make deps)"
else
	for page in "$MAN1" "$MAN7" "$MAN3_DIR"/*.3; do
		out=$(mandoc -T lint -W warning "$page" 2>&1)
		rc=$?
		if [ $rc = 0 ] && [ -z "$out" ]; then
			t_ok "mandoc -T lint -W warning ${page#"$T_TOP"/}: clean"
		else
			fail "mandoc -T lint -W warning ${page#"$T_TOP"/}: exit $rc"
			echo "$out" | sed 's/^/    /' | head -n 20
		fi
	done
fi

t_done

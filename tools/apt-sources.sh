#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Reading the machine's own apt configuration, for tools/deps.sh (a deb-src
# entry for apt-get source) and tools/fresh-root.sh (the mirror and keyring
# of a debootstrap).  Sourced, POSIX sh.  Modes of deb822_awk/oneline_awk:
#   have     print "yes" for an enabled deb-src entry
#   derive   print a deb-src entry for each enabled deb entry of release CN;
#            with a third argument SUITE (e.g. "trixie", the next release's
#            sources), only the entries carrying CN itself (the main
#            archive), with SUITE as their only suite
#   mirror   print "URI KEYRING" of the first enabled deb entry of suite CN
#            (KEYRING empty when the entry names none or holds an inline key)

srcdir=${HB_APT_SOURCES_DIR:-/etc/apt/sources.list.d}
srclist=${HB_APT_SOURCES_LIST:-/etc/apt/sources.list}

# apt reads only *.list and *.sources in sources.list.d; other names
# (*.disabled, *.save, ...) are switched off
deb822_files() {
	ls "$srcdir"/*.sources 2>/dev/null || true
}

oneline_files() {
	[ -f "$srclist" ] && echo "$srclist"
	ls "$srcdir"/*.list 2>/dev/null || true
}

# deb822 stanzas (Enabled: no is skipped).  mode=have: print "yes" for an
# enabled deb-src stanza.  mode=derive: print a deb-src stanza for every
# enabled "deb" stanza that serves this release (suites CODENAME or
# CODENAME-*), keeping its other fields (URIs, Components, Signed-By, even
# an inline key, Architectures, ...) as they are.
deb822_awk() {
	[ -n "$(deb822_files)" ] || return 0
	awk -v mode="$1" -v cn="$2" -v to="${3:-}" '
	function flush(i) {
		if (n > 0 && enabled != "no") {
			if (mode == "have" && types ~ /(^| )deb-src( |$)/)
				print "yes"
			if (mode == "mirror" && types ~ /(^| )deb( |$)/ &&
			    (" " suites " ") ~ (" " cn " ") && !printed++)
				print uri, (keyring ~ /^\// ? keyring : "")
			if (mode == "derive" && types ~ /(^| )deb( |$)/ &&
			    suites != "") {
				if (out++)
					print ""
				print "Types: deb-src"
				for (i = 1; i <= n; i++)
					print line[i]
			}
		}
		n = 0; types = ""; enabled = ""; suites = ""; keep = 0
		uri = ""; keyring = ""
	}
	FNR == 1 { flush() }
	/^[ \t]*#/ { next }
	/^[ \t]*$/ { flush(); next }
	/^[ \t]/ { if (keep) line[++n] = $0; next }
	{
		key = tolower(substr($0, 1, index($0, ":") - 1))
		val = substr($0, index($0, ":") + 1)
		gsub(/^[ \t]+|[ \t]+$/, "", val)
		keep = 0
		if (key == "types") {
			types = " " val " "
			gsub(/[ \t]+/, " ", types)
		} else if (key == "enabled") {
			enabled = tolower(val)
		} else if (key == "suites") {
			m = split(val, s, /[ \t]+/)
			for (i = 1; i <= m; i++) {
				if (to != "" && mode == "derive") {
					if (s[i] == cn)
						suites = to
				} else if (s[i] == cn || index(s[i], cn "-") == 1)
					suites = suites (suites == "" ? "" : " ") s[i]
			}
			line[++n] = "Suites: " suites
		} else {
			if (key == "uris")
				uri = (split(val, u, /[ \t]+/) ? u[1] : "")
			if (key == "signed-by")
				keyring = val
			line[++n] = $0
			keep = 1
		}
	}
	END { flush() }' $(deb822_files) </dev/null
}

# one-line entries: "deb [options] URI SUITE COMPONENT..." becomes
# "deb-src [options] URI SUITE COMPONENT..." for this release's suites
oneline_awk() {
	[ -n "$(oneline_files)" ] || return 0
	awk -v mode="$1" -v cn="$2" -v to="${3:-}" '
	/^[ \t]*deb-src[ \t]/ { if (mode == "have") print "yes"; next }
	/^[ \t]*deb[ \t]/ {
		if (mode == "have")
			next
		rest = $0
		sub(/^[ \t]*deb[ \t]+/, "", rest)
		opts = ""
		if (rest ~ /^\[/) {
			opts = substr(rest, 1, index(rest, "]")) " "
			rest = substr(rest, index(rest, "]") + 1)
		}
		split(rest, w, /[ \t]+/)
		j = (w[1] == "") ? 2 : 1
		if (mode == "mirror" && w[j + 1] == cn && !printed++) {
			k = ""
			if (match(opts, /signed-by=[^] ]+/))
				k = substr(opts, RSTART + 10, RLENGTH - 10)
			print w[j], k
		}
		if (mode == "derive" && to != "" && w[j + 1] == cn) {
			comps = ""
			for (i = j + 2; w[i] != ""; i++)
				comps = comps " " w[i]
			print "deb-src " opts w[j] " " to comps
		} else if (mode == "derive" && to == "" &&
		    (w[j + 1] == cn || index(w[j + 1], cn "-") == 1)) {
			sub(/^[ \t]+/, "", rest)
			print "deb-src " opts rest
		}
	}' $(oneline_files) </dev/null
}

# deb-src entries of release CODENAME (or of SUITE from CODENAME's
# mirrors), for tools/fio-build.sh: deb822 stanzas / one-line entries
apt_src_deb822() {
	deb822_awk derive "$1" "${2:-}"
}

apt_src_oneline() {
	oneline_awk derive "$1" "${2:-}"
}

# A private apt state in directory DIR, for fetching another suite's
# sources without touching the system's: apt_state_sources DIR CODENAME
# SUITE writes DIR/sources.list.d/src.{sources,list}, the deb-src entries
# for SUITE derived from CODENAME's enabled entries (false when there are
# none); apt_state_run DIR ARGS... runs apt-get on that state.
apt_state_sources() {
	mkdir -p "$1/sources.list.d" "$1/lists/partial"
	apt_state_write "$1/sources.list.d/src.sources" \
		"$(apt_src_deb822 "$2" "$3")"
	apt_state_write "$1/sources.list.d/src.list" \
		"$(apt_src_oneline "$2" "$3")"
	ls "$1/sources.list.d/"* >/dev/null 2>&1
}

# FILE holds TEXT, or is gone when TEXT is empty
apt_state_write() {
	if [ -n "$2" ]; then
		printf '%s\n' "$2" >"$1"
	else
		rm -f "$1"
	fi
}

apt_state_run() {
	apt_state_dir=$1
	shift
	apt-get -q -o Dir::Etc::SourceList=/dev/null \
		-o Dir::Etc::SourceParts="$apt_state_dir/sources.list.d" \
		-o Dir::State::Lists="$apt_state_dir/lists" \
		-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= "$@"
}

# The same private apt state for other suites' binary packages (for
# apt-get download, kernel/kbuild.sh's linux-source-X.Y):
# apt_state_binaries DIR FROM SUITE [FROM SUITE]... writes, for each pair,
# the entries of this machine that carry suite FROM with SUITE as their
# only suite (e.g. bookworm-security -> bullseye-security: the security
# archive's URI), Types deb instead of deb-src, into DIR/sources.list.d/
# bin.{sources,list}; false when there are none.  Run apt-get on it with
# apt_state_run DIR ARGS...
apt_state_binaries() {
	apt_state_bin_dir=$1
	apt_state_bin_822= apt_state_bin_one=
	shift
	mkdir -p "$apt_state_bin_dir/sources.list.d" \
		"$apt_state_bin_dir/lists/partial"
	while [ $# -ge 2 ]; do
		apt_state_bin_x=$(apt_src_deb822 "$1" "$2" |
			sed 's/^Types: deb-src$/Types: deb/')
		[ -n "$apt_state_bin_x" ] && apt_state_bin_822="$apt_state_bin_822${apt_state_bin_822:+

}$apt_state_bin_x"
		apt_state_bin_x=$(apt_src_oneline "$1" "$2" | sed 's/^deb-src /deb /')
		[ -n "$apt_state_bin_x" ] && apt_state_bin_one="$apt_state_bin_one${apt_state_bin_one:+
}$apt_state_bin_x"
		shift 2
	done
	apt_state_write "$apt_state_bin_dir/sources.list.d/bin.sources" \
		"$apt_state_bin_822"
	apt_state_write "$apt_state_bin_dir/sources.list.d/bin.list" \
		"$apt_state_bin_one"
	ls "$apt_state_bin_dir/sources.list.d/"* >/dev/null 2>&1
}

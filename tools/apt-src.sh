# SPDX-License-Identifier: GPL-2.0-only
#
# Derive deb-src entries from the machine's own enabled apt sources, as an
# admin would write them: same URIs, components, Signed-By keyring (or
# inline key) and other fields; only Types and Suites change.  No mirror
# host is written in here.  Sourced by tools/ scripts (POSIX sh).
#
#   apt_src_deb822 CODENAME [SUITE]   deb822 stanzas on stdout
#   apt_src_oneline CODENAME [SUITE]  one-line entries on stdout
#
# Every enabled "deb" entry that serves release CODENAME is used.  Without
# SUITE, its suites CODENAME and CODENAME-* are kept (the release's own
# source packages).  With SUITE (e.g. "trixie" for the next release's
# source), only entries carrying CODENAME itself -- the main archive, not
# -security or -updates, which live elsewhere or have no such suite -- are
# used, with SUITE as their only suite.

apt_src_dir=${APT_SRC_DIR:-/etc/apt/sources.list.d}

# apt reads only *.list and *.sources in sources.list.d; other names
# (*.disabled, *.save, ...) are switched off
apt_src_deb822_files() {
	ls "$apt_src_dir"/*.sources 2>/dev/null || true
}

apt_src_oneline_files() {
	[ -f /etc/apt/sources.list ] && echo /etc/apt/sources.list
	ls "$apt_src_dir"/*.list 2>/dev/null || true
}

apt_src_deb822() {
	# shellcheck disable=SC2046
	awk -v cn="$1" -v to="${2:-}" '
	function flush(i) {
		if (n > 0 && enabled != "no" && types ~ / deb / &&
		    suites != "") {
			if (out++)
				print ""
			print "Types: deb-src"
			for (i = 1; i <= n; i++)
				print (i == si ? "Suites: " suites : line[i])
		}
		n = 0; types = ""; enabled = ""; suites = ""; keep = 0; si = 0
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
				if (to != "" && s[i] == cn)
					suites = to
				else if (to == "" && (s[i] == cn ||
				    index(s[i], cn "-") == 1))
					suites = suites (suites == "" ? "" : " ") s[i]
			}
			si = ++n
		} else {
			line[++n] = $0
			keep = 1
		}
	}
	END { flush() }' $(apt_src_deb822_files) </dev/null
}

apt_src_oneline() {
	# shellcheck disable=SC2046
	awk -v cn="$1" -v to="${2:-}" '
	/^[ \t]*deb[ \t]/ {
		rest = $0
		sub(/^[ \t]*deb[ \t]+/, "", rest)
		opts = ""
		if (rest ~ /^\[/) {
			opts = substr(rest, 1, index(rest, "]")) " "
			rest = substr(rest, index(rest, "]") + 1)
		}
		sub(/^[ \t]+/, "", rest)
		n = split(rest, w, /[ \t]+/)
		if (to != "" && w[2] == cn) {
			comps = ""
			for (i = 3; i <= n; i++)
				comps = comps " " w[i]
			print "deb-src " opts w[1] " " to comps
		} else if (to == "" && (w[2] == cn || index(w[2], cn "-") == 1)) {
			print "deb-src " opts rest
		}
	}' $(apt_src_oneline_files) </dev/null
}

#!/bin/sh
# manpages.sh: the man pages say what the binaries and the tables in the
# source say. Every long option `hutch run --help` and `hutch probe --help`
# print is documented in hutch.1 (and each run option has its own .TP entry),
# every error code is in ERROR CODES, every helper stage and status code is
# in hutch-exec.8 with its number, every limit is in hutch-policy.5, the
# cross references hold, and groff (and mandoc, where installed) find
# nothing to warn about. The pages come from $HUTCH_SRCDIR/man, else from
# ../../man next to this script; with HUTCH_INSTALLED=1, from man -w.
. "$(dirname "$0")/lib.sh"

tap_tmpdir manpages

srcdir=${HUTCH_SRCDIR:-$here/../..}
mandir=$srcdir/man

# The 18 stable codes of DESIGN.md; shared/errors.c is checked against them.
codes="invalid_request policy_violation policy_invalid sandbox_unavailable
sandbox_probe_failed helper_not_found spawn_error exec_failed timeout
output_overflow frame_oversized protocol_error drain_timeout crash busy
cancelled state_lost internal"

# find_page NAME SECTION: copy the page's groff source to $tmp/NAME.SECTION.
find_page() {
	if [ -f "$mandir/$1.$2" ]; then
		cp "$mandir/$1.$2" "$tmp/$1.$2"
		return 0
	fi
	[ "${HUTCH_INSTALLED:-0}" = 1 ] || return 1
	command -v man >/dev/null 2>&1 || return 1
	p=$(man -w "$2" "$1" 2>/dev/null) || return 1
	[ -f "$p" ] || return 1
	case $p in
	*.gz) gzip -dc "$p" >"$tmp/$1.$2" ;;
	*.bz2) bzip2 -dc "$p" >"$tmp/$1.$2" ;;
	*.xz) xz -dc "$p" >"$tmp/$1.$2" ;;
	*.zst) zstd -dcq "$p" >"$tmp/$1.$2" ;;
	*) cp "$p" "$tmp/$1.$2" ;;
	esac
}

pages="hutch.1 hutch-policy.5 hutch-exec.8"
missing=
for pg in $pages; do
	find_page "${pg%.*}" "${pg##*.}" || missing="$missing $pg"
done
if [ -n "$missing" ]; then
	if [ "${HUTCH_INSTALLED:-0}" = 1 ]; then
		skip "man pages" "not installed where man -w finds them:$missing"
		tap_done
		exit
	fi
	not_ok "man pages present in $mandir (missing:$missing)"
	tap_done
	exit
fi
ok "man pages present: $pages"

# norm FILE: groff source with \- as -, font escapes and zero-width \& gone.
norm() {
	sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\&//g' "$1"
}
for pg in $pages; do
	norm "$tmp/$pg" >"$tmp/$pg.txt"
done

# section FILE NAME: the normalised lines of one .SH section.
section() {
	awk -v want=".SH $2" '
		/^\.SH / { t = $0; gsub(/"/, "", t); on = (t == want); next }
		on' "$1"
}

# tags FILE: the line after every .TP (the tags of tagged paragraphs).
tags() {
	awk 'tp { print; tp = 0 } /^\.TP/ { tp = 1 }' "$1"
}

# has_opt FILE OPTION: OPTION appears, not as the prefix of a longer one.
has_opt() {
	grep -q -E -- "$2([^a-z0-9-]|\$)" "$1"
}

# ---- options ----
if ! "$HUTCH" run --help >"$tmp/run-help" 2>&1; then
	not_ok "hutch run --help exits 0"
fi
run_opts=$(grep -o -E -- '--[a-z][a-z0-9-]*' "$tmp/run-help" | sort -u)
if [ -z "$run_opts" ]; then
	not_ok "hutch run --help lists options"
else
	n=0 bad=
	for o in $run_opts; do
		n=$((n + 1))
		has_opt "$tmp/hutch.1.txt" "$o" || bad="$bad $o"
	done
	if [ -z "$bad" ]; then ok "hutch.1 mentions all $n options of hutch run --help"
	else not_ok "hutch.1 mentions every hutch run option (missing:$bad)"; fi

	section "$tmp/hutch.1.txt" OPTIONS >"$tmp/options"
	tags "$tmp/options" >"$tmp/option-tags"
	bad=
	for o in $run_opts; do
		has_opt "$tmp/option-tags" "$o" || bad="$bad $o"
	done
	if [ -z "$bad" ]; then ok "OPTIONS in hutch.1 has a .TP entry for each hutch run option"
	else not_ok "OPTIONS in hutch.1 has a .TP entry for each option (missing:$bad)"; fi

	# Nothing documented that the binary no longer has.
	extra=
	for o in $(grep -o -E -- '--[a-z][a-z0-9-]*' "$tmp/option-tags" | sort -u); do
		printf '%s\n' "$run_opts" | grep -q -x -- "$o" || extra="$extra $o"
	done
	if [ -z "$extra" ]; then ok "OPTIONS in hutch.1 documents no option hutch run lacks"
	else not_ok "OPTIONS in hutch.1 documents options hutch run lacks:$extra"; fi
fi

if "$HUTCH" probe --help >"$tmp/probe-help" 2>&1; then
	bad=
	for o in $(grep -o -E -- '--[a-z][a-z0-9-]*' "$tmp/probe-help" | sort -u); do
		has_opt "$tmp/hutch.1.txt" "$o" || bad="$bad $o"
	done
	if [ -z "$bad" ]; then ok "hutch.1 mentions every option of hutch probe --help"
	else not_ok "hutch.1 mentions every hutch probe option (missing:$bad)"; fi
else
	not_ok "hutch probe --help exits 0"
fi

# hutch serve: each option of its --help has a .TP entry in SERVE OPTIONS.
if "$HUTCH" serve --help >"$tmp/serve-help" 2>&1; then
	section "$tmp/hutch.1.txt" "SERVE OPTIONS" >"$tmp/serve-options"
	tags "$tmp/serve-options" >"$tmp/serve-tags"
	bad=
	for o in $(grep -o -E -- '--[a-z][a-z0-9-]*' "$tmp/serve-help" | sort -u); do
		has_opt "$tmp/serve-tags" "$o" || bad="$bad $o"
	done
	if [ -z "$bad" ]; then ok "SERVE OPTIONS in hutch.1 has a .TP entry for each hutch serve option"
	else not_ok "SERVE OPTIONS in hutch.1 has a .TP entry for each option (missing:$bad)"; fi
else
	skip "hutch serve options" "this hutch has no serve command"
fi

# Every verb of the usage text is in the SYNOPSIS; the policy subcommands too.
section "$tmp/hutch.1.txt" SYNOPSIS >"$tmp/synopsis"
bad=
for v in run serve probe policy list show check digest --help --version; do
	grep -q -E -- "(^|[^a-z-])$v([^a-z-]|\$)" "$tmp/synopsis" || bad="$bad $v"
done
if [ -z "$bad" ]; then ok "SYNOPSIS of hutch.1 names every verb"
else not_ok "SYNOPSIS of hutch.1 names every verb (missing:$bad)"; fi
if "$HUTCH" --help >"$tmp/help" 2>&1; then
	bad=
	for v in $(awk '{ for (i = 1; i < NF; i++) if ($i == "hutch" && $(i + 1) ~ /^[a-z]+$/) print $(i + 1) }' "$tmp/help" | sort -u); do
		grep -q -E -- "hutch $v|^\\.SY \"hutch $v\"" "$tmp/synopsis" || bad="$bad $v"
	done
	if [ -z "$bad" ]; then ok "SYNOPSIS of hutch.1 has every verb of hutch --help"
	else not_ok "SYNOPSIS of hutch.1 has every verb of hutch --help (missing:$bad)"; fi
else
	not_ok "hutch --help exits 0"
fi

# ---- error codes ----
if [ -f "$srcdir/shared/errors.c" ]; then
	src_codes=$(sed -n 's/^[[:space:]]*\[HUTCH_ERR_[A-Z_]*\] = { "\([a-z_]*\)".*/\1/p' "$srcdir/shared/errors.c" |
		grep -v -x none | sort)
	want=$(printf '%s\n' $codes | sort)
	if [ "$src_codes" = "$want" ]; then
		ok "shared/errors.c has exactly the 18 codes of DESIGN.md"
	else
		not_ok "shared/errors.c has exactly the 18 codes of DESIGN.md"
		diag "errors.c: $(echo $src_codes)" "expected: $(echo $want)"
		codes=$(printf '%s\n' $codes $src_codes | sort -u)
	fi
else
	skip "shared/errors.c against DESIGN.md" "no source tree at $srcdir"
fi
section "$tmp/hutch.1.txt" "ERROR CODES" >"$tmp/errors"
tags "$tmp/errors" >"$tmp/error-tags"
bad=
for c in $codes; do
	grep -q -E "(^|[^a-z_])$c([^a-z_]|\$)" "$tmp/error-tags" || bad="$bad $c"
done
if [ -z "$bad" ]; then ok "ERROR CODES in hutch.1 has an entry for every code"
else not_ok "ERROR CODES in hutch.1 has an entry for every code (missing:$bad)"; fi

# Exit statuses in ERROR CODES match the table: "code (N" at the tag.
if [ -f "$srcdir/shared/errors.c" ] && [ -f "$srcdir/shared/errors.h" ]; then
	bad=
	for c in $codes; do
		macro=$(sed -n "s/.*{ \"$c\", \"[^\"]*\", \\([A-Z_0-9]*\\) }.*/\\1/p" "$srcdir/shared/errors.c")
		case $macro in
		[0-9]*) st=$macro ;;
		*) st=$(sed -n "s/^#define $macro \\([0-9]*\\).*/\\1/p" "$srcdir/shared/errors.h") ;;
		esac
		grep -q -E "(^|[^a-z_])$c\"? \"? ?\\($st" "$tmp/error-tags" || bad="$bad $c($st)"
	done
	if [ -z "$bad" ]; then ok "ERROR CODES in hutch.1 gives each code its exit status"
	else not_ok "ERROR CODES in hutch.1 gives each code its exit status (wrong:$bad)"; fi
fi

# ---- helper stages and status codes ----
if [ -f "$srcdir/shared/status.c" ] && [ -f "$srcdir/shared/status.h" ]; then
	# enum hutch_stage: STAGE_SELF_CHECK = 1, then one more per line.
	awk '/^enum hutch_stage/ { on = 1; next }
	     on && /STAGE_MAX/ { exit }
	     on && match($0, /STAGE_[A-Z_0-9]+/) {
		id = substr($0, RSTART, RLENGTH)
		if ($0 ~ /= *[0-9]+/) { v = $0; sub(/.*= */, "", v); sub(/[^0-9].*/, "", v); n = v + 0 }
		else n++
		print id, n
	     }' "$srcdir/shared/status.h" >"$tmp/stage-nums"
	sed -n 's/^[[:space:]]*\[\(STAGE_[A-Z_0-9]*\)\] = "\([a-z_]*\)".*/\1 \2/p' \
		"$srcdir/shared/status.c" >"$tmp/stage-names"
	awk '/^enum hutch_status_code/ { on = 1; next }
	     on && /CODE_MAX/ { exit }
	     on && match($0, /HUTCH_[A-Z_]+ *= *[0-9]+/) {
		s = substr($0, RSTART, RLENGTH); split(s, a, / *= */); print a[1], a[2]
	     }' "$srcdir/shared/status.h" >"$tmp/code-nums"
	sed -n 's/^[[:space:]]*\[\(HUTCH_[A-Z_]*\)\] = "\([a-z_]*\)".*/\1 \2/p' \
		"$srcdir/shared/status.c" >"$tmp/code-names"
	# In hutch-exec.8 each is a ".TP" whose tag is ".B N", then ".B name".
	awk 'prev ~ /^\.B [0-9]+$/ && /^\.B [a-z_]+$/ { print substr(prev, 4), substr($0, 4) }
	     { prev = $0 }' "$tmp/hutch-exec.8.txt" >"$tmp/exec-pairs"

	check_table() { # WHAT NUMS NAMES
		n=0 bad=
		while read -r id num; do
			name=$(awk -v id="$id" '$1 == id { print $2 }' "$3")
			[ -n "$name" ] || { bad="$bad $id(no name)"; continue; }
			n=$((n + 1))
			grep -q -x "$num $name" "$tmp/exec-pairs" || bad="$bad $num:$name"
		done <"$2"
		if [ "$n" -gt 0 ] && [ -z "$bad" ]; then
			ok "hutch-exec.8 lists the $n $1 with their numbers"
		else
			not_ok "hutch-exec.8 lists the $1 with their numbers (missing or wrong:$bad)"
		fi
	}
	check_table "stages of shared/status.c" "$tmp/stage-nums" "$tmp/stage-names"
	check_table "status codes of shared/status.c" "$tmp/code-nums" "$tmp/code-names"
	if grep -q -i 'magic.*0x48535431' "$tmp/hutch-exec.8.txt" &&
		grep -q 'HUTCH_STATUS_MAGIC 0x48535431u' "$srcdir/shared/status.h"; then
		ok "hutch-exec.8 gives the status record's magic"
	else
		not_ok "hutch-exec.8 gives the status record's magic as in shared/status.h"
	fi
else
	skip "stage and code tables in hutch-exec.8" "no source tree at $srcdir"
fi

# ---- policy limits ----
if [ -f "$srcdir/frontend/doc/policy.c" ]; then
	limits=$(sed -n 's/^[[:space:]]*\[LIM_[A-Z_]*\] = { "\([a-z_]*\)".*/\1/p' "$srcdir/frontend/doc/policy.c")
	section "$tmp/hutch-policy.5.txt" LIMITS >"$tmp/limits"
	tags "$tmp/limits" >"$tmp/limit-tags"
	n=0 bad=
	for l in $limits; do
		n=$((n + 1))
		grep -q -E "(^|[^a-z_])$l([^a-z_]|\$)" "$tmp/limit-tags" || bad="$bad $l"
	done
	if [ "$n" -gt 0 ] && [ -z "$bad" ]; then ok "LIMITS in hutch-policy.5 has all $n limits of policy.c"
	else not_ok "LIMITS in hutch-policy.5 has every limit of policy.c (missing:$bad)"; fi
else
	skip "limits in hutch-policy.5" "no source tree at $srcdir"
fi

# ---- structure and cross references ----
bad=
for s in NAME SYNOPSIS DESCRIPTION OPTIONS "THE JAIL" "REQUEST DOCUMENT" \
	"RESULT DOCUMENT" "ERROR CODES" "EXIT STATUS" PROBE "FRAME MODE" "SERVE OPTIONS" \
	ENVIRONMENT FILES EXAMPLES NOTES "SEE ALSO"; do
	grep -q -x -E "\\.SH \"?$s\"?" "$tmp/hutch.1.txt" || bad="$bad '$s'"
done
if [ -z "$bad" ]; then ok "hutch.1 has every required section"
else not_ok "hutch.1 has every required section (missing:$bad)"; fi

# xref FILE PAGE SECTION: FILE refers to PAGE(SECTION).
xref() {
	grep -q -E "(^|[^a-z-])$2[ \"]*\\($3\\)" "$tmp/$1.txt"
}
bad=
for r in "hutch.1 hutch-policy 5" "hutch.1 hutch-exec 8" "hutch.1 seccomp 2" \
	"hutch.1 landlock 7" "hutch.1 namespaces 7" "hutch.1 bwrap 1" \
	"hutch.1 hutch-protocol 7" "hutch-policy.5 hutch 1" "hutch-policy.5 hutch-exec 8" \
	"hutch-exec.8 hutch 1" "hutch-exec.8 hutch-policy 5"; do
	set -- $r
	xref "$1" "$2" "$3" || bad="$bad $1->$2($3)"
done
if [ -z "$bad" ]; then ok "cross references between the pages hold"
else not_ok "cross references hold (missing:$bad)"; fi

bad=
for pg in $pages; do
	name=${pg%.*} sec=${pg##*.}
	upper=$(printf '%s' "$name" | tr 'a-z' 'A-Z')
	grep -q -E "^\\.TH \"?$upper\"? $sec " "$tmp/$pg.txt" || bad="$bad $pg"
done
if [ -z "$bad" ]; then ok "each page's .TH names its file and section"
else not_ok "each page's .TH names its file and section (wrong:$bad)"; fi

# ---- formatters ----
if command -v groff >/dev/null 2>&1; then
	for pg in $pages; do
		if groff -ww -man -Tutf8 -z "$tmp/$pg" >"$tmp/groff.out" 2>&1 && [ ! -s "$tmp/groff.out" ]; then
			ok "groff -ww -man finds nothing to warn about in $pg"
		else
			not_ok "groff -ww -man finds nothing to warn about in $pg"
			diag "$(head -n 10 "$tmp/groff.out")"
		fi
	done
else
	skip "groff warnings" "groff is not installed"
fi
if command -v mandoc >/dev/null 2>&1; then
	for pg in $pages; do
		if mandoc -Tlint -Wwarning "$tmp/$pg" >"$tmp/mandoc.out" 2>&1 && [ ! -s "$tmp/mandoc.out" ]; then
			ok "mandoc -Tlint finds no warning in $pg"
		else
			not_ok "mandoc -Tlint finds no warning in $pg"
			diag "$(head -n 10 "$tmp/mandoc.out")"
		fi
	done
else
	skip "mandoc lint" "mandoc is not installed"
fi

tap_done

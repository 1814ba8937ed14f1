#!/bin/sh
# tests/vm/suites/escape.sh: the escape suite (tests/escape/run.sh, every
# probe under every shipped policy, with its no-jail control) as root and as
# nobody, with the probes built on the host. HUTCH_ESCAPE_POLICIES,
# HUTCH_ESCAPE_ONLY (root) and HUTCH_ESCAPE_ONLY_NOBODY (set by run.sh:
# README; empty: every probe) choose what runs, and HUTCH_ESCAPE_BOMB_MEM
# the memory bombs' --memory (TCG is slow to fill 1 GiB). Its closing
# "N passed, N failed" becomes that many TAP lines; each failed row is
# shown as a comment above them.
. "$HUTCH_SRCDIR/tests/integ/lib.sh"
e=$HUTCH_SRCDIR/tests/escape

for user in root nobody; do
	t0=$(date +%s)
	only=${HUTCH_ESCAPE_ONLY:-}
	[ "$user" = nobody ] && only=${HUTCH_ESCAPE_ONLY_NOBODY:-}
	out=$(su "$user" -s /bin/sh -c "cd / && env -i PATH=/usr/bin:/bin \
		HUTCH='$HUTCH' HUTCH_ESCAPE_PROBES='$e/probes' \
		HUTCH_ESCAPE_POLICIES='${HUTCH_ESCAPE_POLICIES:-}' HUTCH_ESCAPE_ONLY='$only' \
		HUTCH_ESCAPE_BOMB_MEM='${HUTCH_ESCAPE_BOMB_MEM:-}' \
		sh '$e/run.sh'" 2>&1)
	line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1)
	if [ -z "$line" ]; then
		not_ok "[$user escape] no summary line"
		printf '%s\n' "$out" | tail -n 10 | sed 's/^/# /'
		continue
	fi
	p=${line%% passed*}
	f=${line#*, }
	f=${f%% failed}
	i=0
	while [ $i -lt "$p" ]; do i=$((i + 1)); ok "[$user escape] row $i"; done
	printf '%s\n' "$out" | grep -E '^(FAIL|not ok)' | sed "s|^|# [$user escape] |"
	i=0
	while [ $i -lt "$f" ]; do i=$((i + 1)); not_ok "[$user escape] failure $i of $f (rows above)"; done
	diag "$user escape: $line, $(($(date +%s) - t0)) s"
done
tap_done

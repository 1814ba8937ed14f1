#!/bin/sh
# tests/vm/suites/integ.sh: the integration tests (tests/integ/*.sh)
# against the installed package, as root and as nobody, the way tests/ci.sh
# runs its unprivileged round. HUTCH_VM_INTEG names the scripts to run
# ("run-basics run-limits", or "all"); README says what runs in CI.
# A failed test keeps its TAP line, with the user and script in front.
. "$HUTCH_SRCDIR/tests/integ/lib.sh"

# one USER SCRIPT: the script's TAP, renumbered into this suite's.
one() {
	t0=$(date +%s)
	out=$(su "$1" -s /bin/sh -c "cd / && env -i PATH=/usr/bin:/bin \
		HUTCH='$HUTCH' HUTCH_EXEC='$HUTCH_EXEC' HUTCH_PROGS='$HUTCH_PROGS' \
		HUTCH_MUST_WORK='${HUTCH_MUST_WORK:-0}' HUTCH_INSTALLED=1 sh '$2'" 2>&1)
	p=0
	f=0
	while IFS= read -r line; do
		case $line in
		"ok "*) p=$((p + 1)); ok "[$1 $(basename "$2")] ${line#* - }" ;;
		"not ok "*) f=$((f + 1)); not_ok "[$1 $(basename "$2")] ${line#* - }" ;;
		"# "*) [ "$f" = 0 ] || echo "$line" ;;
		esac
	done <<-EOF
		$out
	EOF
	[ "$p" != 0 ] || [ "$f" != 0 ] || not_ok "[$1 $(basename "$2")] ran nothing"
	diag "$1 $(basename "$2"): $p passed, $f failed, $(($(date +%s) - t0)) s"
}

for user in root nobody; do
	for t in "$HUTCH_SRCDIR"/tests/integ/*.sh; do
		name=$(basename "$t" .sh)
		[ "$name" = lib ] && continue
		case " ${HUTCH_VM_INTEG:-all} " in *" all "* | *" $name "*) ;; *) continue ;; esac
		one "$user" "$t"
	done
done
tap_done

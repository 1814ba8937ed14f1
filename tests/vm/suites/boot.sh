#!/bin/sh
# tests/vm/suites/boot.sh: the guest is what the matrix claims: the kernel
# asked for, systemd as PID 1 with a running system, the package's hutch.
. "$HUTCH_SRCDIR/tests/integ/lib.sh"

case $(uname -r) in
"$HUTCH_VM_KERNEL".*) ok "kernel $(uname -r) is the $HUTCH_VM_KERNEL asked for" ;;
*) not_ok "kernel $(uname -r) is not the $HUTCH_VM_KERNEL asked for" ;;
esac
same "PID 1 is systemd" systemd "$(cat /proc/1/comm)"
state=$(systemctl is-system-running 2>&1)
same "systemctl is-system-running" running "$state"
[ "$state" = running ] || diag "$(systemctl --failed --no-legend 2>&1)"
check "the package's hutch runs" "$HUTCH" --version
check "hutch-exec is the package's" test -x "$HUTCH_EXEC"
tap_done

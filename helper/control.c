/* control.c: pid 1 hands descriptors to the frontend over the control
 * socket (HUTCH_CONTROL_FD): the work dir's tmpfs (files are collected
 * from it after the jail is gone) and the seccomp listener (denied calls
 * are reported by name). One tagged byte with one fd each.
 * Phase 2: async-signal-safe. */
#include "config.h"

#include "fd-pass.h"
#include "helper.h"
#include "hutch-abi.h"

void control_send_fd(int fd, char tag, enum hutch_stage stage, uint32_t item)
{
	int r = fdpass_send(HUTCH_CONTROL_FD, tag, fd);

	if (r < 0)
		fail(stage, item, -r);
}

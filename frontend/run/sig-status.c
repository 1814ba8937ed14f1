/* sig-status.c: the signals spawn.c resets in a helper's child, from
 * /proc/self/status (sig-status.h). A mask is taken only from a whole
 * line: one cut short by the read (a long Groups line pushes these past
 * the buffer) would parse as fewer signals, and a handler left in place
 * could run in the vforked child; anything but a whole line: all of
 * them. Frontend only. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "run/sig-status.h"

uint64_t sig_status_all(void)
{
	return ~((1ull << (SIGKILL - 1)) | (1ull << (SIGSTOP - 1)));
}

/* A hexadecimal mask of /proc/self/status (key with its newline and
 * tab), followed by the end of its line. */
static int status_mask(const char *buf, const char *key, uint64_t *ret)
{
	const char *p = strstr(buf, key);
	char *end;

	if (!p)
		return -1;
	p += strlen(key);
	errno = 0;
	*ret = strtoull(p, &end, 16);
	return errno || end == p || *end != '\n' ? -1 : 0;
}

uint64_t sig_status_reset(const char *status)
{
	uint64_t ign, cgt;

	if (status_mask(status, "\nSigIgn:\t", &ign) < 0 ||
	    status_mask(status, "\nSigCgt:\t", &cgt) < 0)
		return sig_status_all();
	return (ign | cgt) & sig_status_all();
}

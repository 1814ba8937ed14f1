/* self-check.c: hutch-exec is never installed setuid, setgid or with file
 * capabilities; if it finds itself so, it refuses before reading anything.
 * The kernel's AT_SECURE covers every way exec can raise privilege; the
 * mode bits and the xattr catch a mis-installed file even for a caller
 * (root) whom they would not elevate. */
#include "config.h"

#include <errno.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "helper.h"

void self_check(void)
{
	struct stat st;
	ssize_t n;

	if (getauxval(AT_SECURE) || getuid() != geteuid() || getgid() != getegid())
		fail_code(HUTCH_PRIVILEGED_BINARY, STAGE_SELF_CHECK, SITE_SELF_CHECK_SECURE, 0);
	if (stat("/proc/self/exe", &st) < 0)
		fail(STAGE_SELF_CHECK, SITE_SELF_CHECK_SETID_BITS, errno);
	if (st.st_mode & (S_ISUID | S_ISGID))
		fail_code(HUTCH_PRIVILEGED_BINARY, STAGE_SELF_CHECK, SITE_SELF_CHECK_SETID_BITS, 0);
	n = getxattr("/proc/self/exe", "security.capability", NULL, 0);
	if (n > 0)
		fail_code(HUTCH_PRIVILEGED_BINARY, STAGE_SELF_CHECK, SITE_SELF_CHECK_FILE_CAPS, 0);
	if (n < 0 && errno != ENODATA && errno != ENOTSUP)
		fail(STAGE_SELF_CHECK, SITE_SELF_CHECK_FILE_CAPS, errno);
}

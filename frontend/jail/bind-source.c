/* bind-source.c: see bind-source.h. The filesystem a path is on, and those
 * mounted below it, come from /proc/self/mountinfo matched by mount id
 * (statx), which also sees through bind mounts and overmounts. Anything
 * that cannot be established is refused. Frontend only. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "doc/path-util.h"
#include "jail/bind-source.h"
#include "jail/cache.h"

int bind_source_pseudo_fs(const char *fstype)
{
	static const char *const pseudo[] = {
		"proc",	      "sysfs",	    "devtmpfs", "devpts",   "cgroup",	  "cgroup2",
		"debugfs",    "securityfs", "tracefs",	"bpf",	    "configfs",	  "pstore",
		"efivarfs",   "fusectl",    "mqueue",	"binfmt_misc", "selinuxfs", "nsfs",
		"rpc_pipefs", "hugetlbfs",  NULL
	};

	for (size_t i = 0; pseudo[i]; i++)
		if (strcmp(fstype, pseudo[i]) == 0)
			return 1;
	return 0;
}

/* Undo mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

/* One mountinfo line: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS] - TYPE ..." */
static int parse_line(char *line, unsigned long long *id, char **point, char **fstype)
{
	char *save = NULL, *f[5], *sep = strstr(line, " - ");

	if (!sep)
		return -1;
	*sep = '\0';
	for (int i = 0; i < 5; i++)
		if (!(f[i] = strtok_r(i ? NULL : line, " ", &save)))
			return -1;
	*fstype = strtok_r(sep + 3, " ", &save);
	if (!*fstype)
		return -1;
	*id = strtoull(f[0], NULL, 10);
	*point = f[4];
	unescape(*point);
	return 0;
}

/* The refusal for the mounts of mountinfo f, given the mount id real is on. */
static const char *scan_mounts(FILE *f, const char *real, unsigned long long own_id)
{
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	bool found = false;

	while (getline(&line, &cap, f) > 0) {
		unsigned long long id;
		char *point, *fstype;

		line[strcspn(line, "\n")] = '\0';
		if (parse_line(line, &id, &point, &fstype) < 0)
			return "cannot be checked: /proc/self/mountinfo is not readable as expected";
		if (id == own_id) {
			found = true;
			if (bind_source_pseudo_fs(fstype))
				return "is on a kernel pseudo-filesystem (proc, sysfs, devtmpfs, cgroupfs, ...)";
		} else if (path_at_or_below(point, real) && strcmp(point, real) != 0 &&
			   bind_source_pseudo_fs(fstype)) {
			return "has a kernel pseudo-filesystem mounted below it";
		}
	}
	return found ? NULL : "cannot be checked: its mount is not in /proc/self/mountinfo";
}

const char *bind_source_type_refusal(const struct statx *stx)
{
	if (S_ISSOCK(stx->stx_mode))
		return "is a socket";
	if (S_ISFIFO(stx->stx_mode))
		return "is a FIFO";
	if (!S_ISREG(stx->stx_mode) && !S_ISDIR(stx->stx_mode))
		return "is not a regular file or directory";
	if (!(stx->stx_mask & STATX_MNT_ID))
		return "cannot be checked: the kernel does not report mount ids";
	return NULL;
}

const char *bind_source_refusal(const char *real)
{
	struct statx stx;
	const char *why;
	FILE *f;

	if (statx(AT_FDCWD, real, AT_SYMLINK_NOFOLLOW, STATX_TYPE | STATX_MNT_ID, &stx) < 0)
		return "cannot be examined";
	if ((why = bind_source_type_refusal(&stx)))
		return why;
	if (cache_overlaps(real))
		return "would reach hutch's cache of security decisions (/dev/shm, /run/user)";
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return "cannot be checked: /proc/self/mountinfo cannot be read";
	why = scan_mounts(f, real, stx.stx_mnt_id);
	fclose(f);
	return why;
}

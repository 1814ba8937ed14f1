/* host-ids.c: see host-ids.h. The lock is one root-only file whose byte at
 * offset UID (and at 2^32 + GID) an open file description locks (OFD
 * locks: per open, not per process, released when the last descriptor of
 * that open closes, never by another open of ours).
 *
 * An id must not be handed out while a process of an earlier jail with it
 * lives: a jail whose hutch was killed may take a moment to die (systemd's
 * dynamic users wait for the unit's cgroup instead). Scanning /proc for
 * that costs 150-300 us a run, so the byte each lock covers also holds
 * the id's mark, read and written only by the holder of that lock:
 * HOST_IDS_MARK_CLEAN when the last jail with the id is known empty, 0
 * (or a hole: never written) otherwise. The holder clears it before its
 * jail starts and sets it only when the helper exited of its own accord
 * after waiting for the jail's pid 1 (a pid namespace's init is reaped
 * only once every process of its namespace is gone, and none leaves it),
 * just before the lock goes. So a killed hutch, a killed or failed helper,
 * a jail without a pid namespace or a lock file of an older hutch leave
 * the mark unset, and only then is /proc scanned for that id, under its
 * lock, where no other hutch can start a jail with it meanwhile. A lock
 * file is made whole before it takes its name (made_whole): one scan,
 * then every id of the range no process holds marked clean, so that a
 * host's first runs need no scan either. Ids are handed out in turn from
 * a cursor kept in the file, not from the start of the range: an id comes
 * back only once the whole range has gone round, so the counts a jail
 * leaves charged to its id (below) cannot pile up over a few runs onto
 * the id of the next. A process of no jail that takes an id of hutch's
 * range on its own (root's to do) is seen only while its mark is unset:
 * the range is hutch's (hutch(1), "Host ids").
 *
 * No file outlives a jail with its id (a --rw bind is idmapped to its
 * owner; /tmp and the working directory are the jail's own tmpfs; IPC is
 * the jail's own namespace, so unlike systemd's dynamic users there are no
 * host IPC objects to look for), so an id is clean to reuse once its
 * processes are. Not quite its per-user counts: a descriptor the jail
 * handed to a process outside it over a Unix socket (an inotify instance,
 * a pipe, a message queue) stays charged to the id, invisible to a scan
 * and kept from the next jail with the id until the range has gone round
 * (hutch(1), "Host ids"). Names
 * are checked in /etc/passwd and /etc/group only, not through NSS: the
 * frontend asks no NSS module anything (a daemon's, a directory's), and
 * the range is chosen clear of directory users.
 * Frontend only. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "fd-util.h"
#include "jail/host-ids.h"

static void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

static void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

/* The first "hutch:START:COUNT" line of text, or -ENOENT. */
static int find_entry(const char *text, uint64_t *ret_start, uint64_t *ret_count)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		unsigned long long start, count;
		int n = -1;

		if (strncmp(p, "hutch:", 6) != 0)
			continue;
		if (sscanf(p + 6, "%llu:%llu%n", &start, &count, &n) != 2 || n < 0 ||
		    (p[6 + n] != '\n' && p[6 + n] != '\0') || p[6] == '-' || p[6] == '+')
			return -EINVAL;
		*ret_start = start;
		*ret_count = count;
		return 0;
	}
	return -ENOENT;
}

static int usable(uint64_t start, uint64_t count)
{
	uint64_t end = start + count; /* exclusive */

	/* Never root; never nobody (65534) nor the 16-bit -1; never
	 * systemd's dynamic users (61184-65519); from 2^31 on, ids that
	 * signed arithmetic breaks. Named users are skipped one by one. */
	return count >= 1 && start >= 1 && end <= 0x80000000ull && !(start < 65536 && end > 61184);
}

int host_ids_parse(const char *subuid, const char *subgid, struct host_id_range *ret,
		   char *why, size_t why_len)
{
	uint64_t us = 0, uc = 0, gs = 0, gc = 0;
	int ru = subuid ? find_entry(subuid, &us, &uc) : -ENOENT;
	int rg = subgid ? find_entry(subgid, &gs, &gc) : -ENOENT;

	if (ru == -ENOENT && rg == -ENOENT) {
		*ret = (struct host_id_range){ HOST_IDS_DEFAULT_BASE, HOST_IDS_DEFAULT_BASE,
					       HOST_IDS_DEFAULT_COUNT };
		return 0;
	}
	if (ru == -EINVAL || rg == -EINVAL) {
		snprintf(why, why_len, "host ids: the hutch entry of %s is not START:COUNT",
			 ru == -EINVAL ? HOST_IDS_SUBUID : HOST_IDS_SUBGID);
		return -EINVAL;
	}
	if (ru != rg) {
		snprintf(why, why_len, "host ids: %s has a hutch entry but %s has none (give both)",
			 ru == 0 ? HOST_IDS_SUBUID : HOST_IDS_SUBGID,
			 ru == 0 ? HOST_IDS_SUBGID : HOST_IDS_SUBUID);
		return -EINVAL;
	}
	if (!usable(us, uc) || !usable(gs, gc)) {
		snprintf(why, why_len,
			 "host ids: the hutch entries of %s and %s must lie from 1 to 2147483647 "
			 "and miss 61184-65535 (given %llu:%llu and %llu:%llu)",
			 HOST_IDS_SUBUID, HOST_IDS_SUBGID, (unsigned long long)us,
			 (unsigned long long)uc, (unsigned long long)gs, (unsigned long long)gc);
		return -EINVAL;
	}
	*ret = (struct host_id_range){ (uint32_t)us, (uint32_t)gs,
				       (uint32_t)(uc < gc ? uc : gc) };
	return 0;
}

/* The ids in use, as indexes into the range, sorted. */
struct busy {
	uint32_t *idx;
	size_t n, cap;
};

static void busy_add(struct busy *b, const struct host_id_range *r, uint64_t id, int is_gid)
{
	uint32_t base = is_gid ? r->gid_base : r->uid_base;
	uint32_t *grown;

	if (id < base || id - base >= r->count)
		return;
	if (b->n == b->cap) {
		grown = realloc(b->idx, (b->cap ? b->cap * 2 : 64) * sizeof(*grown));
		if (!grown)
			return; /* the lock still excludes every other hutch */
		b->idx = grown;
		b->cap = b->cap ? b->cap * 2 : 64;
	}
	b->idx[b->n++] = (uint32_t)(id - base);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int busy_has(const struct busy *b, uint32_t i)
{
	return b->n && bsearch(&i, b->idx, b->n, sizeof(i), cmp_u32) != NULL;
}

/* PIDFD_GET_INFO (Linux 6.13): a process's eight ids without the text of
 * /proc/PID/status, whose making costs ~2.5x as much (~3 us against ~1.2 us
 * a process here, most of them kernel threads). Defined here: the uapi
 * headers of older distributions lack it; the size is part of the number. */
struct host_ids_pidfd_info {
	uint64_t mask, cgroupid;
	uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
	int32_t exit_code;
};
#define HOST_IDS_PIDFD_INFO_CREDS (1ull << 1)
#define HOST_IDS_PIDFD_GET_INFO _IOWR(0xFF, 11, struct host_ids_pidfd_info)
_Static_assert(sizeof(struct host_ids_pidfd_info) == 64, "PIDFD_INFO_SIZE_VER0");

/* ids[0..3] uids, ids[4..7] gids (real, effective, saved, fs) of pid: 1,
 * 0 when it is gone, -1 when this kernel has no PIDFD_GET_INFO (or
 * pidfd_open refused for another reason): then ask its status. */
static int ids_by_pidfd(pid_t pid, unsigned long long ids[8])
{
	struct host_ids_pidfd_info in = { .mask = HOST_IDS_PIDFD_INFO_CREDS };
	_cleanup_close_ int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	if (fd < 0)
		return errno == ESRCH ? 0 : -1;
	if (ioctl(fd, HOST_IDS_PIDFD_GET_INFO, &in) < 0)
		return errno == ESRCH ? 0 : -1;
	if (!(in.mask & HOST_IDS_PIDFD_INFO_CREDS))
		return -1;
	ids[0] = in.ruid, ids[1] = in.euid, ids[2] = in.suid, ids[3] = in.fsuid;
	ids[4] = in.rgid, ids[5] = in.egid, ids[6] = in.sgid, ids[7] = in.fsgid;
	return 1;
}

/* The same from "Uid:\tR\tE\tS\tFS" and "Gid:" of /proc/PID/status. */
static int ids_by_status(int proc_fd, const char *name, unsigned long long ids[8])
{
	_cleanup_close_ int fd = -1;
	char path[300], buf[2048];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/status", name);
	fd = openat(proc_fd, path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return 0; /* gone meanwhile */
	buf[n] = '\0';
	for (int g = 0; g < 2; g++) {
		char *p = strstr(buf, g ? "\nGid:" : "\nUid:");
		unsigned long long *v = ids + 4 * g;

		if (!p || sscanf(p + 5, "%llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3]) != 4)
			v[0] = v[1] = v[2] = v[3] = 0; /* root's: never in a range */
	}
	return 1;
}

/* Every uid and gid of every process that may hold one of the range.
 * /proc/PID belongs to the process's effective uid, or to root when it is
 * not dumpable (a jail's pid 1, a process between credential changes); a
 * jail's processes hold one uid in all four places and cannot change it,
 * so any other owner is not one of them, and its ids (costly to read) are
 * skipped. The rest, mostly kernel threads, by pidfd where the kernel
 * answers, else by status. */
static void scan_processes(struct busy *b, const struct host_id_range *r)
{
	_cleanup_(closedirp) DIR *d = opendir("/proc");
	bool by_pidfd = true;
	struct dirent *de;

	while (d && (de = readdir(d))) {
		unsigned long long ids[8];
		struct stat st;
		int got = -1;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, 0) == 0 && st.st_uid != 0 &&
		    (st.st_uid < r->uid_base || st.st_uid - r->uid_base >= r->count))
			continue;
		if (by_pidfd && (got = ids_by_pidfd((pid_t)strtol(de->d_name, NULL, 10), ids)) < 0)
			by_pidfd = false;
		if (got < 0)
			got = ids_by_status(dirfd(d), de->d_name, ids);
		for (int k = 0; got > 0 && k < 8; k++)
			busy_add(b, r, ids[k], k >= 4);
	}
}

/* Ids /etc/passwd or /etc/group give to someone (third field). */
static void scan_file(struct busy *b, const struct host_id_range *r, const char *file, int is_gid)
{
	_cleanup_(fclosep) FILE *f = fopen(file, "re");
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;

	while (f && getline(&line, &cap, f) > 0) {
		char *p = strchr(line, ':');

		if (p && (p = strchr(p + 1, ':')))
			busy_add(b, r, strtoull(p + 1, NULL, 10), is_gid);
	}
}

static int lock_byte(int fd, uint64_t off)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = (off_t)off,
			    .l_len = 1 };

	return fcntl(fd, F_OFD_SETLK, &fl) < 0 ? -errno : 0;
}

/* A range's cursor: where its next pick starts, 4 bytes in the gap
 * between the uid marks (below 2^31) and the gid marks (from 2^32 + 1),
 * at 2^31 + its first uid, so that ranges (HUTCH_HOST_IDS) keep their own.
 * Read and written without a lock: two picks from one place skip each
 * other's locked ids, so a lost update costs order, never safety. */
#define HOST_IDS_CURSOR_OFF(r) ((1ull << 31) + (r)->uid_base)
/* ... whose 4 bytes must stay below the gid marks (a range starting just
 * below 2^31 has no cursor: its picks start at its first id). */
#define HOST_IDS_CURSOR_OK(r) (HOST_IDS_CURSOR_OFF(r) + sizeof(uint32_t) <= (1ull << 32))

static bool may_write_at(uint64_t off);

/* Ranges larger than this are not marked ahead: their ids are scanned
 * for on first use, as in a file of an older hutch. */
#define HOST_IDS_WHOLE_MAX (1u << 20)

/* A new lock file's marks: every id of the range no process holds marked
 * clean (the one scan a host's first runs make), so that a first use
 * needs none. Best effort: an id left unmarked is only scanned for. */
static void mark_whole(int fd, const struct host_id_range *r)
{
	struct busy procs = { 0 };
	uint8_t *m;

	if (r->count > HOST_IDS_WHOLE_MAX ||
	    !may_write_at((1ull << 32) + r->gid_base + r->count) || !(m = malloc(r->count)))
		return;
	memset(m, HOST_IDS_MARK_CLEAN, r->count);
	scan_processes(&procs, r);
	for (size_t k = 0; k < procs.n; k++)
		m[procs.idx[k]] = 0;
	free(procs.idx);
	/* A short write leaves marks unset (a scan on use), never wrong:
	 * an id is taken unscanned only when both its marks say clean. */
	if (pwrite(fd, m, r->count, (off_t)r->uid_base) == (ssize_t)r->count)
		(void)!pwrite(fd, m, r->count, (off_t)((1ull << 32) + r->gid_base));
	free(m);
}

/* The lock file made whole under a name of its own, then given its name
 * only if it has none yet (RENAME_NOREPLACE): no hutch ever sees a file
 * half marked, and no mark is written to a file another hutch uses. */
static int made_whole(int dir, const struct host_id_range *r)
{
	char tmp[64];
	int fd, err;

	snprintf(tmp, sizeof(tmp), "%s.%d", HOST_IDS_LOCK_FILE, (int)getpid());
	fd = openat(dir, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	/* Left by a hutch of our pid killed before its rename (the
	 * directory is root's alone, so it is no one else's): again. */
	if (fd < 0 && errno == EEXIST && unlinkat(dir, tmp, 0) == 0)
		fd = openat(dir, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	mark_whole(fd, r);
	if (renameat2(dir, tmp, dir, HOST_IDS_LOCK_FILE, RENAME_NOREPLACE) == 0)
		return fd;
	err = errno;
	(void)unlinkat(dir, tmp, 0);
	close(fd);
	return err == EEXIST ? -EAGAIN : -err; /* another hutch's won: use it */
}

/* The lock file, root's alone: a directory or file another user could
 * write would let them hold or free any id. */
static int open_lock(const struct host_id_range *r, char *why, size_t why_len)
{
	_cleanup_close_ int dir = -1;
	struct stat st;
	int fd;

	if (mkdir(HOST_IDS_LOCK_DIR, 0755) < 0 && errno != EEXIST)
		goto fail;
	dir = open(HOST_IDS_LOCK_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0 || fstat(dir, &st) < 0)
		goto fail;
	if (st.st_uid != 0 || (st.st_mode & 022)) {
		errno = EPERM;
		goto fail;
	}
	fd = openat(dir, HOST_IDS_LOCK_FILE, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		fd = made_whole(dir, r);
		if (fd == -EAGAIN)
			fd = openat(dir, HOST_IDS_LOCK_FILE, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
		else if (fd < 0)
			errno = -fd, fd = -1;
	}
	if (fd < 0 || fstat(fd, &st) < 0)
		goto fail;
	if (!S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022)) {
		close(fd);
		errno = EPERM;
		goto fail;
	}
	return fd;
fail:
	snprintf(why, why_len,
		 "host ids: cannot use the lock %s/%s (%s; it must be root's and writable by "
		 "root alone)",
		 HOST_IDS_LOCK_DIR, HOST_IDS_LOCK_FILE, strerrorname_np(errno) ?: "?");
	return -errno ?: -EIO;
}

/* HUTCH_HOST_IDS=START:COUNT, the caller's own (hutch(1), ENVIRONMENT):
 * one range for uids and gids alike, in place of the files. */
static int env_range(const char *env, struct host_id_range *ret, char *why, size_t why_len)
{
	_cleanup_free_ char *line = NULL;

	if (asprintf(&line, "hutch:%s", env) < 0)
		return -ENOMEM;
	if (host_ids_parse(line, line, ret, why, why_len) == 0)
		return 0;
	snprintf(why, why_len,
		 "host ids: HUTCH_HOST_IDS must be START:COUNT, from 1 to 2147483647 and "
		 "missing 61184-65535");
	return -EINVAL;
}

static int read_range(struct host_id_range *ret, char *why, size_t why_len)
{
	_cleanup_free_ char *u = NULL, *g = NULL;
	const char *env = getenv("HUTCH_HOST_IDS");
	size_t len;
	int fd;

	if (env)
		return env_range(env, ret, why, why_len);
	/* Absent is "no entry"; unreadable or too large is refused. */
	fd = open(HOST_IDS_SUBUID, O_RDONLY | O_CLOEXEC);
	if ((fd < 0 && errno != ENOENT) || (fd >= 0 && fd_slurp(fd, 1u << 20, &u, &len) < 0))
		goto fail;
	fd_close(&fd);
	fd = open(HOST_IDS_SUBGID, O_RDONLY | O_CLOEXEC);
	if ((fd < 0 && errno != ENOENT) || (fd >= 0 && fd_slurp(fd, 1u << 20, &g, &len) < 0))
		goto fail;
	fd_close(&fd);
	return host_ids_parse(u, g, ret, why, why_len);
fail:
	fd_close(&fd);
	snprintf(why, why_len, "host ids: cannot read %s and %s", HOST_IDS_SUBUID, HOST_IDS_SUBGID);
	return -EIO;
}

/* Whether every id of [base, base + count) exists in our user namespace
 * (/proc/self/uid_map or gid_map: "INSIDE OUTSIDE COUNT" lines): root in
 * a container often has a few ids only, and a jail id unmapped here could
 * never be set up. */
static int mapped(const char *file, uint32_t base, uint32_t count)
{
	_cleanup_(fclosep) FILE *f = fopen(file, "re");
	unsigned long long in, out, n;

	while (f && fscanf(f, "%llu %llu %llu", &in, &out, &n) == 3)
		if (in <= base && (uint64_t)base + count <= in + n)
			return 1;
	return 0;
}

static void unlock_byte(int fd, uint64_t off)
{
	struct flock un = { .l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = (off_t)off,
			    .l_len = 1 };

	(void)fcntl(fd, F_OFD_SETLK, &un); /* ours or none: no other open's */
}

/* The mark in the byte at off, whose lock this open holds: a hole or a
 * short file reads as unset. */
static uint8_t get_mark(int fd, uint64_t off)
{
	uint8_t m = 0;

	return pread(fd, &m, 1, (off_t)off) == 1 ? m : 0;
}

/* Whether a write at off stays below our RLIMIT_FSIZE: at or past it the
 * kernel sends SIGXFSZ, which would kill hutch (a caller's `ulimit -f`, a
 * unit's LimitFSIZE=) with its jail's output unread, and the marks lie
 * gigabytes into the file. */
static bool may_write_at(uint64_t off)
{
	struct rlimit rl;

	return getrlimit(RLIMIT_FSIZE, &rl) == 0 &&
	       (rl.rlim_cur == RLIM_INFINITY || off < (uint64_t)rl.rlim_cur);
}

/* Past our file size limit a mark cannot be set (the id is then scanned
 * for next time, as without marks) but it can still be cleared: a hole
 * reads as unset, and punching one writes nothing. */
static int put_mark(int fd, uint64_t off, uint8_t m)
{
	if (may_write_at(off))
		return pwrite(fd, &m, 1, (off_t)off) == 1 ? 0 : -EIO;
	if (m == 0 && fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, 1) == 0)
		return 0;
	return -EFBIG;
}

/* With the locks of the pair at index i held: 0 when no process of an
 * earlier jail can hold it, its clean marks then cleared (a hutch killed
 * from here on leaves them unset); -EBUSY when a process holds either id.
 * Unless both marks say clean, /proc is read now, under the locks: a
 * scan from before them could miss a jail started and orphaned since. */
static int take(int fd, const struct host_id_range *r, uint32_t i, struct busy *procs)
{
	uint64_t uo = (uint64_t)r->uid_base + i, go = (1ull << 32) + r->gid_base + i;
	uint8_t um = get_mark(fd, uo), gm = get_mark(fd, go);

	if (um != HOST_IDS_MARK_CLEAN || gm != HOST_IDS_MARK_CLEAN) {
		procs->n = 0;
		scan_processes(procs, r);
		if (procs->n)
			qsort(procs->idx, procs->n, sizeof(*procs->idx), cmp_u32);
		if (busy_has(procs, i))
			return -EBUSY;
	}
	if ((um == HOST_IDS_MARK_CLEAN && put_mark(fd, uo, 0) < 0) ||
	    (gm == HOST_IDS_MARK_CLEAN && put_mark(fd, go, 0) < 0))
		return -EIO; /* a mark left set could outlive a killed hutch */
	return 0;
}

/* Where the last pick left off, within the range; 0 with no cursor yet. */
static uint32_t cursor_get(int fd, const struct host_id_range *r)
{
	uint32_t c = 0;

	if (!HOST_IDS_CURSOR_OK(r) ||
	    pread(fd, &c, sizeof(c), (off_t)HOST_IDS_CURSOR_OFF(r)) != sizeof(c))
		return 0;
	return c % r->count;
}

/* Past our file size limit there is no cursor to move: the next pick
 * starts where this one did, as before the cursor. */
static void cursor_put(int fd, const struct host_id_range *r, uint32_t next)
{
	if (HOST_IDS_CURSOR_OK(r) && may_write_at(HOST_IDS_CURSOR_OFF(r) + sizeof(next)))
		(void)!pwrite(fd, &next, sizeof(next), (off_t)HOST_IDS_CURSOR_OFF(r));
}

/* The first pair from the cursor on, round the range, that this open can
 * lock and take; the cursor then moves past it. Ids a scan found held are
 * skipped without a second look (a scan is a moment's truth, and
 * skipping is always safe). */
static int pick(int fd, const struct host_id_range *r, const struct busy *named,
		struct host_id_lease *ret)
{
	struct busy procs = { 0 };
	uint32_t start = cursor_get(fd, r);
	int rc = -EBUSY;

	for (uint32_t k = 0; k < r->count; k++) {
		uint32_t i = (uint32_t)(((uint64_t)start + k) % r->count);
		uint64_t uo = (uint64_t)r->uid_base + i, go = (1ull << 32) + r->gid_base + i;

		if (busy_has(named, i) || busy_has(&procs, i) || lock_byte(fd, uo) < 0)
			continue;
		if (lock_byte(fd, go) == 0 && take(fd, r, i, &procs) == 0) {
			ret->uid = r->uid_base + i;
			ret->gid = r->gid_base + i;
			cursor_put(fd, r, (uint32_t)(((uint64_t)i + 1) % r->count));
			rc = 0;
			break;
		}
		unlock_byte(fd, go);
		unlock_byte(fd, uo);
	}
	free(procs.idx);
	return rc;
}

int host_ids_acquire(struct host_id_lease *ret, char *why, size_t why_len)
{
	struct host_id_range r;
	struct busy b = { 0 };
	_cleanup_close_ int fd = -1;
	int rc;

	if ((rc = read_range(&r, why, why_len)) < 0)
		return rc;
	if (!mapped("/proc/self/uid_map", r.uid_base, r.count) ||
	    !mapped("/proc/self/gid_map", r.gid_base, r.count)) {
		snprintf(why, why_len,
			 "host ids: the range %u-%u (gids from %u) does not exist in hutch's user "
			 "namespace (a container?): name mapped ids in hutch entries of %s and %s",
			 r.uid_base, r.uid_base + (r.count - 1), r.gid_base, HOST_IDS_SUBUID,
			 HOST_IDS_SUBGID);
		return -ERANGE;
	}
	if ((fd = open_lock(&r, why, why_len)) < 0)
		return fd;
	scan_file(&b, &r, "/etc/passwd", 0);
	scan_file(&b, &r, "/etc/group", 1);
	if (b.n)
		qsort(b.idx, b.n, sizeof(*b.idx), cmp_u32);
	rc = pick(fd, &r, &b, ret);
	free(b.idx);
	if (rc < 0) {
		snprintf(why, why_len,
			 "host ids: all %u of the range %u-%u are in use (more jails of root "
			 "callers at once than the range holds; see hutch(1), Host ids)",
			 r.count, r.uid_base, r.uid_base + (r.count - 1));
		return rc;
	}
	ret->lock_fd = TAKE_FD(fd);
	return 0;
}

void host_ids_release(struct host_id_lease *l)
{
	/* Marked before the locks go: a hutch that dies in between leaves
	 * the marks unset, which costs the next run a scan, nothing more. */
	if (l->lock_fd >= 0 && l->jail_gone) {
		(void)put_mark(l->lock_fd, l->uid, HOST_IDS_MARK_CLEAN);
		(void)put_mark(l->lock_fd, (1ull << 32) + l->gid, HOST_IDS_MARK_CLEAN);
	}
	fd_close(&l->lock_fd);
	l->jail_gone = false;
}

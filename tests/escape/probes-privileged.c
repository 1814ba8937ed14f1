/* probes-privileged.c: the privilege probes of tests/escape that aim at identity and mounts:
 * setuid binaries, user namespaces, mount, chroot, pivot_root, the new
 * mount API, mknod, sethostname, open_by_handle_at, uid 0 and
 * capabilities. Linked into probes (probes.c).
 */
#include "probes.h"

/* Kept here rather than from <linux/mount.h>, which clashes with
 * <sys/mount.h> on glibc 2.36. */
#define HX_OPEN_TREE_CLONE 1
#define HX_OPEN_TREE_CLOEXEC O_CLOEXEC
#define HX_FSOPEN_CLOEXEC 1
#define HX_FSPICK_CLOEXEC 1
#define HX_MOUNT_ATTR_RDONLY 0x1
#define HX_AT_RECURSIVE 0x8000
struct hx_mount_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

/* ------------------------------------------------------------------ */
/* setuid */

static void status_ids(pid_t p, char *name, size_t nn, char *uid, size_t un)
{
	char path[64], buf[4096], *l;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)p);
	name[0] = uid[0] = '\0';
	if (slurp(path, buf, sizeof(buf)) < 0)
		return;
	if ((l = strstr(buf, "Name:\t")))
		snprintf(name, nn, "%.*s", (int)strcspn(l + 6, "\n"), l + 6);
	if ((l = strstr(buf, "Uid:\t")))
		snprintf(uid, un, "%.*s", (int)strcspn(l + 5, "\n"), l + 5);
	for (char *c = uid; *c; c++)
		if (*c == '\t')
			*c = ' ';
}

void p_setuid(void)
{
	const char *cands[] = { "/usr/bin/passwd", "/usr/bin/su", "/usr/bin/newgrp",
				"/usr/bin/chfn", "/usr/bin/gpasswd", "/bin/su" };
	int tried = 0;

	for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]) && tried < 2; i++) {
		struct stat sb;
		int in[2];
		pid_t p;
		const char *base = strrchr(cands[i], '/') + 1;
		char name[64], uid[128];
		unsigned r, e;

		/* in a jail the owner shows as the overflow uid: root is unmapped */
		if (stat(cands[i], &sb) < 0 || !(sb.st_mode & S_ISUID))
			continue;
		tried++;
		if (pipe(in) < 0)
			usage_error("pipe");
		p = fork();
		if (p == 0) {
			int null = open("/dev/null", O_RDWR);

			dup2(in[0], 0);
			dup2(null, 1);
			dup2(null, 2);
			execl(cands[i], cands[i], (char *)NULL);
			_exit(127);
		}
		close(in[0]);
		name[0] = uid[0] = '\0';
		for (int k = 0; k < 300; k++) { /* up to 3 s for the exec */
			status_ids(p, name, sizeof(name), uid, sizeof(uid));
			if (strncmp(name, base, 15) == 0)
				break;
			usleep(10000);
		}
		usleep(20000);
		status_ids(p, name, sizeof(name), uid, sizeof(uid));
		kill(p, SIGKILL);
		close(in[1]);
		waitpid(p, NULL, 0);
		if (strncmp(name, base, 15) != 0) {
			miss("%s did not run (Name %s)", cands[i], name);
			continue;
		}
		if (sscanf(uid, "%u %u", &r, &e) == 2 && r != e)
			esc("%s (owner %u) ran with Uid %s: euid %u", cands[i], (unsigned)sb.st_uid, uid, e);
		else
			miss("%s (owner %u) ran with Uid %s: no gain", cands[i], (unsigned)sb.st_uid, uid);
	}
	if (!tried)
		note("no setuid-root binary found");
	finish(geteuid() == 0 ? "the caller is root already" : NULL);
}

/* ------------------------------------------------------------------ */
/* Capabilities and privileged calls */

static int c_mount(void *a)
{
	(void)a;
	if (unshare(CLONE_NEWNS) == 0) {
		esc("unshare(NEWNS): ok");
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
			held(errno, "make / private");
			return 1; /* never mount where it could propagate */
		}
	} else {
		held(errno, "unshare(NEWNS)");
	}
	if (mount("hx", scratch, "tmpfs", 0, "size=1m") == 0) {
		esc("mount tmpfs on %s: ok", scratch);
		umount2(scratch, MNT_DETACH);
	} else {
		held(errno, "mount tmpfs");
	}
	REACH("umount2 of a non-mount", umount2(scratch, 0));
	return 0;
}

static int c_mount_userns(void *a)
{
	(void)a;
	if (enter_userns(CLONE_NEWNS))
		return 1;
	esc("unshare(NEWUSER|NEWNS): ok");
	if (mount("hx", scratch, "tmpfs", 0, "size=1m") == 0)
		esc("mount tmpfs in a new user namespace: ok");
	else
		held(errno, "mount tmpfs in a new user namespace");
	return 0;
}

void p_mount(void)
{
	make_scratch();
	in_child(c_mount, NULL, 10);
	in_child(c_mount_userns, NULL, 10);
	drop_scratch();
	finish(NULL);
}

static int c_unshare_user(void *a)
{
	(void)a;
	REACH("unshare(CLONE_NEWUSER)", unshare(CLONE_NEWUSER));
	return 0;
}

static int c_clone_user(void *a)
{
	long r;

	(void)a;
	r = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL, NULL, NULL);
	if (r == 0)
		_exit(0);
	reach("clone(CLONE_NEWUSER)", r, errno);
	if (r > 0)
		waitpid((pid_t)r, NULL, 0);
	return 0;
}

static int c_clone3_user(void *a)
{
	struct clone_args ca = { .flags = CLONE_NEWUSER, .exit_signal = SIGCHLD };
	long r;

	(void)a;
	r = syscall(SYS_clone3, &ca, sizeof(ca));
	if (r == 0)
		_exit(0);
	reach("clone3(CLONE_NEWUSER)", r, errno);
	if (r > 0)
		waitpid((pid_t)r, NULL, 0);
	return 0;
}

void p_userns(void)
{
	in_child(c_unshare_user, NULL, 10);
	in_child(c_clone_user, NULL, 10);
	in_child(c_clone3_user, NULL, 10);
	finish(NULL);
}

static const char *g_hostroot;

static void chroot_escape(const char *how)
{
	char d[128], di[64];

	snprintf(d, sizeof(d), "%s/d", scratch);
	mkdir(d, 0700);
	if (chroot(d) < 0) {
		held(errno, "chroot %s", how);
		return;
	}
	/* the classic: cwd is outside the new root; walk up, chroot there */
	for (int i = 0; i < 64; i++)
		if (chdir("..") < 0)
			break;
	if (chroot(".") < 0) {
		esc("chroot %s: ok (second chroot: %s)", how, en(errno));
		return;
	}
	devino_path("/", di, sizeof(di));
	esc("chroot %s: ok, then \"..\" x64 and chroot(\".\") reached %s%s", how, di,
	    g_hostroot && strcmp(di, g_hostroot) == 0 ? " = the host root" : "");
}

static int c_chroot(void *a)
{
	(void)a;
	chroot_escape("directly");
	return 0;
}

static int c_chroot_userns(void *a)
{
	(void)a;
	if (enter_userns(0))
		return 1;
	chroot_escape("in a new user namespace");
	return 0;
}

void p_chroot(void)
{
	char d[128];

	g_hostroot = arg("hostroot");
	make_scratch();
	in_child(c_chroot, NULL, 10);
	in_child(c_chroot_userns, NULL, 10);
	snprintf(d, sizeof(d), "%s/d", scratch);
	rmdir(d);
	drop_scratch();
	finish(NULL);
}

static int c_pivot(void *a)
{
	char p[64];

	snprintf(p, sizeof(p), "/hx-no-such-dir-%d", (int)getpid());
	if (a && enter_userns(CLONE_NEWNS))
		return 1;
	REACH(a ? "pivot_root in a new user namespace" : "pivot_root",
	      syscall(SYS_pivot_root, p, p));
	return 0;
}

void p_pivot_root(void)
{
	in_child(c_pivot, NULL, 10);
	in_child(c_pivot, (void *)1, 10);
	finish(NULL);
}

void p_mknod(void)
{
	struct {
		const char *name;
		mode_t mode;
		dev_t dev;
	} nodes[] = { { "mem", S_IFCHR | 0600, makedev(1, 1) },
		      { "loop0", S_IFBLK | 0600, makedev(7, 0) } };

	make_scratch();
	for (size_t i = 0; i < 2; i++) {
		char p[128];

		snprintf(p, sizeof(p), "%s/%s", scratch, nodes[i].name);
		if (mknod(p, nodes[i].mode, nodes[i].dev) == 0) {
			int fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

			esc("mknod %s %u:%u: ok (open: %s)", nodes[i].name, major(nodes[i].dev),
			    minor(nodes[i].dev), fd >= 0 ? "ok" : en(errno));
			if (fd >= 0)
				close(fd);
			unlink(p);
		} else {
			held(errno, "mknod %s", nodes[i].name);
		}
	}
	drop_scratch();
	finish(NULL);
}

static int c_sethostname_userns(void *a)
{
	char name[65];

	(void)a;
	memset(name, 'x', sizeof(name));
	if (enter_userns(CLONE_NEWUTS))
		return 1;
	REACH("sethostname in a new user namespace", sethostname(name, sizeof(name)));
	return 0;
}

void p_sethostname(void)
{
	char name[65];
	struct utsname before, after;

	memset(name, 'x', sizeof(name)); /* > 64: EINVAL once the check passed */
	uname(&before);
	REACH("sethostname (65 bytes)", sethostname(name, sizeof(name)));
	REACH("setdomainname (65 bytes)", setdomainname(name, sizeof(name)));
	in_child(c_sethostname_userns, NULL, 10);
	uname(&after);
	if (strcmp(before.nodename, after.nodename) != 0)
		esc("hostname changed from %s to %s", before.nodename, after.nodename);
	else
		note("hostname still %s", after.nodename);
	finish(NULL);
}

void p_shocker(void)
{
	const char *hostroot = need("hostroot"), *rel = need("relsecret"), *secret = need("secret");
	struct {
		struct file_handle fh;
		unsigned char buf[128];
	} h;
	int mount_id, mfd, fd;
	char di[64], buf[4096];

	memset(&h, 0, sizeof(h));
	h.fh.handle_bytes = sizeof(h.buf);
	if (name_to_handle_at(AT_FDCWD, "/usr", &h.fh, &mount_id, 0) == 0)
		esc("name_to_handle_at(/usr): ok (type %d)", h.fh.handle_type);
	else
		held(errno, "name_to_handle_at(/usr)");
	/* The host root directory of an ext2/3/4 root: inode 2, generation 0
	 * (FILEID_INO32_GEN), opened relative to any fd on that filesystem. */
	memset(&h, 0, sizeof(h));
	h.fh.handle_bytes = 8;
	h.fh.handle_type = 1;
	h.buf[0] = 2;
	mfd = open("/usr", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0) {
		held(errno, "open /usr");
		finish(NULL);
	}
	fd = open_by_handle_at(mfd, &h.fh, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		held(errno, "open_by_handle_at(inode 2)");
	} else {
		devino_fd(fd, di, sizeof(di));
		esc("open_by_handle_at(inode 2): ok, %s%s", di,
		    strcmp(di, hostroot) == 0 ? " = the host root" : "");
		int cf = openat(fd, rel, O_RDONLY | O_CLOEXEC);
		if (cf >= 0) {
			ssize_t n = read(cf, buf, sizeof(buf) - 1);

			if (n > 0 && contains(buf, (size_t)n, secret))
				esc("read the canary through the handle");
			close(cf);
		}
		close(fd);
	}
	close(mfd);
	finish(NULL);
}

static int c_newmount(void *a)
{
	struct hx_mount_attr ma = { .attr_clr = HX_MOUNT_ATTR_RDONLY };
	long r, t;

	if (a) {
		if (enter_userns(CLONE_NEWNS))
			return 1;
		r = syscall(SYS_fsopen, "tmpfs", HX_FSOPEN_CLOEXEC);
		reach("fsopen(tmpfs) in a new user namespace", r, errno);
		return 0;
	}
	r = syscall(SYS_fsopen, "tmpfs", HX_FSOPEN_CLOEXEC);
	reach("fsopen(tmpfs)", r, errno);
	r = syscall(SYS_fspick, AT_FDCWD, "/usr", HX_FSPICK_CLOEXEC);
	reach("fspick(/usr)", r, errno);
	t = syscall(SYS_open_tree, AT_FDCWD, "/usr", HX_OPEN_TREE_CLONE | HX_OPEN_TREE_CLOEXEC);
	reach("open_tree(/usr, CLONE)", t, errno);
	if (t >= 0) {
		/* only the detached clone: the source mount is untouched */
		r = syscall(SYS_mount_setattr, (int)t, "", AT_EMPTY_PATH, &ma, sizeof(ma));
		reach("mount_setattr(clone, clear RDONLY)", r, errno);
		close((int)t);
	}
	r = syscall(SYS_move_mount, -1, "", -1, "", 0);
	reach("move_mount(-1)", r, errno);
	r = syscall(SYS_fsmount, -1, 0, 0);
	reach("fsmount(-1)", r, errno);
	return 0;
}

void p_new_mount_api(void)
{
	in_child(c_newmount, NULL, 10);
	in_child(c_newmount, (void *)1, 10);
	finish(NULL);
}

/* ------------------------------------------------------------------ */
/* Identity */

void p_uid_root(void)
{
	char buf[4096];
	ssize_t n = slurp("/proc/self/uid_map", buf, sizeof(buf));
	unsigned long in, out, len, me = geteuid();
	int found = 0;

	if (n < 0) {
		held((int)-n, "read /proc/self/uid_map");
		finish(NULL);
	}
	for (char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (sscanf(l, "%lu %lu %lu", &in, &out, &len) != 3)
			continue;
		if (me >= in && me - in < len) {
			found = 1;
			if (out + (me - in) == 0)
				esc("uid %lu is root outside", me);
			else
				miss("uid %lu is %lu outside", me, out + (me - in));
		}
	}
	if (!found)
		miss("uid %lu unmapped", me);
	finish(geteuid() != 0 && !st->escaped ? "the caller is not root" : NULL);
}

void p_caps(void)
{
	const char *keys[] = { "CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:" };
	char buf[8192];
	ssize_t n = slurp("/proc/self/status", buf, sizeof(buf));

	if (n < 0) {
		held((int)-n, "read /proc/self/status");
		finish(NULL);
	}
	for (size_t i = 0; i < 5; i++) {
		char *l = strstr(buf, keys[i]);
		unsigned long long v;

		if (!l || sscanf(l + strlen(keys[i]), "%llx", &v) != 1) {
			miss("%s missing", keys[i]);
			continue;
		}
		if (v)
			esc("%s %016llx", keys[i], v);
		else
			miss("%s 0", keys[i]);
	}
	if (strstr(buf, "NoNewPrivs:\t1"))
		note("NoNewPrivs 1");
	else
		note("NoNewPrivs 0");
	finish(NULL);
}

/* probes-files.c: the host-files probes of tests/escape: canaries outside the jail,
 * the inherited cwd and descriptors, writable and executable places, the
 * environment and files returned by --collect. Linked into probes (probes.c).
 */
#include "probes.h"

/* ------------------------------------------------------------------ */
/* Files outside the jail */

void p_host_read(void)
{
	const char *secret = need("secret");
	const char *dirs[] = { arg("canary"), arg("canary2"), arg("canary3") };
	char path[4096], buf[4096];

	for (size_t i = 0; i < 3; i++) {
		ssize_t n;

		if (!dirs[i])
			continue;
		snprintf(path, sizeof(path), "%s/secret", dirs[i]);
		n = slurp(path, buf, sizeof(buf));
		if (n < 0)
			held((int)-n, "read %s", path);
		else if (contains(buf, (size_t)n, secret))
			esc("read %s: the secret", path);
		else
			note("read %s: %zd bytes, not the secret", path, n);
	}
	finish(NULL);
}

void p_host_write(void)
{
	const char *file = need("writable");
	const char *dirs[] = { arg("canary"), arg("canary2"), arg("canary3") };
	char path[4096];
	int fd = open(file, O_WRONLY | O_APPEND | O_CLOEXEC);

	if (fd < 0) {
		held(errno, "open %s for append", file);
	} else {
		ssize_t n = write(fd, "hx-escape-write\n", 16);

		if (n == 16)
			esc("appended to %s", file);
		else
			esc("opened %s for writing (write: %s)", file, n < 0 ? en(errno) : "short");
		close(fd);
	}
	for (size_t i = 0; i < 3; i++) {
		if (!dirs[i])
			continue;
		snprintf(path, sizeof(path), "%s/created-%d", dirs[i], (int)getpid());
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0) {
			held(errno, "create %s", path);
		} else {
			esc("created %s", path);
			close(fd);
		}
	}
	finish(NULL);
}

/* Is this directory fd the host root? Read the canary through it. */
static void check_dir(int dfd, const char *how, const char *hostroot, const char *relsecret,
		      const char *secret)
{
	char di[64], buf[4096];
	int fd;

	devino_fd(dfd, di, sizeof(di));
	if (strcmp(di, hostroot) == 0)
		esc("%s is the host root (%s)", how, di);
	fd = openat(dfd, relsecret, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);

		if (n > 0 && contains(buf, (size_t)n, secret))
			esc("%s: read the canary", how);
		close(fd);
	} else if (strcmp(di, hostroot) != 0) {
		held(errno, "%s (%s): canary", how, di);
	}
}

void p_host_traverse(void)
{
	const char *hostroot = need("hostroot"), *rel = need("relsecret"), *secret = need("secret");
	const char *paths[] = { "/..", "/../../../../..", "/proc/self/root/..", "/proc/1/root/..",
				"/proc/self/cwd/../../../../../../..", "/proc/1/cwd/../../../../../.." };
	char here[4096];
	int fd;

	if (!getcwd(here, sizeof(here)))
		snprintf(here, sizeof(here), "(%s)", en(errno));
	for (int i = 0; i < 64; i++)
		if (chdir("..") < 0)
			break;
	fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		check_dir(fd, "cwd after chdir(\"..\") x64", hostroot, rel, secret);
		close(fd);
	}
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		fd = open(paths[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			held(errno, "open %s", paths[i]);
			continue;
		}
		check_dir(fd, paths[i], hostroot, rel, secret);
		close(fd);
	}
	note("started in %s", here);
	finish(NULL);
}

void p_cwd_leak(void)
{
	const char *canarydev = need("canarydev"), *secret = need("secret");
	char cwd[4096], di[64], buf[4096], link[4096];
	ssize_t n;

	if (getcwd(cwd, sizeof(cwd)))
		note("getcwd %s", cwd);
	else
		note("getcwd: %s", en(errno));
	devino_path(".", di, sizeof(di));
	if (strcmp(di, canarydev) == 0)
		esc("cwd is the caller's directory (%s)", di);
	else
		miss("cwd %s is not the caller's directory", di);
	n = slurp("secret", buf, sizeof(buf));
	if (n >= 0 && contains(buf, (size_t)n, secret))
		esc("read ./secret: the canary");
	else if (n < 0)
		held((int)-n, "read ./secret");
	n = readlink("/proc/self/cwd", link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		note("/proc/self/cwd -> %s", link);
	}
	finish(NULL);
}

void p_fd_leak(void)
{
	const char *secret = need("secret");
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int self, seen = 0;

	if (!d) {
		/* without /proc: probe the numbers */
		held(errno, "opendir /proc/self/fd");
		for (int fd = 3; fd < 1024; fd++)
			if (fcntl(fd, F_GETFD) >= 0)
				esc("fd %d is open", fd);
		finish(NULL);
	}
	self = dirfd(d);
	while ((e = readdir(d))) {
		char path[64], link[4096], buf[4096];
		int fd = atoi(e->d_name);
		ssize_t n;

		if (e->d_name[0] == '.' || fd == self)
			continue;
		seen++;
		if (fd <= 2)
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, link, sizeof(link) - 1);
		link[n > 0 ? n : 0] = '\0';
		n = pread(fd, buf, sizeof(buf) - 1, 0);
		esc("fd %d -> %s%s", fd, link,
		    n > 0 && contains(buf, (size_t)n, secret) ? " (holds the secret)" : "");
	}
	closedir(d);
	if (!st->escaped)
		miss("%d descriptors, none beyond 0-2", seen);
	finish(NULL);
}

/* ------------------------------------------------------------------ */
/* Writable places that execute */

extern char **environ;

/* execve of path, or with path NULL execveat(fd, "", AT_EMPTY_PATH) (what
 * fexecve does), in a child with stdout on /dev/null: 0 when execve itself
 * succeeded, whatever the program then does (a close-on-exec pipe stays
 * empty), else its errno. Under launch.py, /proc/self/exe is python3. */
static int exec_in_child(const char *path, int fd)
{
	char *const argv[] = { "probes", "--list", NULL };
	int pfd[2], err = 0, status;
	pid_t p;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return errno;
	p = fork();
	if (p == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		if (path)
			execve(path, argv, environ);
		else
			syscall(SYS_execveat, fd, "", argv, environ, AT_EMPTY_PATH);
		err = errno;
		if (write(pfd[1], &err, sizeof(err)) < 0)
			_exit(126);
		_exit(127);
	}
	err = p < 0 ? errno : 0;
	close(pfd[1]);
	if (p > 0 && read(pfd[0], &err, sizeof(err)) != sizeof(err))
		err = 0;
	close(pfd[0]);
	if (p > 0)
		waitpid(p, &status, 0);
	return err;
}

/* Our own image into fd; 0 or the errno. */
static int copy_self(int out)
{
	char buf[65536];
	int in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC), err = 0;
	ssize_t n;

	if (in < 0)
		return errno;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			err = errno ? errno : EIO;
			break;
		}
	if (n < 0)
		err = errno;
	close(in);
	return err;
}

static void try_exec_copy(const char *dir)
{
	char path[256];
	int out, fd, err;
	void *m;

	snprintf(path, sizeof(path), "%s/hx-exec-%d", dir, (int)getpid());
	out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (out < 0) {
		held(errno, "copy to %s", path);
		return;
	}
	err = copy_self(out);
	close(out);
	if (err)
		held(err, "copy to %s", path);
	else if ((err = exec_in_child(path, -1)) == 0)
		esc("execve %s: ran", path);
	else
		held(err, "execve %s", path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		m = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			esc("mmap PROT_EXEC of %s: ok", path);
			munmap(m, 4096);
		} else {
			held(errno, "mmap PROT_EXEC of %s", path);
		}
		close(fd);
	}
	unlink(path);
}

void p_noexec(void)
{
	const char *dirs[] = { ".", "/tmp", "/dev/shm" }; /* "." is /work in a jail */

	for (size_t i = 0; i < 3; i++)
		if (access(dirs[i], W_OK) == 0)
			try_exec_copy(dirs[i]);
		else
			held(errno, "write to %s", dirs[i]);
	/* memfds: see memfd-exec. Anonymous PROT_EXEC memory (a JIT's, and
	 * how launch.py starts the probes) executes: noted, not an escape */
	note("anonymous PROT_EXEC memory remains (not a mount property)");
	finish(NULL);
}

/* One memfd, filled with our image (unless filled already): run through fexecve (execveat
 * AT_EMPTY_PATH) and through /proc/self/fd/N, after chmod +x when the
 * mode lacks it. fd is closed. */
static void try_exec_memfd(const char *what, int fd, int filled)
{
	char path[64];
	int err = fd < 0 ? errno : filled ? 0 : copy_self(fd);

	if (fd < 0 || err) {
		held(err, "%s", what);
		if (fd >= 0)
			close(fd);
		return;
	}
	if (fchmod(fd, 0755) < 0)
		note("%s: chmod 0755: %s", what, en(errno));
	if ((err = exec_in_child(NULL, fd)) == 0)
		esc("%s: fexecve ran", what);
	else
		held(err, "%s: fexecve", what);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if ((err = exec_in_child(path, -1)) == 0)
		esc("%s: execve %s ran", what, path);
	else
		held(err, "%s: execve %s", what, path);
	close(fd);
}

/* A memfd_secret takes no write(): our image goes in through a shared
 * mapping. -1 with errno on failure. */
static int fill_secret(int fd)
{
	struct stat sb;
	int in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	char *m;
	ssize_t n = -1;

	if (in < 0 || fstat(in, &sb) < 0 || ftruncate(fd, sb.st_size) < 0) {
		int e = errno;

		if (in >= 0)
			close(in);
		errno = e;
		return -1;
	}
	m = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m != MAP_FAILED) {
		n = read(in, m, (size_t)sb.st_size);
		munmap(m, (size_t)sb.st_size);
	}
	close(in);
	return n < 0 ? -1 : 0;
}

/* memfd_create on the i386 entry point: the name must sit below 4 GiB. */
static int memfd_create32(unsigned flags)
{
	char *name = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	long r;

	if (name == MAP_FAILED)
		return -1;
	strcpy(name, "hx-memfd32");
	r = int80(356, (long)(uintptr_t)name, (long)flags, 0); /* i386 memfd_create */
	munmap(name, 4096);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return (int)r;
}

void p_memfd_exec(void)
{
	char v[8] = "";
	int fd;

	try_exec_memfd("memfd_create(0)", (int)syscall(SYS_memfd_create, "hx-memfd", 0u), 0);
	try_exec_memfd("memfd_create(CLOEXEC|ALLOW_SEALING)",
		       (int)syscall(SYS_memfd_create, "hx-memfd", 0x3u), 0);
	try_exec_memfd("memfd_create(MFD_EXEC)",
		       (int)syscall(SYS_memfd_create, "hx-memfd", 0x10u /* MFD_EXEC */), 0);
	/* flags is an unsigned int: bits above 31 must not change the verdict */
	try_exec_memfd("memfd_create(0) high bits",
		       (int)syscall(SYS_memfd_create, "hx-memfd", 0x800000000ul), 0);
	try_exec_memfd("i386 memfd_create(0)", memfd_create32(0), 0);
	fd = (int)syscall(SYS_memfd_secret, 0u);
	if (fd < 0 || fill_secret(fd) < 0) {
		held(errno, "memfd_secret");
		if (fd >= 0)
			close(fd);
	} else {
		try_exec_memfd("memfd_secret", fd, 1);
	}
	/* vm.memfd_noexec=2 on the host refuses all of it without a jail */
	if (slurp("/proc/sys/vm/memfd_noexec", v, sizeof(v)) > 0 && v[0] == '2')
		finish("vm.memfd_noexec=2 on this host");
	finish(NULL);
}

/* ------------------------------------------------------------------ */
/* The environment and --collect */

extern char **environ;

void p_env_leak(void)
{
	const char *secret = need("secret");
	char buf[65536];
	ssize_t n;
	int count = 0;

	for (char **e = environ; *e; e++, count++)
		if (strstr(*e, secret))
			esc("environ holds %.*s=...", (int)strcspn(*e, "="), *e);
	n = slurp("/proc/self/environ", buf, sizeof(buf));
	if (n > 0 && contains(buf, (size_t)n, secret))
		esc("/proc/self/environ holds the canary");
	n = slurp("/proc/1/environ", buf, sizeof(buf));
	if (n > 0 && contains(buf, (size_t)n, secret))
		esc("/proc/1/environ holds the canary");
	if (!st->escaped)
		miss("canary in none of %d variables", count);
	finish(NULL);
}

void p_collect_symlink(void)
{
	const char *canary = need("canary"), *rel = need("relsecret");
	char target[4096];

	snprintf(target, sizeof(target), "%s/secret", canary);
	if (symlink(target, "out") < 0)
		held(errno, "symlink out");
	snprintf(target, sizeof(target), "../../../../../../../../%s", rel);
	if (symlink(target, "out-rel") < 0)
		held(errno, "symlink out-rel");
	snprintf(target, sizeof(target), "/proc/1/root/%s", rel);
	if (symlink(target, "out-proc") < 0)
		held(errno, "symlink out-proc");
	note("planted out, out-rel, out-proc pointing at the host canary; the harness collects them");
	finish(NULL);
}

void p_collect_fifo(void)
{
	if (mkfifo("out-fifo", 0666) < 0)
		held(errno, "mkfifo");
	else
		note("planted the FIFO out-fifo; the harness collects it");
	finish(NULL);
}

/* The canary directory bound copy-on-write (--overlay) at its own path:
 * the jail may write there, and only the outside can say whether the host
 * saw it (the harness checks the canaries as for host-write, and that the
 * result's change set holds no deletion, which the probe never makes).
 * What must not work inside: forging overlayfs's own marks through the
 * overlay (user.overlay.opaque on the directory, user.overlay.whiteout on
 * the secret: from Linux 6.7 such names are stored escaped and mean
 * nothing, before that they are refused), so that the secret vanished from
 * the merged view or the change set read after the run; and reaching the
 * upper layer or the layers' staging place. */
static void forge_marks(const char *dir, const char *secret)
{
	struct stat sb;
	int r;

	r = setxattr(dir, "user.overlay.opaque", "y", 1, 0);
	note("setxattr user.overlay.opaque: %s", r == 0 ? "stored" : en(errno));
	if (r == 0 && control)
		removexattr(dir, "user.overlay.opaque");
	r = setxattr(secret, "user.overlay.whiteout", "y", 1, 0);
	note("setxattr user.overlay.whiteout: %s", r == 0 ? "stored" : en(errno));
	if (r == 0 && control)
		removexattr(secret, "user.overlay.whiteout");
	if (lstat(secret, &sb) < 0)
		esc("the forged marks hid %s (%s)", secret, en(errno));
	else
		held(EPERM, "the marks took no effect: %s is still there", secret);
}

void p_overlay_write(void)
{
	const char *file = need("writable"), *dir = need("canary");
	char path[4096], mi[65536], upper[4096];
	ssize_t n;
	char *u;
	int fd = open(file, O_WRONLY | O_APPEND | O_CLOEXEC);

	if (fd >= 0 && write(fd, "hx-overlay-write\n", 17) == 17)
		note("appended to %s", file);
	else
		note("append to %s: %s", file, en(errno));
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "%s/created-%d", dir, (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	note(fd >= 0 ? "created %s" : "create %s failed", path);
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "%s/secret", dir);
	forge_marks(dir, path);
	if (access("/.hutch-overlay", F_OK) == 0)
		esc("the layers' staging directory /.hutch-overlay is visible");
	else
		held(errno, "/.hutch-overlay");
	n = slurp("/proc/self/mountinfo", mi, sizeof(mi) - 1);
	u = n > 0 ? (mi[n] = '\0', strstr(mi, "upperdir=")) : NULL;
	if (u) {
		snprintf(upper, sizeof(upper), "%.*s", (int)strcspn(u + 9, ", \n"), u + 9);
		fd = open(upper, O_PATH | O_CLOEXEC);
		if (fd >= 0) {
			esc("opened the upper layer %s", upper);
			close(fd);
		} else {
			held(errno, "open the upper layer %s", upper);
		}
	}
	finish(NULL);
}

/* ------------------------------------------------------------------ */
/* Read-only places */

void p_ro_write(void)
{
	char p[64];
	int fd;

	snprintf(p, sizeof(p), "/usr/hx-escape-%d", (int)getpid());
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0) {
		esc("created %s (removed)", p);
		close(fd);
		unlink(p);
	} else {
		held(errno, "create %s", p);
	}
	snprintf(p, sizeof(p), "/hx-escape-%d", (int)getpid());
	if (mkdir(p, 0700) == 0) {
		esc("mkdir %s (removed)", p);
		rmdir(p);
	} else {
		held(errno, "mkdir %s", p);
	}
	open_for_write("/etc/ld.so.cache");
	finish(NULL);
}

/* ------------------------------------------------------------------ */
/* Set-id files: a file made set-user-ID in the jail keeps the bit on the
 * host through a writable bind, where the jail's nosuid does not follow it
 * (hutch-exec(8), BUILT-IN FILTER). Tried in a scratch dir, removed after. */

/* A path the i386 entry point can take: below 4 GiB. */
static char *low_copy(const char *s)
{
	char *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
		       -1, 0);

	if (m == MAP_FAILED)
		return NULL;
	snprintf(m, 4096, "%s", s);
	return m;
}

/* Judge one attempt at path; a file it left is checked and removed. */
static void plant_judge(const char *what, const char *path, long r, int err)
{
	struct stat sb;

	reach(what, r, err);
	if (lstat(path, &sb) == 0) {
		if (sb.st_mode & (S_ISUID | S_ISGID))
			note("%s left mode %o (removed)", path, (unsigned)(sb.st_mode & 07777));
		unlink(path);
	}
}

/* plant_judge() of a call, errno read after it */
#define PLANT(what, path, call)                                                            \
	do {                                                                               \
		long r_ = (long)(call);                                                    \
		int e_ = errno;                                                            \
		plant_judge(what, path, r_, e_);                                           \
	} while (0)

/* A fresh plain 0755 file to change the mode of. */
static const char *plain_file(const char *name)
{
	static char p[128];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", scratch, name);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (fd < 0)
		held(errno, "create plain %s", p);
	else
		close(fd);
	return p;
}

static int c_plant_i386(void *a)
{
	char *p = low_copy((const char *)a);
	long r;

	if (!p) {
		held(errno, "mmap MAP_32BIT");
		return 0;
	}
	r = int80(15 /* i386 chmod */, (long)(uintptr_t)p, 04755, 0);
	plant_judge("i386 chmod 04755", p, r < 0 && r > -4096 ? -1 : r, r < 0 ? (int)-r : 0);
	return 0;
}

/* Mode changes of a plain file, through every entry point. */
static void plant_chmods(void)
{
	const char *f;
	int fd;

	f = plain_file("chmod");
	PLANT("chmod 04755", f, chmod(f, 04755));
	f = plain_file("chmod-g");
	PLANT("chmod 02755", f, chmod(f, 02755));
	f = plain_file("fchmod");
	fd = open(f, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		held(errno, "open %s", f);
	} else {
		PLANT("fchmod 04755", f, fchmod(fd, 04755));
		close(fd);
	}
	f = plain_file("fchmodat2");
	PLANT("fchmodat2 04755", f, syscall(452, AT_FDCWD, f, 04755, 0));
	f = plain_file("x32");
	PLANT("x32 chmod 04755", f, syscall(0x40000000L | SYS_chmod, f, 04755));
	f = plain_file("i386");
	if (in_child(c_plant_i386, (void *)f, 10) == 254)
		held(EINTR, "i386 chmod: killed");
	unlink(f);
}

/* New files born with a set-id mode. */
static void plant_creates(void)
{
	struct { uint64_t flags, mode, resolve; } how = { O_WRONLY | O_CREAT | O_EXCL, 04755, 0 };
	char p[128];
	int fd;

	snprintf(p, sizeof(p), "%s/open", scratch);
	PLANT("open O_CREAT 04755", p, fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 04755));
	if (fd >= 0)
		close(fd);
	snprintf(p, sizeof(p), "%s/creat", scratch);
	PLANT("creat 04755", p, fd = (int)syscall(SYS_creat, p, 04755));
	if (fd >= 0)
		close(fd);
	snprintf(p, sizeof(p), "%s/openat2", scratch);
	PLANT("openat2 O_CREAT 04755", p,
	      fd = (int)syscall(SYS_openat2, AT_FDCWD, p, &how, sizeof(how)));
	if (fd >= 0)
		close(fd);
	snprintf(p, sizeof(p), "%s/mknod", scratch);
	PLANT("mknod S_IFREG|06755", p, mknod(p, S_IFREG | 06755, 0));
	REACH("O_TMPFILE 04755", fd = open(scratch, O_WRONLY | O_TMPFILE | O_CLOEXEC, 04755));
	if (fd >= 0)
		close(fd);
}

void p_setuid_plant(void)
{
	make_scratch();
	plant_chmods();
	plant_creates();
	drop_scratch();
	finish(NULL);
}

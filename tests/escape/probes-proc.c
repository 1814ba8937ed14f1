/* probes-proc.c: the host-process probes of tests/escape: the sentinel seen, signalled,
 * traced and read through /proc, its SysV queue, and the helper and
 * frontend through /proc. Linked into probes (probes.c).
 */
#include "probes.h"

/* ------------------------------------------------------------------ */
/* Host processes */

void p_proc_root(void)
{
	long pid = num("sentinel");
	const char *rel = need("relsecret"), *secret = need("secret");
	char path[4096], buf[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%ld/root/%s", pid, rel);
	n = slurp(path, buf, sizeof(buf));
	if (n >= 0 && contains(buf, (size_t)n, secret))
		esc("read %s: the canary", path);
	else
		held(n < 0 ? (int)-n : EBADMSG, "read %s", path);
	snprintf(path, sizeof(path), "/proc/%ld/cwd/secret", pid);
	n = slurp(path, buf, sizeof(buf));
	if (n >= 0 && contains(buf, (size_t)n, secret))
		esc("read %s: the canary", path);
	else
		held(n < 0 ? (int)-n : EBADMSG, "read %s", path);
	finish(NULL);
}

static int cmdline_has(const char *pid, const char *marker)
{
	char path[64], buf[8192];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%s/cmdline", pid);
	n = slurp(path, buf, sizeof(buf));
	return n > 0 && contains(buf, (size_t)n, marker);
}

void p_proc_see(void)
{
	long pid = num("sentinel");
	const char *marker = need("marker");
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;
	char pidstr[32];

	if (!d) {
		held(errno, "opendir /proc");
	} else {
		while ((e = readdir(d))) {
			if (!isdigit((unsigned char)e->d_name[0]) || atoi(e->d_name) == getpid())
				continue; /* our own argv names the marker */
			n++;
			if (cmdline_has(e->d_name, marker))
				esc("pid %s carries the sentinel's marker", e->d_name);
		}
		closedir(d);
		if (!st->escaped)
			miss("marker in none of %d visible processes", n);
	}
	snprintf(pidstr, sizeof(pidstr), "%ld", pid);
	if (kill((pid_t)pid, 0) == 0 || errno == EPERM) {
		int e2 = errno;

		if (cmdline_has(pidstr, marker))
			esc("kill(%ld, 0) finds the sentinel", pid);
		else
			note("pid %ld exists here but is not the sentinel (%s)", pid, en(e2));
	} else {
		held(errno, "kill(%ld, 0)", pid);
	}
	finish(NULL);
}

void p_proc_signal(void)
{
	long pid = num("sentinel");
	int pfd;

	if (kill((pid_t)pid, SIGUSR1) == 0)
		esc("kill(%ld, SIGUSR1) delivered", pid);
	else
		held(errno, "kill(%ld, SIGUSR1)", pid);
	pfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
	if (pfd < 0) {
		held(errno, "pidfd_open(%ld)", pid);
	} else {
		if (syscall(SYS_pidfd_send_signal, pfd, SIGUSR1, NULL, 0) == 0)
			esc("pidfd_send_signal(%ld, SIGUSR1) delivered", pid);
		else
			held(errno, "pidfd_send_signal(%ld)", pid);
		close(pfd);
	}
	finish(NULL);
}

void p_ptrace(void)
{
	long pid = num("sentinel");
	const char *secret = need("secret");
	unsigned long addr = strtoul(need("addr"), NULL, 0);
	pid_t targets[2] = { (pid_t)pid, getppid() };
	char buf[256] = "";
	struct iovec local = { buf, strlen(secret) }, remote = { (void *)addr, strlen(secret) };
	ssize_t n;

	for (int i = 0; i < 2; i++) {
		if (targets[i] <= 0 || targets[i] == getpid() || (i == 1 && targets[1] == targets[0]))
			continue;
		if (ptrace(PTRACE_SEIZE, targets[i], 0, 0) == 0)
			esc("PTRACE_SEIZE pid %d", (int)targets[i]);
		else
			held(errno, "PTRACE_SEIZE pid %d", (int)targets[i]);
	}
	if (strlen(secret) < sizeof(buf)) {
		n = process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0);
		if (n > 0 && memcmp(buf, secret, strlen(secret)) == 0)
			esc("process_vm_readv read the sentinel's secret");
		else
			held(n < 0 ? errno : EBADMSG, "process_vm_readv(%ld)", pid);
		/* the same bytes written back where they were: no change */
		memcpy(buf, secret, strlen(secret));
		n = process_vm_writev((pid_t)pid, &local, 1, &remote, 1, 0);
		if (n > 0)
			esc("process_vm_writev wrote into the sentinel (its own bytes back)");
		else
			held(errno, "process_vm_writev(%ld)", pid);
	}
	finish(NULL);
}

void p_proc_mem(void)
{
	long pid = num("sentinel");
	const char *secret = need("secret");
	unsigned long addr = strtoul(need("addr"), NULL, 0);
	char path[64], buf[8192];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/mem", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		held(errno, "open %s", path);
	} else {
		n = pread(fd, buf, strlen(secret), (off_t)addr);
		if (n > 0 && contains(buf, (size_t)n, secret))
			esc("read the sentinel's secret from %s", path);
		else
			held(n < 0 ? errno : EBADMSG, "pread %s", path);
		close(fd);
	}
	snprintf(path, sizeof(path), "/proc/%ld/environ", pid);
	n = slurp(path, buf, sizeof(buf));
	if (n > 0 && contains(buf, (size_t)n, secret))
		esc("read the sentinel's secret from %s", path);
	else
		held(n < 0 ? (int)-n : EBADMSG, "read %s", path);
	finish(NULL);
}

void p_sysv_ipc(void)
{
	key_t key = (key_t)num("ipckey");
	int id = msgget(key, 0);

	if (id >= 0)
		esc("msgget(0x%x) found the sentinel's queue (id %d)", (unsigned)key, id);
	else
		held(errno, "msgget(0x%x)", (unsigned)key);
	finish(NULL);
}

/* ------------------------------------------------------------------ */
/* The helper and frontend through /proc */

static int pid_targets(pid_t *t)
{
	const char *s = arg("sentinel");
	pid_t cand[3] = { 1, getppid(), s ? (pid_t)atol(s) : 0 };
	int n = 0;

	for (int i = 0; i < 3; i++) {
		int dup = 0;

		if (cand[i] <= 0 || cand[i] == getpid())
			continue;
		for (int k = 0; k < n; k++)
			dup |= t[k] == cand[i];
		if (!dup)
			t[n++] = cand[i];
	}
	return n;
}

void p_helper_exe(void)
{
	pid_t t[3];
	int n = pid_targets(t);

	for (int i = 0; i < n; i++) {
		char path[64], link[4096], re[64];
		ssize_t l;
		int fd, w;

		/* pid 1 on the host is init: it is left alone */
		if (control && t[i] == 1)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)t[i]);
		l = readlink(path, link, sizeof(link) - 1);
		link[l > 0 ? l : 0] = '\0';
		fd = open(path, O_PATH | O_CLOEXEC);
		if (fd < 0) {
			held(errno, "O_PATH %s", path);
			continue;
		}
		snprintf(re, sizeof(re), "/proc/self/fd/%d", fd);
		w = open(re, O_WRONLY | O_CLOEXEC);
		if (w >= 0) {
			esc("%s (%s): a writable descriptor, nothing written", path, link);
			close(w);
		} else {
			esc("%s (%s): an O_PATH handle (reopen for writing: %s)", path, link,
			    en(errno));
		}
		w = open(re, O_RDONLY | O_CLOEXEC);
		if (w >= 0)
			close(w);
		close(fd);
	}
	finish(NULL);
}

void p_helper_fds(void)
{
	pid_t t[3];
	int n = pid_targets(t);

	for (int i = 0; i < n; i++) {
		char path[64], sub[384];
		DIR *d;
		struct dirent *e;
		int fd, opened = 0;

		if (control && t[i] == 1)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd", (int)t[i]);
		d = opendir(path);
		if (!d) {
			held(errno, "opendir %s", path);
		} else {
			while ((e = readdir(d))) {
				if (e->d_name[0] == '.')
					continue;
				snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
				fd = open(sub, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
				if (fd < 0)
					fd = open(sub, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
				if (fd >= 0) {
					opened++;
					close(fd);
				}
			}
			closedir(d);
			if (opened)
				esc("reopened %d of the descriptors in %s", opened, path);
			else
				miss("listed %s, reopened none", path);
		}
		fd = (int)syscall(SYS_pidfd_open, t[i], 0);
		if (fd < 0) {
			held(errno, "pidfd_open(%d)", (int)t[i]);
		} else {
			int took = 0, last = 0;

			for (int k = 0; k < 16; k++) {
				int g = (int)syscall(SYS_pidfd_getfd, fd, k, 0);

				if (g >= 0) {
					took++;
					close(g);
				} else if (errno != EBADF) {
					last = errno;
				}
			}
			if (took)
				esc("pidfd_getfd took %d descriptors of pid %d", took, (int)t[i]);
			else
				held(last ? last : EBADF, "pidfd_getfd(pid %d)", (int)t[i]);
			close(fd);
		}
		snprintf(path, sizeof(path), "/proc/%d/environ", (int)t[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			esc("opened %s", path);
			close(fd);
		} else {
			held(errno, "open %s", path);
		}
		snprintf(path, sizeof(path), "/proc/%d/mem", (int)t[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			esc("opened %s", path);
			close(fd);
		} else {
			held(errno, "open %s", path);
		}
	}
	finish(NULL);
}

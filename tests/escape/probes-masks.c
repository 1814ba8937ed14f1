/* probes-masks.c: masks inside binds (hutch(1), "Masks inside binds").
 * ws= is a workspace escape.py binds read-write at /work/ws (on the host,
 * for the control, its host path) holding .env with the canary secret,
 * .git/hooks/pre-commit and .git/config. escape.py replants it after
 * every run and checks the host copy after each.
 *   mask-read: read the hidden .env by every way round the mask: open,
 *     /proc/self/fd reopen, a hard link, rename aside, unmount it,
 *     open_by_handle_at; write and chmod it. ESCAPED when any read shows
 *     the secret or the write or chmod takes.
 *   mask-hook: plant a hook in the protected .git/hooks: write it, make a
 *     new one, set core.hooksPath in .git/config, and rename .git (and
 *     .git/hooks) aside and recreate them with the hook, chmod .git/hooks,
 *     mount a tmpfs over it (mount(2), and fsopen/fsmount/move_mount).
 *     ESCAPED when any write, chmod or mount lands; escape.py also looks
 *     at the host tree. */
#include "probes.h"

#define EVIL "#!/bin/sh\n# hx-evil-hook\n"

static void read_secret(const char *how, const char *path)
{
	const char *secret = need("secret");
	char buf[4096];
	ssize_t n = slurp(path, buf, sizeof(buf));

	if (n < 0)
		held(errno, "%s: read %s", how, path);
	else if (contains(buf, (size_t)n, secret))
		esc("%s: read the secret through %s", how, path);
	else
		note("%s: %s reads %zd bytes, no secret;", how, path, n);
}

/* name_to_handle_at of the hidden file, then open_by_handle_at. */
static void by_handle(const char *ws, const char *env)
{
	struct {
		struct file_handle fh;
		unsigned char data[128];
	} h;
	int mount_id, dfd, fd;
	char buf[4096];

	h.fh.handle_bytes = sizeof(h.data);
	if (syscall(SYS_name_to_handle_at, AT_FDCWD, env, &h.fh, &mount_id, 0) < 0) {
		held(errno, "name_to_handle_at %s", env);
		return;
	}
	dfd = open(ws, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fd = dfd < 0 ? -1 : (int)syscall(SYS_open_by_handle_at, dfd, &h.fh, O_RDONLY);
	if (fd < 0) {
		held(errno, "open_by_handle_at");
	} else {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);

		if (n > 0 && contains(buf, (size_t)n, need("secret")))
			esc("open_by_handle_at read the secret");
		else
			note("open_by_handle_at: no secret;");
		close(fd);
	}
	if (dfd >= 0)
		close(dfd);
}

void p_mask_read(void)
{
	const char *ws = need("ws");
	char env[4096], alt[4096], proc[64];
	int fd;

	snprintf(env, sizeof(env), "%s/.env", ws);
	read_secret("open", env);
	fd = open(env, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		read_secret("reopen", proc);
		close(fd);
	}
	snprintf(alt, sizeof(alt), "%s/hx-link", ws);
	if (link(env, alt) == 0)
		read_secret("hard link", alt);
	else
		held(errno, "link %s", env);
	snprintf(alt, sizeof(alt), "%s/hx-moved", ws);
	if (rename(env, alt) == 0)
		read_secret("renamed aside", alt);
	else
		held(errno, "rename %s", env);
	if (umount2(env, MNT_DETACH) == 0)
		read_secret("unmounted", env);
	else
		held(errno, "umount2 %s", env);
	by_handle(ws, env);
	fd = open(env, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		held(errno, "open %s for writing", env);
	else if (write(fd, "hx-evil\n", 8) == 8)
		esc("appended to the hidden %s", env);
	else
		held(errno, "write %s", env);
	if (fd >= 0)
		close(fd);
	if (chmod(env, 0666) == 0)
		esc("chmod %s took", env);
	else
		held(errno, "chmod %s", env);
	finish(NULL);
}

static void write_file(const char *how, const char *path, const char *text, int flags)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags, 0755);

	if (fd < 0) {
		held(errno, "%s: open %s", how, path);
		return;
	}
	if (write(fd, text, strlen(text)) == (ssize_t)strlen(text))
		esc("%s: wrote %s", how, path);
	else
		held(errno, "%s: write %s", how, path);
	close(fd);
}

/* Move dir aside, make a fresh one and hooks/pre-commit in it. */
static void swap_aside(const char *how, const char *dir, const char *hooks, const char *hook)
{
	char aside[4096];

	snprintf(aside, sizeof(aside), "%s-hx-aside", dir);
	if (rename(dir, aside) < 0) {
		held(errno, "%s: rename %s aside", how, dir);
		return;
	}
	note("%s: renamed %s aside;", how, dir);
	if ((mkdir(dir, 0755) < 0 && errno != EEXIST) ||
	    (mkdir(hooks, 0755) < 0 && errno != EEXIST))
		held(errno, "%s: mkdir %s", how, hooks);
	write_file(how, hook, EVIL, O_CREAT | O_TRUNC);
}

/* A tmpfs over the protected hooks: a writable empty directory there. */
static void mount_over(const char *hooks)
{
	int fs, mnt;

	if (mount("none", hooks, "tmpfs", 0, NULL) == 0)
		esc("mount tmpfs over %s", hooks);
	else
		held(errno, "mount over %s", hooks);
	fs = (int)syscall(SYS_fsopen, "tmpfs", 0);
	if (fs < 0) {
		held(errno, "fsopen");
		return;
	}
	if (syscall(SYS_fsconfig, fs, 6 /* FSCONFIG_CMD_CREATE */, NULL, NULL, 0) < 0) {
		held(errno, "fsconfig create");
	} else if ((mnt = (int)syscall(SYS_fsmount, fs, 0, 0)) < 0) {
		held(errno, "fsmount");
	} else {
		if (syscall(SYS_move_mount, mnt, "", AT_FDCWD, hooks, 4 /* F_EMPTY_PATH */) == 0)
			esc("move_mount of a tmpfs over %s", hooks);
		else
			held(errno, "move_mount over %s", hooks);
		close(mnt);
	}
	close(fs);
}

void p_mask_hook(void)
{
	const char *ws = need("ws");
	char git[4096], hooks[4096], hook[4096], path[4096];

	snprintf(git, sizeof(git), "%s/.git", ws);
	snprintf(hooks, sizeof(hooks), "%s/.git/hooks", ws);
	snprintf(hook, sizeof(hook), "%s/.git/hooks/pre-commit", ws);
	write_file("in place", hook, EVIL, O_TRUNC);
	snprintf(path, sizeof(path), "%s/.git/hooks/post-checkout", ws);
	write_file("new hook", path, EVIL, O_CREAT | O_EXCL);
	snprintf(path, sizeof(path), "%s/.git/config", ws);
	write_file("config", path, "[core]\n\thooksPath = /tmp/hx-evil\n", O_APPEND);
	if (chmod(hooks, 0777) == 0)
		esc("chmod %s took", hooks);
	else
		held(errno, "chmod %s", hooks);
	if (control)	/* root would mount on the host's tree */
		note("mount over: not tried outside a jail;");
	else
		mount_over(hooks);
	swap_aside("hooks aside", hooks, hooks, hook);
	swap_aside(".git aside", git, hooks, hook);
	finish(NULL);
}

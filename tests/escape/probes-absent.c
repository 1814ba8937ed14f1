/* probes-absent.c: the two gaps of masks inside binds that a mask over an
 * existing path does not close (hutch(1), "Masks inside binds").
 *   mask-hardlink: ws= holds .env (hidden: by the policy's patterns or
 *     --hide) and hx-alias, a host hard link of it that escape.py made;
 *     read the secret through the alias. ESCAPED when it shows.
 *   mask-absent, mask-absent-rw: ws2= is a repository without
 *     .git/hooks that escape.py binds as an overlay (mask-absent) or
 *     read-write (mask-absent-rw, which hutch must refuse); plant
 *     .git/hooks/pre-commit: make the directory and the hook, and move
 *     .git aside to make a fresh one with the hook. ESCAPED when any write
 *     lands; escape.py also looks at the host tree and the change set. */
#include "probes.h"

#define EVIL "#!/bin/sh\n# hx-evil-hook\n"

void p_mask_hardlink(void)
{
	const char *ws = need("ws"), *secret = need("secret");
	char alias[4096], buf[4096];
	ssize_t n;

	snprintf(alias, sizeof(alias), "%s/hx-alias", ws);
	n = slurp(alias, buf, sizeof(buf));
	if (n < 0)
		held(errno, "read %s", alias);
	else if (contains(buf, (size_t)n, secret))
		esc("read the hidden .env's secret through its hard link %s", alias);
	else
		note("%s reads %zd bytes, no secret;", alias, n);
	finish(NULL);
}

static void plant(const char *how, const char *hooks, const char *hook)
{
	int fd;

	if (mkdir(hooks, 0755) < 0 && errno != EEXIST) {
		held(errno, "%s: mkdir %s", how, hooks);
		return;
	}
	fd = open(hook, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (fd < 0) {
		held(errno, "%s: create %s", how, hook);
		return;
	}
	if (write(fd, EVIL, strlen(EVIL)) == (ssize_t)strlen(EVIL))
		esc("%s: wrote %s", how, hook);
	else
		held(errno, "%s: write %s", how, hook);
	close(fd);
}

void p_mask_absent(void)
{
	const char *ws = need("ws2");
	char git[4096], aside[4096], hooks[4096], hook[4096];

	snprintf(git, sizeof(git), "%s/.git", ws);
	snprintf(aside, sizeof(aside), "%s/.git-hx-aside", ws);
	snprintf(hooks, sizeof(hooks), "%s/.git/hooks", ws);
	snprintf(hook, sizeof(hook), "%s/.git/hooks/pre-commit", ws);
	plant("in place", hooks, hook);
	if (rename(git, aside) < 0) {
		held(errno, ".git aside: rename %s", git);
	} else if (mkdir(git, 0755) < 0) {
		held(errno, ".git aside: mkdir %s", git);
	} else {
		note(".git aside: renamed;");
		plant(".git aside", hooks, hook);
	}
	finish(NULL);
}

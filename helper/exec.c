/* exec.c: phase 2, the target's last step: execve, searching PATH (taken
 * from the target's own environment, as execvpe would) when the command has
 * no slash. The search runs inside the jail, so it sees the jail's files.
 * Async-signal-safe: a static buffer, no allocation. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "helper.h"

static const char *env_path(char *const *envp)
{
	for (; *envp; envp++)
		if (strncmp(*envp, "PATH=", 5) == 0)
			return *envp + 5;
	return "/usr/local/bin:/usr/bin:/bin";
}

_Noreturn void exec_target(const struct spec *sp)
{
	static char path[PATH_MAX];
	const char *cmd = sp->argv[0], *p;
	size_t cmd_len = strlen(cmd);
	int saved = ENOENT;

	if (strchr(cmd, '/')) {
		execve(cmd, sp->argv, sp->envp);
		fail(STAGE_EXEC, SITE_EXEC_EXECVE, errno);
	}
	if (cmd_len == 0)
		fail(STAGE_EXEC, SITE_EXEC_EXECVE, ENOENT);
	for (p = env_path(sp->envp);; p++) {
		size_t n = strcspn(p, ":");

		if (n > 0 && n + 1 + cmd_len < sizeof(path)) {
			memcpy(path, p, n);
			path[n] = '/';
			memcpy(path + n + 1, cmd, cmd_len + 1);
			execve(path, sp->argv, sp->envp);
			/* Like execvp: remember a permission problem, go on past
			 * a missing file, stop on anything else. */
			if (errno == EACCES)
				saved = EACCES;
			else if (errno != ENOENT && errno != ENOTDIR)
				fail(STAGE_EXEC, SITE_EXEC_EXECVE, errno);
		}
		p += n;
		if (*p == '\0')
			break;
	}
	fail(STAGE_EXEC, SITE_EXEC_EXECVE, saved);
}

/* run-tty.c: see run-tty.h. The saved settings live in statics so that a
 * signal handler can restore them with tcsetattr, which is
 * async-signal-safe; the handler then re-raises with the default action. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "cli/run-tty.h"

static struct termios saved;
static volatile sig_atomic_t saved_fd = -1;

void run_tty_restore(void)
{
	int fd = saved_fd;

	if (fd < 0)
		return;
	saved_fd = -1;
	(void)tcsetattr(fd, TCSADRAIN, &saved);
}

static void restore_and_reraise(int sig)
{
	int err = errno;

	run_tty_restore();
	signal(sig, SIG_DFL);
	raise(sig);
	errno = err;
}

static void install_handlers(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE,
				    SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };
	static int installed;
	struct sigaction sa;

	if (installed)
		return;
	installed = 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = restore_and_reraise;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;

		/* A signal the caller set to be ignored stays ignored. */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	}
	atexit(run_tty_restore);
}

int run_tty_enter(int fd)
{
	struct termios raw;

	if (!isatty(fd))
		return -ENOTTY;
	if (tcgetattr(fd, &saved) < 0)
		return -errno;
	install_handlers();
	raw = saved;
	cfmakeraw(&raw);
	saved_fd = fd;
	if (tcsetattr(fd, TCSADRAIN, &raw) < 0) {
		int r = -errno;

		saved_fd = -1;
		return r;
	}
	return 0;
}

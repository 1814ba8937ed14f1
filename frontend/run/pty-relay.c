/* pty-relay.c: see pty-relay.h. Two descriptors of the one master: the
 * supervisor closes its stdin side when the caller's input ends and its
 * stdout side at EOF (EIO once every slave is closed), independently.
 * Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fd-util.h"
#include "run/pty-relay.h"

void pty_relay_resize(int size_fd, int master)
{
	struct winsize ws;

	if (size_fd >= 0 && master >= 0 && ioctl(size_fd, TIOCGWINSZ, &ws) == 0)
		(void)ioctl(master, TIOCSWINSZ, &ws);
}

int pty_relay_attach(int master, int size_fd, int *stdout_rd, int *stdin_wr)
{
	int in = fcntl(master, F_DUPFD_CLOEXEC, 3);
	int r = 0;

	if (in < 0 || fcntl(master, F_SETFL, O_NONBLOCK) < 0)
		r = -errno;
	if (r < 0) {
		if (in >= 0)
			close(in);
		close(master);
		return r;
	}
	pty_relay_resize(size_fd, master);
	fd_close(stdout_rd);
	fd_close(stdin_wr);
	*stdout_rd = master;
	*stdin_wr = in;
	return 0;
}

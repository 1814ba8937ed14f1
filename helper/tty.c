/* tty.c: phase 2, pid 1, for a spec with HUTCH_SPEC_TTY (hutch run --tty).
 * The command's terminal is a new pty of the jail's own devpts (devpts.c),
 * never the caller's: the caller's terminal stays outside, where hutch
 * copies bytes and window sizes between it and the master we send out.
 * tty_prepare opens pts/ptmx, unlocks it, takes the slave with TIOCGPTPEER
 * (no path lookup, so no name in /dev/pts can be swapped in), sends the
 * master on the control socket and makes the slave our 0, 1 and 2, which
 * the command inherits. tty_take_controlling, after setsid, makes it the
 * session's controlling terminal, so the command (in our process group,
 * the terminal's foreground) gets job control and ^C; TIOCSTI and TIOCLINUX
 * stay refused by the seccomp filter loaded after.
 * Async-signal-safe. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "helper.h"
#include "hutch-abi.h"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

void tty_prepare(const struct spec *sp)
{
	int unlock = 0, master, slave;

	if (!(sp->flags & HUTCH_SPEC_TTY))
		return;
	master = open("/dev/pts/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0)
		fail(STAGE_TTY, SITE_TTY_OPEN_PTMX, errno);
	if (ioctl(master, TIOCSPTLCK, &unlock) < 0)
		fail(STAGE_TTY, SITE_TTY_UNLOCK, errno);
	slave = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (slave < 0)
		fail(STAGE_TTY, SITE_TTY_PEER, errno);
	control_send_fd(master, HUTCH_CONTROL_PTY, STAGE_TTY, SITE_TTY_SEND);
	close(master);
	for (int fd = 0; fd <= 2; fd++)
		if (dup2(slave, fd) < 0)
			fail(STAGE_TTY, SITE_TTY_STDIO, errno);
	close(slave);
}

void tty_take_controlling(const struct spec *sp)
{
	if ((sp->flags & HUTCH_SPEC_TTY) && ioctl(0, TIOCSCTTY, 0) < 0)
		fail(STAGE_TTY, SITE_TTY_CONTROLLING, errno);
}

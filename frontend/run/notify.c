/* notify.c: what reaches a run's watch besides its output (see
 * watch.h): the descriptors pid 1 sends on the control socket (the work
 * dir, overlays' upper layers, the seccomp listener, a --tty pty, the
 * proxy's socket, the timings record), and the jail's seccomp user
 * notifications: denials counted and refused, --explain's calls and
 * sealed memfds answered, all rate-limited so the jail slows down, never
 * the loop. Frontend only. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>

#include "fd-util.h"
#include "hutch-abi.h"
#include "run/control-recv.h"
#include "run/memfd-notify.h"
#include "run/pty-relay.h"
#include "run/watch.h"

/* pid 1 sends the work dir (for collect), the overlays' upper layers
 * (for the change set), the seccomp listener (for denial reports), a
 * --tty pty and network proxy's listening socket on the control socket,
 * and last its timings. */
int notify_read_control(struct jail_watch *l)
{
	char tag;
	int fd, r = control_recv(l->o.control_fd, &tag, &fd, &l->res->timings);

	if (r == -EAGAIN)
		return -1;
	if (r < 0) {
		watch_close(l, &l->o.control_fd); /* closed, or nothing we expect */
		return 0;
	}
	if (fd < 0)
		return 1; /* the timings record: taken */
	if (tag == HUTCH_CONTROL_WORKDIR && l->res->workdir_fd < 0)
		l->res->workdir_fd = fd;
	else if (tag == HUTCH_CONTROL_OVERLAY && l->res->n_overlay_fds < OUTCOME_MAX_OVERLAYS)
		l->res->overlay_fd[l->res->n_overlay_fds++] = fd;
	else if (tag == HUTCH_CONTROL_PTY && l->o.tty && !l->tty_attached) {
		l->tty_attached = true;
		watch_unwatch(l, l->jp->stdout_rd);	/* the master replaces them */
		watch_unwatch(l, l->jp->stdin_wr);
		if (pty_relay_attach(fd, l->o.tty_size_fd, &l->jp->stdout_rd, &l->jp->stdin_wr) < 0)
			watch_request_kill(l, HUTCH_ERR_INTERNAL, NULL);
	} else if (tag == HUTCH_CONTROL_PROXY) {
		watch_proxy_start(l, fd); /* takes fd */
	} else if (tag == HUTCH_CONTROL_LISTENER && l->listener_fd < 0) {
		l->listener_fd = fd;
		l->res->denials_attributed = true;
		l->res->explain.attached = l->res->explain.requested;
	} else
		close(fd);
	return 1;
}

static void count_denial(struct outcome *o, int nr, uint32_t arch)
{
	for (size_t i = 0; i < o->n_denials; i++)
		if (o->denials[i].nr == nr && o->denials[i].arch == arch) {
			o->denials[i].count++;
			return;
		}
	if (o->n_denials < DENIALS_MAX)
		o->denials[o->n_denials++] = (struct denial){ nr, arch, 1 };
	else
		o->denials_other++;
}

bool notify_throttled(struct jail_watch *l, uint64_t t)
{
	if (t - l->notif_window >= NOTIFY_WINDOW_MS) {
		l->notif_window = t;
		l->notif_in_window = 0;
	}
	return l->notif_in_window >= NOTIFY_PER_WINDOW;
}

/* A refused ioctl answers ENOTTY, as a driver without that request would
 * (libraries fall back on it; an allow list refuses most requests), except
 * TIOCSTI and TIOCLINUX, whose refusal is the jail's and says so. */
static int denial_errno(const struct seccomp_data *d)
{
	uint32_t req = (uint32_t)d->args[1];

	if (d->nr != seccomp_syscall_resolve_name_arch(d->arch, "ioctl"))
		return EPERM;
	return req == TIOCSTI || req == TIOCLINUX ? EPERM : ENOTTY;
}

/* A denied call waits for us: record it by number and answer EPERM
 * (ENOTTY for an ioctl: denial_errno). */
void notify_read(struct jail_watch *l)
{
	l->notif_in_window++;
	memset(l->notif, 0, l->notif_size);
	if (ioctl(l->listener_fd, SECCOMP_IOCTL_NOTIF_RECV, l->notif) < 0) {
		if (errno != EINTR && errno != ENOENT)
			watch_close(l, &l->listener_fd);
		return;
	}
	/* --explain's: only calls the policy allows, answered "continue". */
	if (explain_watch_wants(&l->ex, &l->notif->data)) {
		explain_watch_answer(&l->ex, l->listener_fd, l->notif, l->notif_resp, l->resp_size);
		return;
	}
	if (l->o.memfd_sealed && memfd_notify_is_memfd(&l->notif->data)) {
		memfd_notify_answer(l->listener_fd, l->notif, l->notif_resp, l->resp_size);
		return; /* not a denial: the memfd, sealed against exec */
	}
	count_denial(l->res, l->notif->data.nr, l->notif->data.arch);
	memset(l->notif_resp, 0, l->resp_size);
	l->notif_resp->id = l->notif->id;
	l->notif_resp->error = -denial_errno(&l->notif->data);
	/* ENOENT: the caller died meanwhile; nothing to answer. */
	(void)ioctl(l->listener_fd, SECCOMP_IOCTL_NOTIF_SEND, l->notif_resp);
}

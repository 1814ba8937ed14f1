/* serve-listen.c: where `hutch serve`'s clients come from: systemd socket
 * activation, the listeners on the loop, and accepting within bounds.
 * A listener is watched only while the server can take a client: below
 * CONNS_MAX connections, with descriptors left for a jail beside the new
 * connection, and not within ACCEPT_BACKOFF_MS of an EMFILE or ENFILE
 * (left watched, a listener the kernel cannot accept from would wake the
 * loop for ever: issue 18). Clients meanwhile wait in the backlog and
 * are taken once descriptors free up. Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "serve/serve.h"

#define ACCEPT_BACKOFF_MS 100

/* systemd socket activation without libsystemd: LISTEN_PID must be us.
 * The number of descriptors taken, 0 for none, or -errno. */
int listen_take_activated(struct srv *s)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	long n;

	if (!pid || !fds || strtol(pid, NULL, 10) != (long)getpid())
		return 0;
	n = strtol(fds, NULL, 10);
	if (n < 1 || n > 16)
		return -EINVAL;
	for (int fd = 3; fd < 3 + n; fd++) {
		int acc = 0;
		socklen_t l = sizeof(acc);

		if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &l) < 0)
			return -EBADF;
		fcntl(fd, F_SETFD, FD_CLOEXEC);
		if (acc) {
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
			s->listen_fds[s->n_listen++] = fd;
		} else if (!conn_new(s, fd, true, conn_peer_uid(fd))) { /* Accept=yes: one connection each */
			return -ENOMEM;
		}
	}
	/* Accept=yes hands us connections only: like --fd, this instance is
	 * done when they close (systemd starts one per connection). */
	if (s->n_listen == 0)
		s->single = true;
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	return (int)n;
}

/* A new client of a listening socket, within --max-conn-per-uid: one user
 * holding connections open cannot take every slot from the others. Over
 * the bound it gets one failed busy event and the end. */
static void conn_accept(struct srv *s, int fd)
{
	uid_t uid = conn_peer_uid(fd);
	size_t n = 0, len = 0;
	uint8_t *frame;

	for (struct conn *c = s->conns; c; c = c->next)
		if (c->fd >= 0 && !c->dead && c->timed && c->uid == uid)
			n++;	/* one that is closing does not hold a slot */
	/* At the bound, a client that hung up and whose handler has not run
	 * yet this turn holds none either. */
	for (struct conn *c = s->conns; c && n >= s->max_conn_uid; c = c->next)
		if (c->fd >= 0 && !c->dead && c->timed && c->uid == uid && conn_hung_up(c)) {
			c->dead = true;
			n--;
		}
	if (n < s->max_conn_uid) {
		conn_new(s, fd, true, uid);
		return;
	}
	frame = proto_failed(0, HUTCH_ERR_BUSY, "too many connections from this user "
				"(--max-conn-per-uid)", &len);
	if (frame)
		(void)send(fd, frame, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	free(frame);
	serve_log_conn_refused(&s->log, fd, HUTCH_ERR_BUSY);
	close(fd);
}

/* Room for one more client: a connection, and descriptors for a jail
 * beside it (a quarter of the limit at most, for a tiny limit), so
 * connections alone never starve the runs they ask for. */
static bool can_take(const struct srv *s)
{
	uint64_t jail = FDS_PER_JAIL + FDS_SPAWN;

	if (jail > s->nofile / 4)
		jail = s->nofile / 4;
	return !s->draining && s->n_conns < CONNS_MAX && serve_fd_room(s, 1 + jail);
}

static void set_accepting(struct srv *s, bool on)
{
	if (s->accepting == on)
		return;
	s->accepting = on;
	for (size_t i = 0; i < s->n_listen; i++)
		if (s->listen_ev[i])
			(void)evwatch_set_events(s->listen_ev[i], on ? EPOLLIN : 0);
}

/* Every client waiting, while there is room: a burst is taken in one
 * turn, not one client per turn behind the spawns of the requests that
 * arrived with it. */
static void on_listener(struct evwatch *w, uint32_t events, void *data)
{
	struct srv *s = data;

	(void)events;
	while (can_take(s)) {
		int cfd = accept4(evwatch_fd(w), NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

		if (cfd < 0 && errno == EINTR)
			continue;
		if (cfd < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
				 errno == ENOMEM)) {
			/* Out of descriptors after all (another process, or our
			 * count is short): not again before the back-off. */
			s->accept_resume = time_add_ms(time_now_ms(), ACCEPT_BACKOFF_MS);
			break;
		}
		if (cfd < 0)
			return;	/* EAGAIN: none left; ECONNABORTED: that one left */
		conn_accept(s, cfd);
	}
	set_accepting(s, false);	/* listen_tick resumes it */
}

int listen_watch(struct srv *s)
{
	for (size_t i = 0; i < s->n_listen; i++) {
		s->listen_ev[i] = evwatch_add(s->loop, s->listen_fds[i], 0, on_listener, NULL, s);
		if (!s->listen_ev[i])
			return -errno;
	}
	return 0;
}

/* Each turn: the listeners watched when there is room again. */
void listen_tick(struct srv *s, uint64_t now, uint64_t *next)
{
	bool back_off = now < s->accept_resume;

	set_accepting(s, !back_off && can_take(s));
	if (back_off && s->accept_resume < *next)
		*next = s->accept_resume;
}

/* SIGTERM, or the end: new clients are refused at once, not left
 * waiting. The --socket path goes at exit (serve_socket_close). */
void listen_close(struct srv *s)
{
	for (size_t i = 0; i < s->n_listen; i++) {
		evwatch_del(s->listen_ev[i]);
		s->listen_ev[i] = NULL;
		close(s->listen_fds[i]);
	}
	s->n_listen = 0;
	s->accepting = false;
	s->sock.fd = -1;
}

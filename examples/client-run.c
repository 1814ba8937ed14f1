/* client-run.c: hutch-client's one run (see client-run.h). The client is
 * meant to be scripted like `hutch run`: the command's output on our
 * stdout and stderr while it runs, its exit status as ours, and hutch's
 * own outcomes as hutch(1)'s EXIT STATUS gives them. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "client-json.h"
#include "client-run.h"
#include "errors.h"
#include "fd-util.h"
#include "frame-codec.h"

#define MAX_EVENT (256u << 20)	/* a result document may carry 64 MiB twice, base64'd */
#define RUN_ID 1
#define CANCEL_ID 2

int client_block_signals(void)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -1;
	fd = signalfd(-1, &set, SFD_CLOEXEC);
	if (fd < 0)	/* no cancel then, but a signal still ends us */
		sigprocmask(SIG_UNBLOCK, &set, NULL);
	return fd;
}

/* hutch(1)'s status for an error code: exec_failed with ENOENT is 127. */
static int code_status(const char *err, const char *end)
{
	const char *v, *ve, *ev, *eve;

	if (!json_member(err, end, "code", &v, &ve) || *v != '"')
		return HUTCH_EXIT_FAILURE;
	for (int i = 1; i < HUTCH_ERR_MAX; i++) {
		const char *name = hutch_err_name((enum hutch_err)i);
		size_t n = strlen(name);

		if ((size_t)(ve - v) != n + 2 || memcmp(v + 1, name, n) != 0)
			continue;
		if (i == HUTCH_ERR_EXEC_FAILED && json_member(err, end, "errno", &ev, &eve) &&
		    eve - ev == 8 && memcmp(ev, "\"ENOENT\"", 8) == 0)
			return HUTCH_EXIT_NOT_FOUND;
		return hutch_err_exit_status((enum hutch_err)i);
	}
	return HUTCH_EXIT_FAILURE;
}

int client_exit_status(const char *t, size_t len)
{
	const char *end = t + len, *v, *ve, *s, *se;
	char status[16];

	if (json_member(t, end, "failed", &v, &ve))
		return code_status(v, ve);
	if (!json_member(t, end, "exit", &v, &ve))
		return json_member(t, end, "pong", &s, &se) ? 0 : HUTCH_EXIT_FAILURE;
	json_member_str(v, ve, "status", status, sizeof(status));
	if (strcmp(status, "exited") == 0)
		return (int)json_member_int(v, ve, "exit_code", HUTCH_EXIT_FAILURE);
	if (strcmp(status, "signaled") == 0 && json_member(v, ve, "signal", &s, &se))
		return 128 + (int)json_member_int(s, se, "number", HUTCH_EXIT_FAILURE - 128);
	if (json_member(v, ve, "error", &s, &se) && *s == '{')
		return code_status(s, se);
	return HUTCH_EXIT_FAILURE;
}

/* As `hutch run` says a failure: "hutch-client: CODE: message (at
 * POINTER)", for a failed event or a result document's error. */
static void print_error(const char *err, const char *end)
{
	const char *v, *ve;
	struct buf code = { 0 }, msg = { 0 }, ptr = { 0 };

	if (json_member(err, end, "code", &v, &ve))
		json_string_decode(v, ve, &code);
	if (json_member(err, end, "message", &v, &ve))
		json_string_decode(v, ve, &msg);
	if (json_member(err, end, "pointer", &v, &ve))
		json_string_decode(v, ve, &ptr);
	fprintf(stderr, "hutch-client: %s: %s%s%s%s\n", code.p ? code.p : "internal",
		msg.p ? msg.p : "", ptr.p ? " (at " : "", ptr.p ? ptr.p : "", ptr.p ? ")" : "");
	free(code.p);
	free(msg.p);
	free(ptr.p);
}

/* What one run has shown so far. */
struct shown {
	size_t out, err;	/* bytes of each stream written */
};

/* A stream's bytes from *seen on, of the stream object at [v, ve), to f:
 * live events and the result document both hold the stream from its
 * start (the document perhaps cut shorter), so only what is past what we
 * wrote is new. */
static void show_stream(const char *v, const char *ve, size_t *seen, FILE *f)
{
	struct buf b = { 0 };

	if (json_stream_bytes(v, ve, &b) == 0 && b.len > 0) {
		fwrite(b.p, 1, b.len, f);
		fflush(f);
		*seen += b.len;
	}
	free(b.p);
}

static void show_rest(const char *v, const char *ve, size_t *seen, FILE *f)
{
	struct buf b = { 0 };

	if (json_stream_bytes(v, ve, &b) == 0 && b.len > *seen) {
		fwrite(b.p + *seen, 1, b.len - *seen, f);
		fflush(f);
		*seen = b.len;
	}
	free(b.p);
}

/* One event: -1 to go on, else the exit status. */
static int on_event(const char *t, size_t len, bool json, struct shown *sh)
{
	const char *end = t + len, *v, *ve, *s, *se;
	long long id = json_member_int(t, end, "id", -1);

	if (id != RUN_ID && id != 0)
		return -1;	/* the cancel's ack, or its failure once the run ended */
	if (json_member(t, end, "live", &v, &ve)) {
		if (!json && json_member(v, ve, "stdout", &s, &se))
			show_stream(s, se, &sh->out, stdout);
		if (!json && json_member(v, ve, "stderr", &s, &se))
			show_stream(s, se, &sh->err, stderr);
		return -1;
	}
	if (json) {
		fwrite(t, 1, len, stdout);
		fputc('\n', stdout);
		return fflush(stdout) == 0 && id != 0 ? 0 : CLIENT_EXIT_FAILURE;
	}
	if (json_member(t, end, "exit", &v, &ve)) {
		if (json_member(v, ve, "stdout", &s, &se))
			show_rest(s, se, &sh->out, stdout);
		if (json_member(v, ve, "stderr", &s, &se))
			show_rest(s, se, &sh->err, stderr);
		if (json_member(v, ve, "error", &s, &se) && *s == '{')
			print_error(s, se);	/* null when the command ran */
	} else if (json_member(t, end, "failed", &v, &ve)) {
		print_error(v, ve);
	}
	return client_exit_status(t, len);
}

/* SIGINT or SIGTERM: the first cancels the run (its final event still
 * decides the status), a second gives up. -1 to go on, else the status. */
static int on_signal(int fd, int sig_fd, bool *cancelled)
{
	static const char cancel[] = "{\"version\":1,\"id\":2,\"cancel\":{\"target\":1}}";
	struct signalfd_siginfo si;
	uint8_t hdr[FRAME_HEADER_BYTES];

	if (read(sig_fd, &si, sizeof(si)) != sizeof(si))
		return -1;
	if (*cancelled) {
		fprintf(stderr, "hutch-client: signal %u again: leaving; the server kills the "
			"jail when the connection closes\n", si.ssi_signo);
		return CLIENT_EXIT_FAILURE;
	}
	*cancelled = true;
	frame_put_header(hdr, sizeof(cancel) - 1);
	if (fd_write_all(fd, hdr, sizeof(hdr)) < 0 || fd_write_all(fd, cancel, sizeof(cancel) - 1) < 0)
		fprintf(stderr, "hutch-client: cannot send the cancel\n");
	return -1;
}

int client_next_frame(struct frame_reader *fr, const uint8_t *p, size_t n, size_t *off,
		      uint8_t **ret_frame, size_t *ret_len)
{
	while (*off < n) {
		size_t used = 0;
		enum frame_state st = frame_reader_feed(fr, p + *off, n - *off, &used);

		*off += used;
		if (st == FRAME_MORE)
			continue;
		if (st != FRAME_DONE) {
			fprintf(stderr, "hutch-client: bad frame from the server\n");
			return -1;
		}
		*ret_frame = frame_reader_take(fr, ret_len);
		return 1;
	}
	return 0;
}

/* Bytes from the server fed to the frame reader, each whole event
 * handled. -1 to go on, else the exit status. */
static int on_bytes(struct frame_reader *fr, const uint8_t *p, size_t n, bool json,
		    struct shown *sh)
{
	size_t off = 0, len = 0;
	uint8_t *frame;
	int got, r;

	while ((got = client_next_frame(fr, p, n, &off, &frame, &len)) > 0) {
		r = on_event((const char *)frame, len, json, sh);
		free(frame);
		if (r >= 0)
			return r;
	}
	return got < 0 ? CLIENT_EXIT_FAILURE : -1;
}

int client_run_wait(int fd, int sig_fd, bool json)
{
	static uint8_t chunk[64 << 10];
	struct frame_reader fr = { .max = MAX_EVENT };
	struct pollfd p[2] = { { .fd = fd, .events = POLLIN }, { .fd = sig_fd, .events = POLLIN } };
	struct shown sh = { 0 };
	bool cancelled = false;
	int r = -1;

	while (r < 0) {
		ssize_t n;

		if (poll(p, sig_fd >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			r = CLIENT_EXIT_FAILURE;
			break;
		}
		if (sig_fd >= 0 && (p[1].revents & POLLIN))
			r = on_signal(fd, sig_fd, &cancelled);
		if (r >= 0 || !(p[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "hutch-client: the server closed the connection\n");
			r = CLIENT_EXIT_FAILURE;
			break;
		}
		r = on_bytes(&fr, chunk, (size_t)n, json, &sh);
	}
	frame_reader_reset(&fr);
	return r;
}

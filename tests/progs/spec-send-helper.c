/* spec-send-helper.c: tests/progs/spec-send's helper (see the header of
 * spec-send.c): started on the spec and status pipes as frontend/spawn.c
 * starts it, killed on --timeout, and its status pipe read to EOF and
 * printed as the rest of the result line. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fd-util.h"
#include "hutch-abi.h"
#include "spec.h"
#include "status.h"

#include "spec-send.h"

#define STATUS_WAIT_MS 10000

volatile pid_t helper_pid;
volatile sig_atomic_t timed_out;
int ignore_sigchld;
int describe;
int keep_fds;

static const char *errno_name(int err)
{
	static char num[16];
	const char *s;

	if (err == 0)
		return "0";
	s = strerrorname_np(err);
	if (s)
		return s;
	snprintf(num, sizeof(num), "%d", err);
	return num;
}

void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
	if (helper_pid > 0)
		kill(helper_pid, SIGKILL);
}

/* The child's half, as in frontend/spawn.c: every source moved above the
 * fixed numbers first, so no dup2 clobbers one another still needs; a
 * failure before the helper runs is a helper_exec record, as there. */
_Noreturn void child_exec(const char *helper, pid_t parent, int spec_rd, int status_wr,
			  int stdin_fd, int control_fd)
{
	static char *const argv[] = { "hutch-exec", NULL };
	static char *const envp[] = { NULL };
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	struct hutch_status st = { .magic = HUTCH_STATUS_MAGIC, .code = HUTCH_SETUP_FAILED,
				   .stage = STAGE_HELPER_EXEC };
	int srcs[7] = { stdin_fd, -1, -1, spec_rd, status_wr, -1, control_fd };
	int moved[7] = { -1, -1, -1, -1, -1, -1, -1 };
	sigset_t none;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
		_exit(HUTCH_EXIT_SETUP);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &dfl, NULL);
	if (ignore_sigchld)
		signal(SIGCHLD, SIG_IGN);
	for (int i = 0; i < 7; i++) {
		moved[i] = srcs[i] < 0 ? -1 : fcntl(srcs[i], F_DUPFD_CLOEXEC, 16);
		if (srcs[i] >= 0 && moved[i] < 0)
			goto fail;
	}
	for (int i = 0; i < 7; i++)
		if (moved[i] >= 0 && dup2(moved[i], i) < 0)
			goto fail;
	/* Like the frontend, whose every fd is born close-on-exec: the helper
	 * starts with 0-4 (and the control socket) and nothing else, whatever
	 * the test shell left open, but the bind descriptors --keep-fds names. */
	if (syscall(SYS_close_range, 5U, control_fd >= 0 ? 5U : (unsigned)HUTCH_BIND_FD_FIRST - 1,
		    CLOSE_RANGE_CLOEXEC) < 0 ||
	    syscall(SYS_close_range, (unsigned)(HUTCH_BIND_FD_FIRST + keep_fds), ~0U,
		    CLOSE_RANGE_CLOEXEC) < 0)
		goto fail;
	execve(helper, argv, envp);
fail:
	st.err = errno;
	(void)fd_write_all(moved[HUTCH_STATUS_FD] >= 0 ? moved[HUTCH_STATUS_FD] : status_wr, &st,
			   sizeof(st));
	_exit(HUTCH_EXIT_SETUP);
}

static void print_record(const struct hutch_status *st)
{
	char words[256];

	printf(" record=%s stage=%s item=%u errno=%s", status_code_name(st->code),
	       status_stage_name(st->stage), st->item, errno_name(st->err));
	if (describe) {
		(void)status_describe(st, &sp, words, sizeof(words));
		printf(" words=%s", words);
	}
}

/* Read the status pipe to EOF. Once the helper has been reaped, only a
 * process it left behind can still hold the write end: EOF must be there
 * at once. Waits at most STATUS_WAIT_MS more to tell "late" from "open". */
void print_status_record(int status_rd)
{
	struct hutch_status st;
	uint8_t buf[64];
	size_t got = 0;
	int at_eof = 0, late = 0, waited = 0;

	while (!at_eof && got < sizeof(buf) && waited < STATUS_WAIT_MS) {
		struct pollfd p = { .fd = status_rd, .events = POLLIN };
		int k = poll(&p, 1, late ? 100 : 0);
		ssize_t n;

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			break;
		if (k == 0) {
			waited += late ? 100 : 0;
			late = 1;
			continue;
		}
		n = read(status_rd, buf + got, sizeof(buf) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			at_eof = n == 0;
			break;
		}
		got += (size_t)n;
	}
	if (got == 0) {
		printf(" record=%s", at_eof ? "none" : "open");
	} else {
		memcpy(&st, buf, sizeof(st) < got ? sizeof(st) : got);
		if (got != sizeof(st) || status_check(&st) < 0)
			printf(" record=garbled bytes=%zu", got);
		else
			print_record(&st);
		if (!at_eof)
			printf(" open");
	}
	if (at_eof && late)
		printf(" late-eof");
}

/* reaper.c: the two waiting processes of a jail.
 *
 * outer (in the caller's pid namespace, our frontend's child): waits for
 * pid 1 and mirrors the target's wait status as its own, which pid 1 sends
 * over HUTCH_MIRROR_FD. If pid 1 dies without sending one and without a
 * record of its own (exit 71), the outer process writes the record for it
 * (helper_crashed), which is why it keeps its copy of the status pipe.
 * It forwards the usual signals to pid 1; on
 * HUTCH_SIG_KILL_JAIL it SIGKILLs pid 1, and since pid 1's exit is only
 * reported once every process of its namespace is gone, "outer exited"
 * means "jail empty".
 *
 * pid 1 (the reaper): forwards signals to the target, reaps every orphan,
 * and when the target exits sends its status out and exits, which kills
 * whatever the target left behind. The kernel delivers a signal to a pid 1
 * only if it has a handler, hence the forwarding.
 * Async-signal-safe throughout. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fd-util.h"
#include "helper.h"
#include "hutch-abi.h"

static volatile pid_t forward_to;
static sigset_t held, start_mask;

static const int forwarded[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH };

/* From the start until a process's forwarders are in place, the signals
 * it forwards are blocked: a blocked signal is queued even for a pid 1
 * without a handler (which the kernel would drop otherwise), so one sent
 * between a fork and the handlers waits for them instead of being lost.
 * A SIGCHLD ignored by whoever started us would make our waits ECHILD. */
void signals_hold(void)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };

	sigemptyset(&held);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&held, forwarded[i]);
	sigaddset(&held, HUTCH_SIG_KILL_JAIL);
	sigprocmask(SIG_BLOCK, &held, &start_mask);
	sigaction(SIGCHLD, &dfl, NULL);
}

/* The target: the mask we started with (a forwarded signal pending in it
 * is delivered now, with the default action). */
void signals_release_target(void)
{
	sigprocmask(SIG_SETMASK, &start_mask, NULL);
}

static void on_forward(int sig)
{
	int saved = errno;

	kill(forward_to, sig);
	errno = saved;
}

static void on_kill_jail(int sig)
{
	int saved = errno;

	(void)sig;
	kill(forward_to, SIGKILL);
	errno = saved;
}

static void install_forwarders(pid_t to, int with_kill)
{
	struct sigaction sa = { .sa_handler = on_forward, .sa_flags = SA_RESTART };

	forward_to = to;
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaction(forwarded[i], &sa, NULL);
	if (with_kill) {
		sa.sa_handler = on_kill_jail;
		sigaction(HUTCH_SIG_KILL_JAIL, &sa, NULL);
	}
	/* Handlers first, then what waited for them is forwarded. */
	sigprocmask(SIG_UNBLOCK, &held, NULL);
}

/* Die the way the target died, so our parent sees the same status. */
static _Noreturn void mirror(int status)
{
	struct rlimit zero = { 0, 0 };

	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status));
	if (WIFSIGNALED(status)) {
		struct sigaction dfl = { .sa_handler = SIG_DFL };
		sigset_t set;
		int sig = WTERMSIG(status);

		setrlimit(RLIMIT_CORE, &zero); /* its core, if any, was its own */
		sigaction(sig, &dfl, NULL);
		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		kill(getpid(), sig);
		/* A signal whose default is to ignore or stop: say so plainly. */
		_exit(128 + sig);
	}
	/* Neither: pid 1 could not reap (reaper_run), its errno in bits 8-15. */
	fail(STAGE_JAIL_INIT, SITE_JAIL_INIT_REAP, (status >> 8) & 0xff);
}

/* A pooled jail's outer process (pool.c): the read end of what pid 1
 * used as its status descriptor before its job, -1 for none. */
static int early_rd = -1;

void outer_relay_early(int fd)
{
	early_rd = fd;
}

/* pid 1 exited 71: a record it wrote before it had its job, if any, is
 * the job's (pid 1 is gone, so the read ends at once). */
static void relay_early(void)
{
	struct hutch_status st;

	if (early_rd >= 0 && fd_read_exact(early_rd, &st, sizeof(st)) == 0)
		(void)fd_write_all(HUTCH_STATUS_FD, &st, sizeof(st));
}

_Noreturn void outer_wait(int child_pid)
{
	int status = 0, target_status;
	pid_t r;

	install_forwarders(child_pid, 1);
	do
		r = waitpid(child_pid, &status, 0);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		fail(STAGE_JAIL_INIT, SITE_JAIL_INIT_WAITPID, errno);
	if (fd_read_exact(HUTCH_MIRROR_FD, &target_status, sizeof(target_status)) == 0)
		mirror(target_status);
	if (WIFEXITED(status) && WEXITSTATUS(status) == HUTCH_EXIT_SETUP) {
		relay_early();
		_exit(HUTCH_EXIT_SETUP); /* pid 1 wrote its own record */
	}
	fail_code(HUTCH_HELPER_CRASHED, STAGE_JAIL_INIT, SITE_JAIL_INIT_WAIT,
		  WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* If the outer process died before we could ask for SIGKILL on its death,
 * no one would ever kill us: check that its end of the mirror pipe is
 * still there after arming the signal. Called again after any credential
 * change, which clears the parent-death signal. */
void parent_death_guard(void)
{
	struct pollfd p = { .fd = HUTCH_MIRROR_FD, .events = 0 };

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		fail(STAGE_PARENT_GONE, SITE_PARENT_GONE_PDEATHSIG, errno);
	if (poll(&p, 1, 0) < 0 || (p.revents & (POLLERR | POLLHUP)))
		fail(STAGE_PARENT_GONE, SITE_PARENT_GONE_CHECK, EPIPE);
}

_Noreturn void reaper_run(int target_pid)
{
	int status = 0;

	install_forwarders(target_pid, 0);
	/* With the forwarders in place, so that no signal for the target is
	 * lost meanwhile: wait for its execve, send the timings, close the
	 * control socket. We are not dumpable (set_no_new_privs), so the
	 * target, running by then, cannot reach the socket through us. */
	timings_send();
	for (;;) {
		pid_t r = waitpid(-1, &status, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			/* ECHILD before the target: cannot be. pid 1 has no
			 * status pipe (only the target's copy decides EOF), so
			 * the outer process writes the record: a wait status
			 * no exit or signal makes, the errno in bits 8-15. */
			status = 0x7f | ((errno & 0xff) << 8);
			break;
		}
		if (r == target_pid)
			break;
	}
	(void)fd_write_all(HUTCH_MIRROR_FD, &status, sizeof(status));
	_exit(0); /* as pid 1: the kernel kills everything left in the jail */
}

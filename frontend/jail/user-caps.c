/* user-caps.c: see user-caps.h. The kernel charges a jail's inotify
 * instances and watches, message-queue bytes and pending signals to the
 * user owning its user namespace chain, on top of what that user's own
 * programs hold: a cap per jail is all that keeps N jails from taking the
 * caller's whole quota. Frontend only. */
#include "config.h"

#include <stdio.h>
#include <sys/resource.h>

#include "jail/user-caps.h"
#include "time-util.h"

const uint64_t user_caps_ceiling[HUTCH_UCAP_COUNT] = {
	[HUTCH_UCAP_INOTIFY_INSTANCES] = 32,
	[HUTCH_UCAP_INOTIFY_WATCHES] = 16384,
	[HUTCH_UCAP_MSGQUEUE_BYTES] = 65536,
	[HUTCH_UCAP_SIGPENDING] = 1024,
};

void user_caps_from_quota(const uint64_t quota[HUTCH_UCAP_COUNT], unsigned concurrency,
			  uint64_t ret[HUTCH_UCAP_COUNT])
{
	uint64_t share = 2 * (uint64_t)(concurrency ? concurrency : 1);

	for (int i = 0; i < HUTCH_UCAP_COUNT; i++) {
		uint64_t v = quota[i] == UINT64_MAX ? UINT64_MAX : quota[i] / share;

		ret[i] = v < user_caps_ceiling[i] ? v : user_caps_ceiling[i];
	}
}

static uint64_t read_count(const char *path)
{
	FILE *f = fopen(path, "re");
	unsigned long long v = 0;
	int ok = f && fscanf(f, "%llu", &v) == 1;

	if (f)
		fclose(f);
	return ok ? v : 0;
}

/* The lower of the caller's own user namespace's count and the initial
 * namespace's per-user one: the kernel checks both. */
static uint64_t read_min(const char *ns_path, const char *fs_path)
{
	uint64_t a = read_count(ns_path), b = read_count(fs_path);

	return a < b ? a : b;
}

static uint64_t read_rlimit(int resource)
{
	struct rlimit r;

	if (getrlimit(resource, &r) < 0)
		return 0;
	return r.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)r.rlim_cur;
}

/* Every lookup under /proc/sys/user walks one dentry hash chain per name
 * that also holds the entries of every jail whose user namespace the
 * kernel has not freed yet (it waits for the network namespace's
 * asynchronous teardown, about a second): at serve's rate, hundreds, and
 * these two reads were ~13% of a non-root server's processor time. A
 * quota changed by the administrator is seen within USER_CAPS_MEMO_MS. */
static void read_inotify(struct user_caps_memo *memo, uint64_t *ret_instances,
			 uint64_t *ret_watches)
{
	uint64_t now = memo ? time_now_ms() : 0;

	if (!memo || !memo->read_ms || now - memo->read_ms >= USER_CAPS_MEMO_MS) {
		*ret_instances = read_min("/proc/sys/user/max_inotify_instances",
					  "/proc/sys/fs/inotify/max_user_instances");
		*ret_watches = read_min("/proc/sys/user/max_inotify_watches",
					"/proc/sys/fs/inotify/max_user_watches");
		if (!memo)
			return;
		memo->read_ms = now ? now : 1;
		memo->inotify[0] = *ret_instances;
		memo->inotify[1] = *ret_watches;
		return;
	}
	*ret_instances = memo->inotify[0];
	*ret_watches = memo->inotify[1];
}

void user_caps_size(bool own_host_ids, unsigned concurrency, struct user_caps_memo *memo,
		    uint64_t ret[HUTCH_UCAP_COUNT])
{
	uint64_t quota[HUTCH_UCAP_COUNT];

	if (own_host_ids) {
		for (int i = 0; i < HUTCH_UCAP_COUNT; i++)
			ret[i] = user_caps_ceiling[i];
		return;
	}
	read_inotify(memo, &quota[HUTCH_UCAP_INOTIFY_INSTANCES], &quota[HUTCH_UCAP_INOTIFY_WATCHES]);
	quota[HUTCH_UCAP_MSGQUEUE_BYTES] = read_rlimit(RLIMIT_MSGQUEUE);
	quota[HUTCH_UCAP_SIGPENDING] = read_rlimit(RLIMIT_SIGPENDING);
	user_caps_from_quota(quota, concurrency, ret);
}

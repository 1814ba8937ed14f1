/* timings.c: see timings.h. Frontend only. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "doc/timings.h"

static const char *const front_keys[TIMING_FRONT_MAX] = {
	[TIMING_REQUEST] = "request_us", [TIMING_POLICY] = "policy_us",
	[TIMING_PLAN] = "plan_us",	 [TIMING_PROBE] = "probe_us",
	[TIMING_SPEC] = "spec_us",	 [TIMING_SPAWN] = "spawn_us",
};

static const char *const helper_keys[HUTCH_STEP_MAX] = {
	[HUTCH_STEP_PREPARE] = "prepare_us",
	[HUTCH_STEP_CLONE] = "clone_us",
	[HUTCH_STEP_ID_MAPS] = "id_maps_us",
	[HUTCH_STEP_MOUNT_PRIVATE] = "mount_private_us",
	[HUTCH_STEP_BINDS_DIR] = "binds_dir_us",
	[HUTCH_STEP_BINDS_FILE] = "binds_file_us",
	[HUTCH_STEP_ROOT] = "root_us",
	[HUTCH_STEP_TMPFS] = "tmpfs_us",
	[HUTCH_STEP_PROC] = "proc_us",
	[HUTCH_STEP_DEVPTS] = "devpts_us",
	[HUTCH_STEP_FILES] = "files_us",
	[HUTCH_STEP_OVERLAY] = "overlay_us",
	[HUTCH_STEP_PIVOT_ROOT] = "pivot_root_us",
	[HUTCH_STEP_NETWORK] = "network_us",
	[HUTCH_STEP_LANDLOCK] = "landlock_us",
	[HUTCH_STEP_RLIMITS] = "rlimits_us",
	[HUTCH_STEP_PRIVILEGES] = "privileges_us",
	[HUTCH_STEP_SESSION] = "session_us",
	[HUTCH_STEP_SECCOMP] = "seccomp_us",
	[HUTCH_STEP_FORK] = "fork_us",
	[HUTCH_STEP_EXEC] = "exec_us",
};

uint64_t timings_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void timings_begin(struct jail_timings *t)
{
	t->last_ns = timings_now_ns();
}

static void charge(struct jail_timings *t, enum timing_front s, uint64_t until)
{
	if (t->last_ns == 0 || until < t->last_ns)
		return;
	t->front_ns[s] += until - t->last_ns;
	t->front_have |= 1u << s;
	t->last_ns = until;
}

void timings_mark(struct jail_timings *t, enum timing_front s)
{
	charge(t, s, timings_now_ns());
}

int timings_take_record(struct jail_timings *t, const void *buf, size_t len)
{
	struct hutch_timings rec;

	if (len != sizeof(rec))
		return -EBADMSG;
	memcpy(&rec, buf, sizeof(rec));
	if (rec.magic != HUTCH_TIMINGS_MAGIC || rec.n_steps > HUTCH_TIMINGS_SLOTS || t->have_helper)
		return -EBADMSG;
	t->helper = rec;
	t->have_helper = true;
	/* the helper reads the spec after our last mark: both on one clock.
	 * One that cloned ahead (hutch-exec --ahead) started its record
	 * with the clone, before that mark maybe: of the clone, only what
	 * we waited for after it is charged, and no spawn. */
	if (t->last_ns && rec.start_ns < t->last_ns) {
		uint64_t early = t->last_ns - rec.start_ns, *clone = &t->helper.step_ns[HUTCH_STEP_CLONE];

		*clone -= early < *clone ? early : *clone;
		t->helper.start_ns = t->last_ns;
	}
	charge(t, TIMING_SPAWN, t->helper.start_ns);
	return 0;
}

void timings_merge(struct jail_timings *dst, const struct jail_timings *src)
{
	for (unsigned s = 0; s < TIMING_FRONT_MAX; s++)
		if (src->front_have & (1u << s)) {
			dst->front_ns[s] += src->front_ns[s];
			dst->front_have |= 1u << s;
		}
	if (src->have_helper) {
		dst->helper = src->helper;
		dst->have_helper = true;
	}
}

const char *timings_helper_key(unsigned step)
{
	return step < HUTCH_STEP_MAX ? helper_keys[step] : NULL;
}

static bool put_us(struct json_object *o, const char *key, uint64_t ns)
{
	struct json_object *v = json_object_new_int64((int64_t)(ns / 1000));

	if (v && json_object_object_add(o, key, v) == 0)
		return true;
	json_object_put(v);
	return false;
}

struct json_object *timings_json(const struct jail_timings *t)
{
	struct json_object *o;
	bool ok = true;

	if (!t->front_have && !t->have_helper)
		return NULL;
	o = json_object_new_object();
	if (!o)
		return NULL;
	for (unsigned s = 0; s < TIMING_FRONT_MAX; s++)
		if (t->front_have & (1u << s))
			ok = ok && put_us(o, front_keys[s], t->front_ns[s]);
	/* Steps of a newer helper we have no name for are left out; those
	 * an older one did not send are absent, never shown as 0. */
	for (unsigned s = 0; t->have_helper && s < HUTCH_STEP_MAX && s < t->helper.n_steps; s++)
		ok = ok && put_us(o, helper_keys[s], t->helper.step_ns[s]);
	if (ok)
		return o;
	json_object_put(o);
	return NULL;
}

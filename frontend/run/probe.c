/* probe.c: mechanisms and the canary (see probe.h). The canary is a shell
 * script run through the real helper under the policy itself: it prints
 * its own /proc/self/status and namespace links and tries one write that
 * only Landlock refuses; we compare with what we expect and with our own
 * namespaces. Passing verdicts are cached per digest; a failing one is
 * tried again on the next run, so a fixed host recovers by itself.
 * `hutch probe`'s report of these is cli/cmd-probe.c. Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "doc/json-util.h"
#include "doc/request.h"
#include "jail/cache.h"
#include "jail/cgroup.h"
#include "jail/narrow.h"
#include "run/classify.h"
#include "run/execute.h"
#include "run/memfd-notify.h"
#include "run/probe.h"
#include "run/probe-verdict.h"

#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif

static const char canary_script[] =
	"cat /proc/self/status; "
	"for n in user mnt pid net ipc uts cgroup; do printf 'ns %s ' $n; readlink /proc/self/ns/$n; done; "
	"if (echo canary > /proc/self/comm) 2>/dev/null; then echo 'landlock-write allowed'; "
	"else echo 'landlock-write denied'; fi";

/* Asked once per process: the kernel's ABI does not change under it, and
 * a run asks several times (requirements, rights, the canary's check). */
int probe_landlock_abi(void)
{
	static int abi = -1;
	long v;

	if (abi < 0) {
		v = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
		abi = v < 0 ? 0 : (int)v;
	}
	return abi;
}

static int read_int_file(const char *path, long *ret)
{
	char buf[32];
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	*ret = strtol(buf, NULL, 10);
	return 0;
}

static bool prctl_seccomp_available(void)
{
	/* Filter mode is there when the kernel lists its actions. */
	return access("/proc/sys/kernel/seccomp/actions_avail", R_OK) == 0;
}

/* Can we make a user namespace? Tried in a child, which only unshares. */
static int try_userns(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER) == 0 ? 0 : (errno & 0x7f) + 1);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status))
		return -EIO;
	return WEXITSTATUS(status) == 0 ? 0 : -(WEXITSTATUS(status) - 1);
}

/* What lifts kernel.apparmor_restrict_unprivileged_userns for the helper:
 * the profile contrib/apparmor/hutch-exec, installed as data. */
#define APPARMOR_REMEDY                                                                     \
	"copy the AppArmor profile " HUTCH_APPARMOR_PROFILE " to /etc/apparmor.d and load " \
	"it with apparmor_parser -r"

/* 1 when an AppArmor profile named hutch-exec is loaded, 0 when not, -errno
 * when the list cannot be read (it is root's only): then the canary judges. */
static int apparmor_profile_loaded(void)
{
	FILE *f = fopen("/sys/kernel/security/apparmor/profiles", "re");
	char line[512];
	int found = 0;

	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof(line), f))
		found = strncmp(line, "hutch-exec (", 12) == 0;
	fclose(f);
	return found;
}

/* Why user namespaces fail here, with the remedy. */
static void userns_reason(int err, char *why, size_t cap)
{
	long v;

	if (read_int_file("/proc/sys/kernel/unprivileged_userns_clone", &v) == 0 && v == 0 &&
	    geteuid() != 0)
		snprintf(why, cap, "user_namespaces: unprivileged user namespaces disabled by "
				   "kernel.unprivileged_userns_clone=0 (set it to 1)");
	else if (read_int_file("/proc/sys/user/max_user_namespaces", &v) == 0 && v == 0)
		snprintf(why, cap, "user_namespaces: disabled by user.max_user_namespaces=0 "
				   "(set it above 0)");
	else if (read_int_file("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", &v) == 0 &&
		 v == 1)
		snprintf(why, cap, "user_namespaces: blocked by "
				   "kernel.apparmor_restrict_unprivileged_userns=1 (" APPARMOR_REMEDY ")");
	else if (err == ENOSPC)
		snprintf(why, cap, "user_namespaces: the user namespace limit is reached "
				   "(ENOSPC): raise user.max_user_namespaces, here or in the "
				   "namespace or container hutch runs in");
	else if (err == EPERM)
		snprintf(why, cap, "user_namespaces: unshare(CLONE_NEWUSER) is refused (EPERM): "
				   "a container's seccomp profile or an LSM blocks it; run hutch where "
				   "user namespaces are allowed");
	else
		snprintf(why, cap, "user_namespaces: unshare(CLONE_NEWUSER) fails (%s)",
			 strerrorname_np(err) ? strerrorname_np(err) : "unknown error");
}

/* A Landlock right the policy requires and the kernel's ABI lacks: the
 * run is refused, never made with fewer rights than the policy asked. */
static int landlock_right_missing(const struct policy *pol, char *why, size_t cap)
{
	static const struct {
		unsigned req;
		int abi;
		const char *name, *what;
	} rights[] = {
		{ REQ_LANDLOCK_NETWORK, 4, "landlock_network", "TCP bind and connect rules" },
		{ REQ_LANDLOCK_SCOPING, 6, "landlock_scoping", "signal and abstract socket scoping" },
	};
	int abi = probe_landlock_abi();

	for (size_t i = 0; i < sizeof(rights) / sizeof(rights[0]); i++)
		if ((pol->requires & rights[i].req) && abi < rights[i].abi) {
			snprintf(why, cap,
				 "%s: the kernel's Landlock ABI is %d; %s need ABI %d (run on a "
				 "newer kernel, or use a policy that does not require %s)",
				 rights[i].name, abi, rights[i].what, rights[i].abi,
				 rights[i].name);
			return 1;
		}
	return 0;
}

int probe_requirements(const struct policy *pol, char *why, size_t cap)
{
	if ((pol->requires & REQ_LANDLOCK) && probe_landlock_abi() < 1) {
		snprintf(why, cap, "landlock: the kernel offers no Landlock (enable "
				   "CONFIG_SECURITY_LANDLOCK and add landlock to the lsm= boot option)");
		return PROBE_UNAVAILABLE;
	}
	if (landlock_right_missing(pol, why, cap))
		return PROBE_UNAVAILABLE;
	if (pol->requires & REQ_CGROUP) {
		struct cgroup_info ci;

		if (cgroup_detect(&ci, why, cap) < 0)
			return PROBE_UNAVAILABLE;
	}
	return PROBE_OK;
}

/* ---- the canary ---- */

static bool line_value(const char *text, const char *key, char *out, size_t cap)
{
	const char *p = text;
	size_t n = strlen(key);

	while ((p = strstr(p, key))) {
		if (p == text || p[-1] == '\n') {
			const char *v = p + n, *end;

			while (*v == ' ' || *v == '\t')
				v++;
			end = strchr(v, '\n');
			if (!end)
				end = v + strlen(v);
			snprintf(out, cap, "%.*s", (int)(end - v), v);
			return true;
		}
		p += n;
	}
	return false;
}

static int check_canary(const struct policy *pol, const struct plan *plan, const char *text,
			char *why, size_t cap)
{
	static const char *const ns[] = { "user", "mnt", "pid", "net", "ipc", "uts", "cgroup" };
	char v[128], key[32], mine[128];

	if (!line_value(text, "Seccomp:", v, sizeof(v)) || strcmp(v, "2") != 0)
		return snprintf(why, cap, "canary: seccomp is not in filter mode"), PROBE_FAILED;
	if (!line_value(text, "NoNewPrivs:", v, sizeof(v)) || strcmp(v, "1") != 0)
		return snprintf(why, cap, "canary: no_new_privs is not set"), PROBE_FAILED;
	if (!line_value(text, "CapEff:", v, sizeof(v)) || strspn(v, "0") != strlen(v) ||
	    !line_value(text, "CapBnd:", v, sizeof(v)) || strspn(v, "0") != strlen(v))
		return snprintf(why, cap, "canary: capabilities were not dropped"), PROBE_FAILED;
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		char path[64];
		ssize_t n;

		if (strcmp(ns[i], "net") == 0 && plan->network == NET_HOST)
			continue;
		snprintf(key, sizeof(key), "ns %s", ns[i]);
		snprintf(path, sizeof(path), "/proc/self/ns/%s", ns[i]);
		n = readlink(path, mine, sizeof(mine) - 1);
		if (n <= 0)
			continue; /* we cannot compare what we cannot see */
		mine[n] = '\0';
		if (!line_value(text, key, v, sizeof(v)) || strcmp(v, mine) == 0)
			return snprintf(why, cap, "canary: the %s namespace was not entered", ns[i]),
			       PROBE_FAILED;
	}
	if (pol->landlock != LANDLOCK_OFF && probe_landlock_abi() >= 1 &&
	    !strstr(text, "landlock-write denied"))
		return snprintf(why, cap, "canary: Landlock did not refuse a write outside the rules"),
		       PROBE_FAILED;
	return PROBE_OK;
}

/* The canary's request under pol, narrowed like any run's. */
static int canary_plan(const struct policy *pol, struct request *req, struct plan *plan)
{
	struct json_object *doc = json_object_new_object(), *argv = json_object_new_array();
	struct verrors e = { 0 };
	int r = -EINVAL;

	json_object_object_add(doc, "version", json_object_new_int(1));
	json_object_array_add(argv, json_object_new_string("/bin/sh"));
	json_object_array_add(argv, json_object_new_string("-c"));
	json_object_array_add(argv, json_object_new_string(canary_script));
	json_object_object_add(doc, "argv", argv);
	if (request_from_json(doc, req, &e) == 0 && narrow(req, pol, plan, &e) == 0)
		r = 0;
	json_object_put(doc);
	if (r == 0 && plan->limits.wall_ms > 10000)
		plan->limits.wall_ms = 10000;
	return r;
}

/* What the canary's outcome says. */
static int canary_verdict(const struct policy *pol, const struct plan *plan,
			  const struct outcome *o, char *why, size_t cap)
{
	int r = PROBE_FAILED;

	if (o->status == OUTCOME_FAILED && o->have_record && o->record.code == HUTCH_MECH_UNAVAILABLE) {
		if (o->record.stage == STAGE_USERNS)
			userns_reason(o->record.err, why, cap);
		else
			snprintf(why, cap, "%s: unavailable (%s)", status_stage_name(o->record.stage),
				 strerrorname_np(o->record.err) ? strerrorname_np(o->record.err) : "?");
		r = PROBE_UNAVAILABLE;
	} else if (classify_jail_refused(o)) { /* "mounts: ...: EPERM" */
		snprintf(why, cap, "canary: the jail was refused: %s", o->detail);
		r = PROBE_UNAVAILABLE;
	} else if (o->status != OUTCOME_EXITED || o->exit_code != 0) {
		if (o->have_record) /* the record in words: "writing gid_map: EPERM" */
			snprintf(why, cap, "canary: the jail was refused: %s", o->detail);
		else
			snprintf(why, cap, "canary: did not run to completion (%s)",
				 o->status == OUTCOME_FAILED ? hutch_err_name(o->err) : "non-zero exit");
	} else {
		char *text = strndup((const char *)o->out.buf, o->out.len);

		r = text ? check_canary(pol, plan, text, why, cap) : PROBE_FAILED;
		free(text);
	}
	return r;
}

int probe_canary(const struct policy *pol, char *why, size_t cap)
{
	struct request req = { 0 };
	struct plan plan = { 0 };
	struct exec_opts eo = { .kill_grace_ms = 1000 };
	struct collected files;
	struct outcome o;
	int r = PROBE_FAILED;

	if (canary_plan(pol, &req, &plan) < 0) {
		snprintf(why, cap, "canary: cannot build its request");
		goto out;
	}
	execute_plan(&plan, &eo, &o, &files);
	r = canary_verdict(pol, &plan, &o, why, cap);
	outcome_free(&o);
	collected_free(&files);
out:
	request_free(&req);
	plan_free(&plan);
	return r;
}

struct probe_run {
	const struct policy *pol;
	struct request req;
	struct plan plan;
	struct outcome o;
	struct exec_run *x;
	struct jail_watch *w;
};

static void probe_run_free(struct probe_run *pr)
{
	outcome_free(&pr->o);
	request_free(&pr->req);
	plan_free(&pr->plan);
	free(pr);
}

/* The verdict under its name (probe_verdict_name): PROBE_OK or -ENOENT. */
static int cached_verdict(const char *name)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	bool ok = false;

	if (cache_read(name, 16, &buf, &len) == 0) {
		ok = len == 3 && memcmp(buf, "ok\n", 3) == 0;
		free(buf);
	}
	return ok ? PROBE_OK : -ENOENT;
}

int probe_cached(const char *digest)
{
	char name[128];

	if (!probe_verdict_name(digest, name, sizeof(name)))
		return PROBE_FAILED;
	return cached_verdict(name);
}

int probe_start(const struct policy *pol, struct forkserver *fs, struct probe_run **ret,
		char *why, size_t cap)
{
	struct exec_opts eo = { .kill_grace_ms = 1000, .fs = fs };
	struct probe_run *pr = calloc(1, sizeof(*pr));

	if (!pr)
		return snprintf(why, cap, "canary: out of memory"), PROBE_FAILED;
	pr->pol = pol;
	if (canary_plan(pol, &pr->req, &pr->plan) < 0) {
		probe_run_free(pr);
		return snprintf(why, cap, "canary: cannot build its request"), PROBE_FAILED;
	}
	if (exec_start(&pr->plan, &eo, &pr->o, &pr->x) < 0) {
		int r = canary_verdict(pol, &pr->plan, &pr->o, why, cap);

		probe_run_free(pr);
		return r < 0 ? r : PROBE_FAILED;
	}
	pr->w = exec_watch(pr->x);
	if (!pr->w) {
		struct collected files;

		exec_finish(pr->x, &files);
		collected_free(&files);
		probe_run_free(pr);
		return snprintf(why, cap, "canary: out of memory"), PROBE_FAILED;
	}
	*ret = pr;
	return PROBE_OK;
}

struct jail_watch *probe_watch(struct probe_run *pr)
{
	return pr->w;
}

int probe_finish(struct probe_run *pr, const char *digest, char *why, size_t cap)
{
	struct collected files;
	char name[128];
	int r;

	exec_finish(pr->x, &files);
	collected_free(&files);
	r = canary_verdict(pr->pol, &pr->plan, &pr->o, why, cap);
	if (r == PROBE_OK && probe_verdict_name(digest, name, sizeof(name)))
		cache_write(name, "ok\n", 3);
	probe_run_free(pr);
	return r;
}

int probe_ensure(const struct policy *pol, const char *digest, char *why, size_t cap)
{
	char name[128];
	int r;

	if (!probe_verdict_name(digest, name, sizeof(name)))
		return snprintf(why, cap, "canary: bad digest"), PROBE_FAILED;
	if (cached_verdict(name) == PROBE_OK) /* the name once: one readlink */
		return PROBE_OK;
	r = probe_canary(pol, why, cap);
	if (r < 0)
		return r; /* not cached: the next run tries again */
	cache_write(name, "ok\n", 3);
	return PROBE_OK;
}

/* ---- for hutch probe's report ---- */

int probe_mechanisms(struct probe_mech *m)
{
	struct cgroup_info ci;
	int r, n = 0, abi;
	long v;

	memset(m, 0, PROBE_MECHANISMS * sizeof(*m));
	r = try_userns();
	m[n].name = "user_namespaces";
	m[n].available = r == 0;
	if (r == 0)
		snprintf(m[n].detail, sizeof(m[n].detail), "unshare(CLONE_NEWUSER) works");
	else
		userns_reason(-r, m[n].detail, sizeof(m[n].detail));
	n++;
	m[n].name = "seccomp";
	m[n].available = prctl_seccomp_available();
	snprintf(m[n].detail, sizeof(m[n].detail), "%s", m[n].available ? "filter mode (libseccomp, native/x32/x86)" : "the kernel lacks CONFIG_SECCOMP_FILTER");
	n++;
	abi = probe_landlock_abi();
	m[n].name = "landlock";
	m[n].available = abi >= 1;
	if (abi >= 1)
		snprintf(m[n].detail, sizeof(m[n].detail), "ABI %d%s%s", abi,
			 abi >= 4 ? ", network rules" : "", abi >= 6 ? ", scoping" : "");
	else
		snprintf(m[n].detail, sizeof(m[n].detail), "not offered (enable CONFIG_SECURITY_LANDLOCK and add landlock to lsm=)");
	n++;
	m[n].name = "cgroup";
	m[n].available = cgroup_detect(&ci, m[n].detail, sizeof(m[n].detail)) == 0;
	if (m[n].available)
		snprintf(m[n].detail, sizeof(m[n].detail), "delegated cgroup v2 subtree: %.180s%s",
			 ci.path, ci.move ? " (hutch moves its processes into the leaf " CGROUP_LEAF
					    " and enables memory and pids for the runs)"
					  : "");
	n++;
	m[n].name = "apparmor_userns";
	if (!(read_int_file("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", &v) == 0 && v == 1)) {
		m[n].available = true;
		snprintf(m[n].detail, sizeof(m[n].detail),
			 "no AppArmor restriction on unprivileged user namespaces");
	} else if (apparmor_profile_loaded() == 1) {
		m[n].available = true;
		snprintf(m[n].detail, sizeof(m[n].detail),
			 "restricted, but an AppArmor profile for hutch-exec is loaded");
	} else {
		snprintf(m[n].detail, sizeof(m[n].detail),
			 "kernel.apparmor_restrict_unprivileged_userns=1: " APPARMOR_REMEDY);
	}
	n++;
	m[n].name = "memfd_noexec";
	m[n].available = memfd_notify_probe(m[n].detail, sizeof(m[n].detail));
	n++;
	m[n].name = "overlay";
	m[n].available = probe_overlay(m[n].detail, sizeof(m[n].detail));
	n++;
	return n;
}

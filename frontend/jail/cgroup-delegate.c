/* cgroup-delegate.c: see cgroup-delegate.h. Frontend only. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cleanup.h"
#include "fd-util.h"
#include "jail/cgroup-delegate.h"

/* An xattr that says "1": systemd's marks are "trusted.delegate" (the
 * system manager) and "user.delegate". */
static bool xattr_one(const char *dir, const char *name)
{
	char v[8];
	ssize_t n = getxattr(dir, name, v, sizeof(v));

	return n >= 1 && v[0] == '1' && (n == 1 || v[1] == '\n');
}

bool cgroup_marked_delegated(const char *dir)
{
	return xattr_one(dir, "trusted.delegate") || xattr_one(dir, "user.delegate");
}

static bool value_is(const char *v, size_t n, const char *word)
{
	return strlen(word) == n && strncasecmp(v, word, n) == 0;
}

int cgroup_unit_delegate(const char *text, int cur)
{
	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *v, *end;
		size_t n;

		while (*line == ' ' || *line == '\t')
			line++;
		if (strncmp(line, "Delegate", 8) != 0)
			continue;
		v = line + 8;
		while (*v == ' ' || *v == '\t')
			v++;
		if (*v != '=')
			continue;
		v++;
		while (*v == ' ' || *v == '\t')
			v++;
		end = v + strcspn(v, "\n");
		while (end > v && isspace((unsigned char)end[-1]))
			end--;
		n = (size_t)(end - v);
		/* Empty, or a boolean's no: not delegated; yes, or a list of
		 * controllers: delegated. A later assignment wins. */
		if (n == 0 || value_is(v, n, "no") || value_is(v, n, "false") ||
		    value_is(v, n, "off") || value_is(v, n, "0"))
			cur = 0;
		else
			cur = 1;
	}
	return cur;
}

/* cur, updated by the unit file at dir/name if it is there. */
static int apply_file(int cur, const char *dir, const char *name)
{
	char path[PATH_MAX];
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *text = NULL;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 || fd_slurp(fd, 1 << 20, &text, &len) < 0)
		return cur;
	return cgroup_unit_delegate(text, cur);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The drop-ins dir/unit.d/ *.conf, in name order. */
static int apply_dropins(int cur, const char *dir, const char *unit)
{
	char d[PATH_MAX];
	char *names[64];
	size_t n = 0;
	DIR *dh;
	struct dirent *e;

	snprintf(d, sizeof(d), "%s/%s.d", dir, unit);
	dh = opendir(d);
	if (!dh)
		return cur;
	while ((e = readdir(dh)) && n < 64) {
		size_t l = strlen(e->d_name);

		if (l > 5 && strcmp(e->d_name + l - 5, ".conf") == 0 && (names[n] = strdup(e->d_name)))
			n++;
	}
	closedir(dh);
	qsort(names, n, sizeof(names[0]), name_cmp);
	for (size_t i = 0; i < n; i++) {
		cur = apply_file(cur, d, names[i]);
		free(names[i]);
	}
	return cur;
}

/* The user manager's unit directories, highest precedence first. */
static size_t user_unit_dirs(char dirs[][PATH_MAX], size_t cap)
{
	const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
	size_t n = 0;

	snprintf(dirs[n++], PATH_MAX, "/run/user/%u/systemd/transient", (unsigned)geteuid());
	if (xdg && xdg[0] == '/')
		snprintf(dirs[n++], PATH_MAX, "%s/systemd/user", xdg);
	else if (home && home[0] == '/')
		snprintf(dirs[n++], PATH_MAX, "%s/.config/systemd/user", home);
	snprintf(dirs[n++], PATH_MAX, "/etc/systemd/user");
	snprintf(dirs[n++], PATH_MAX, "/run/user/%u/systemd/user", (unsigned)geteuid());
	snprintf(dirs[n++], PATH_MAX, "/usr/local/lib/systemd/user");
	snprintf(dirs[n++], PATH_MAX, "/usr/lib/systemd/user");
	return n < cap ? n : cap;
}

/* "foo@bar.service" -> "foo@.service" into tmpl; false when not a
 * template instance. */
static bool template_of(const char *unit, char *tmpl, size_t cap)
{
	const char *at = strchr(unit, '@'), *dot = strrchr(unit, '.');

	if (!at || !dot || dot < at || dot == at + 1)
		return false;
	snprintf(tmpl, cap, "%.*s%s", (int)(at - unit + 1), unit, dot);
	return true;
}

bool cgroup_user_unit_delegated(const char *unit)
{
	char dirs[6][PATH_MAX], tmpl[256];
	size_t n = user_unit_dirs(dirs, 6);
	int cur = 0;
	bool found = false, is_tmpl = template_of(unit, tmpl, sizeof(tmpl));

	if (strchr(unit, '/') || unit[0] == '.')
		return false;
	/* The unit file: the first of the directories that has it. */
	for (size_t i = 0; i < n && !found; i++) {
		char p[PATH_MAX + 256];

		snprintf(p, sizeof(p), "%.4000s/%.250s", dirs[i], unit);
		if (access(p, R_OK) == 0) {
			cur = apply_file(cur, dirs[i], unit);
			found = true;
		}
		if (!found && is_tmpl) {
			snprintf(p, sizeof(p), "%.4000s/%.250s", dirs[i], tmpl);
			if (access(p, R_OK) == 0) {
				cur = apply_file(cur, dirs[i], tmpl);
				found = true;
			}
		}
	}
	/* Then every drop-in, lowest precedence first. */
	for (size_t i = n; i-- > 0;) {
		if (is_tmpl)
			cur = apply_dropins(cur, dirs[i], tmpl);
		cur = apply_dropins(cur, dirs[i], unit);
	}
	return cur == 1;
}

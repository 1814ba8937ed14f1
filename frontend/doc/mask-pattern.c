/* mask-pattern.c: hide and read_only patterns (see mask-pattern.h).
 * Matched component by component, so '/' never matches inside one.
 * Frontend only. */
#include "config.h"

#include <fnmatch.h>
#include <string.h>

#include "doc/mask-pattern.h"

#define MAX_PARTS 128

/* Split s at '/' in place: the components, or -1 when there are too many. */
static int split(char *s, char **parts)
{
	int n = 0;

	for (char *p = strtok(s, "/"); p; p = strtok(NULL, "/")) {
		if (n == MAX_PARTS)
			return -1;
		parts[n++] = p;
	}
	return n;
}

bool mask_pattern_ok(const char *pattern)
{
	size_t len = strlen(pattern);
	const char *p = pattern + (pattern[0] == '/');
	int stars = 0;

	if (len == 0 || len > MASK_PATTERN_MAX || strcmp(p, "**") == 0 || *p == '\0')
		return false;
	for (const char *c = pattern; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return false;
	for (;;) {
		size_t n = strcspn(p, "/");

		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		/* each "**" multiplies the matcher's work by the path's depth */
		if (n == 2 && p[0] == '*' && p[1] == '*' && ++stars > MASK_PATTERN_MAX_STARS)
			return false;
		if (p[n] == '\0')
			return true;
		p += n + 1;
	}
}

/* pat[0..np) against name[0..nn): "**" takes zero or more components. */
static bool match_parts(char **pat, int np, char **name, int nn)
{
	if (np == 0)
		return nn == 0;
	if (strcmp(pat[0], "**") == 0) {
		for (int skip = 0; skip <= nn; skip++)
			if (match_parts(pat + 1, np - 1, name + skip, nn - skip))
				return true;
		return false;
	}
	if (nn == 0 || fnmatch(pat[0], name[0], FNM_PERIOD) != 0)
		return false;
	return match_parts(pat + 1, np - 1, name + 1, nn - 1);
}

/* Can the last component of pattern match the last of path? "**" can. */
static bool last_may_match(const char *pattern, const char *path)
{
	const char *lp = strrchr(pattern, '/'), *ln = strrchr(path, '/');
	char last[MASK_PATTERN_MAX + 1];

	lp = lp ? lp + 1 : pattern;
	ln = ln ? ln + 1 : path;
	if (strcmp(lp, "**") == 0)
		return true;
	strcpy(last, lp);
	return fnmatch(last, ln, FNM_PERIOD) == 0;
}

bool mask_pattern_match(const char *pattern, const char *path)
{
	char pbuf[MASK_PATTERN_MAX + 4], nbuf[4096];
	char *pat[MAX_PARTS + 1], *name[MAX_PARTS];
	int np, nn, off = 0;

	if (strlen(pattern) > MASK_PATTERN_MAX || strlen(path) >= sizeof(nbuf))
		return false;
	/* The walk asks of every entry: most fail on the last component,
	 * checked first without copying or splitting anything. */
	if (!last_may_match(pattern, path))
		return false;
	if (pattern[0] != '/')
		pat[off++] = (char *)"**";
	strcpy(pbuf, pattern);
	strcpy(nbuf, path);
	np = split(pbuf, pat + off);
	nn = split(nbuf, name);
	if (np < 0 || nn < 0)
		return false;
	return match_parts(pat, np + off, name, nn);
}

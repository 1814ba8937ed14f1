/* units.c: size and duration options (see units.h). Frontend only. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "doc/units.h"

/* A plain decimal number with no sign, no spaces and no leading '+'. */
static int parse_number(const char *s, const char **ret_end, uint64_t *ret)
{
	uint64_t v = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*ret_end = p;
	*ret = v;
	return 0;
}

struct unit {
	const char *suffix;
	uint64_t factor;
};

/* A number, then exactly one of the suffixes; scaled without overflow. */
static int parse_with_units(const char *s, const struct unit *units, size_t n, uint64_t *ret)
{
	const char *end;
	uint64_t v;
	int r = parse_number(s, &end, &v);

	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++)
		if (strcmp(end, units[i].suffix) == 0) {
			if (units[i].factor && v > UINT64_MAX / units[i].factor)
				return -ERANGE;
			*ret = v * units[i].factor;
			return 0;
		}
	return -EINVAL;
}

int units_parse_size(const char *s, uint64_t *ret_bytes)
{
	static const struct unit units[] = {
		{ "", 1 },	       { "K", 1ull << 10 },   { "M", 1ull << 20 },
		{ "G", 1ull << 30 },   { "T", 1ull << 40 },   { "KiB", 1ull << 10 },
		{ "MiB", 1ull << 20 }, { "GiB", 1ull << 30 }, { "TiB", 1ull << 40 },
	};

	return parse_with_units(s, units, sizeof(units) / sizeof(units[0]), ret_bytes);
}

int units_parse_duration(const char *s, uint64_t *ret_ms)
{
	static const struct unit units[] = {
		{ "", 1000 }, { "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
	};

	return parse_with_units(s, units, sizeof(units) / sizeof(units[0]), ret_ms);
}

/* Largest unit that divides v exactly, so that a value prints as typed. */
static void format_exact(uint64_t v, const struct unit *units, size_t n, char *buf, size_t cap)
{
	for (size_t i = n; i-- > 0;)
		if (units[i].factor && v % units[i].factor == 0 && (v || i == 0)) {
			snprintf(buf, cap, "%" PRIu64 "%s", v / units[i].factor, units[i].suffix);
			return;
		}
	snprintf(buf, cap, "%" PRIu64, v);
}

void units_format_size(uint64_t bytes, char *buf, size_t cap)
{
	static const struct unit units[] = {
		{ "", 1 }, { "K", 1ull << 10 }, { "M", 1ull << 20 }, { "G", 1ull << 30 },
		{ "T", 1ull << 40 },
	};

	format_exact(bytes, units, sizeof(units) / sizeof(units[0]), buf, cap);
}

void units_format_duration(uint64_t ms, char *buf, size_t cap)
{
	static const struct unit units[] = {
		{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
	};

	format_exact(ms, units, sizeof(units) / sizeof(units[0]), buf, cap);
}

/* "1.5" and the rest after it: whole and fraction scaled by 10^digits. */
static int parse_decimal(const char *s, uint64_t *ret_whole, uint64_t *ret_frac,
			 uint64_t *ret_scale, const char **ret_end)
{
	const char *p;
	uint64_t frac = 0, scale = 1;
	int r = parse_number(s, &p, ret_whole);

	if (r < 0)
		return r;
	if (*p != '.' || p[1] < '0' || p[1] > '9')
		return -EINVAL;
	for (p++; *p >= '0' && *p <= '9'; p++) {
		if (scale > UINT64_MAX / 100)
			return -ERANGE;
		frac = frac * 10 + (uint64_t)(*p - '0');
		scale *= 10;
	}
	*ret_frac = frac;
	*ret_scale = scale;
	*ret_end = p;
	return 0;
}

/* A fractional value with a known unit, as a whole number of the base
 * unit when it is one: "1.5s" is 1500 (ms). */
static bool whole_value(const char *s, const struct unit *units, size_t n, uint64_t *ret)
{
	uint64_t whole, frac, scale;
	const char *end;

	if (parse_decimal(s, &whole, &frac, &scale, &end) < 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		uint64_t f = units[i].factor;

		if (strcmp(end, units[i].suffix) != 0)
			continue;
		if (whole > UINT64_MAX / f || (frac && f > UINT64_MAX / frac) || (frac * f) % scale)
			return false;
		*ret = whole * f + frac * f / scale;
		return true;
	}
	return false;
}

static bool suffix_in(const char *end, const struct unit *units, size_t n, bool nocase)
{
	for (size_t i = 0; i < n; i++)
		if (units[i].suffix[0] &&
		    (nocase ? strcasecmp(end, units[i].suffix) : strcmp(end, units[i].suffix)) == 0)
			return true;
	return false;
}

void units_size_problem(const char *s, char *buf, size_t cap)
{
	static const struct unit units[] = {
		{ "", 1 }, { "K", 1ull << 10 }, { "M", 1ull << 20 }, { "G", 1ull << 30 },
		{ "T", 1ull << 40 },
	};
	const size_t n = sizeof(units) / sizeof(units[0]);
	const char *end = s;
	uint64_t v;
	char fix[32];

	if (parse_number(s, &end, &v) == -ERANGE || units_parse_size(s, &v) == -ERANGE) {
		snprintf(buf, cap, "too large");
		return;
	}
	if (whole_value(s, units, n, &v)) {
		units_format_size(v, fix, sizeof(fix));
		snprintf(buf, cap, "use a whole number: %s", fix);
		return;
	}
	if (end != s && suffix_in(end, units, n, true) && !suffix_in(end, units, n, false)) {
		snprintf(buf, cap, "units are upper case: K, M, G, T (powers of 1024; KiB, MiB, "
				   "GiB, TiB too) or plain bytes");
		return;
	}
	snprintf(buf, cap, "a size is a whole number of bytes, or one with K, M, G or T "
			   "(powers of 1024; KiB, MiB, GiB, TiB too)");
}

void units_duration_problem(const char *s, char *buf, size_t cap)
{
	static const struct unit units[] = {
		{ "", 1000 }, { "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
	};
	const size_t n = sizeof(units) / sizeof(units[0]);
	uint64_t v;
	char fix[32];

	if (units_parse_duration(s, &v) == -ERANGE) {
		snprintf(buf, cap, "too large");
		return;
	}
	if (whole_value(s, units, n, &v)) {
		units_format_duration(v, fix, sizeof(fix));
		snprintf(buf, cap, "use %s", fix);
		return;
	}
	snprintf(buf, cap, "a duration is a whole number of seconds, or one with ms, s, m or h "
			   "(1500ms, 90s, 2m, 1h)");
}

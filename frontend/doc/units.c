/* units.c: size and duration options (see units.h). Frontend only. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

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

/* units.h: sizes and durations on the command line: bytes or K/M/G/T
 * suffixes (powers of 1024), seconds or ms/s/m/h suffixes. Documents never
 * use these: they carry _bytes and _ms integers. Frontend only, pure. */
#ifndef HUTCH_UNITS_H
#define HUTCH_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* 0 or -EINVAL (syntax) / -ERANGE (overflow). Writes *ret only on success. */
int units_parse_size(const char *s, uint64_t *ret_bytes);
int units_parse_duration(const char *s, uint64_t *ret_ms);

/* A value in the largest unit that divides it exactly: "1h", "1500ms",
 * "16G", "100" (bytes). */
void units_format_size(uint64_t bytes, char *buf, size_t cap);
void units_format_duration(uint64_t ms, char *buf, size_t cap);

/* Why s, which the parser above refused, is not a size or a duration,
 * as the remedy: "use 1500ms" for "1.5s", the accepted units for "64m". */
void units_size_problem(const char *s, char *buf, size_t cap);
void units_duration_problem(const char *s, char *buf, size_t cap);

#endif

/* units.h: sizes and durations on the command line: bytes or K/M/G/T
 * suffixes (powers of 1024), seconds or ms/s/m/h suffixes. Documents never
 * use these: they carry _bytes and _ms integers. Frontend only, pure. */
#ifndef HUTCH_UNITS_H
#define HUTCH_UNITS_H

#include <stdint.h>

/* 0 or -EINVAL (syntax) / -ERANGE (overflow). Writes *ret only on success. */
int units_parse_size(const char *s, uint64_t *ret_bytes);
int units_parse_duration(const char *s, uint64_t *ret_ms);

#endif

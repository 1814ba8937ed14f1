/* text.h: bytes as document text. Streams, files and frames travel in JSON
 * as text when they are valid UTF-8 without NUL, else as base64; the
 * request, the result and serve's messages share these. Frontend only. */
#ifndef HUTCH_TEXT_H
#define HUTCH_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Strict UTF-8: no overlongs, surrogates or code points past U+10FFFF. */
bool utf8_valid(const uint8_t *s, size_t n);

/* Padded base64 of data into a fresh string; NULL on no memory. */
char *base64_encode_alloc(const uint8_t *data, size_t len);

/* Strict base64 (RFC 4648, padded). Writes a malloc'd buffer. */
int base64_decode_strict(const char *s, size_t len, uint8_t **ret, size_t *ret_len);

#endif

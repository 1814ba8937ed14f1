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

/* src as it may be shown in a message into dst (cap > 0 bytes, always
 * terminated): '?' for each byte of a control character (C0, DEL, C1) or
 * of what is not UTF-8, and a cut that never splits a character, so a
 * refusal that repeats what was given stays one line of valid UTF-8.
 * dst may be src. */
void text_shown(char *dst, size_t cap, const char *src);
/* The length of the character at s when text_shown keeps it, else 0. */
size_t text_shown_len(const char *s);

/* Padded base64 of data into a fresh string; NULL on no memory. */
char *base64_encode_alloc(const uint8_t *data, size_t len);

/* Strict base64 (RFC 4648, padded). Writes a malloc'd buffer. */
int base64_decode_strict(const char *s, size_t len, uint8_t **ret, size_t *ret_len);

#endif

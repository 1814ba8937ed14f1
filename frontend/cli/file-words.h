/* file-words.h: errors about files the caller named (--request, --input)
 * in words: the file, the reason (errno in words and its name) and the
 * limit where one applies. Frontend only; pure. */
#ifndef HUTCH_FILE_WORDS_H
#define HUTCH_FILE_WORDS_H

#include <stddef.h>
#include <stdint.h>

/* "PATH: cannot open: No such file or directory (ENOENT)"; doing is
 * what failed ("cannot open", "cannot read"). */
void file_words_errno(const char *path, const char *doing, int err, char *buf, size_t cap);

/* "PATH: 41943040 bytes (40M), over the limit of 33554432 bytes (32M)";
 * size 0 when unknown: "PATH: over the limit of ...". */
void file_words_size(const char *path, uint64_t size, uint64_t limit, char *buf, size_t cap);

#endif

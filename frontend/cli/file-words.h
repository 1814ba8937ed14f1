/* file-words.h: the files the caller names on the command line
 * (--request, --input): errors about them in words (the file, the errno
 * in words and its name, the limit where one applies), and reading
 * --request's document; and the directories `hutch run` writes into
 * (--output-dir, --changes-dir), opened. Frontend only. */
#ifndef HUTCH_FILE_WORDS_H
#define HUTCH_FILE_WORDS_H

#include <stddef.h>
#include <stdint.h>

#include "doc/request.h"
#include "doc/verror.h"

/* "PATH: cannot open: No such file or directory (ENOENT)"; doing is
 * what failed ("cannot open", "cannot read"). */
void file_words_errno(const char *path, const char *doing, int err, char *buf, size_t cap);

/* "PATH: 41943040 bytes (40M), over the limit of 33554432 bytes (32M)";
 * size 0 when unknown: "PATH: over the limit of ...". */
void file_words_size(const char *path, uint64_t size, uint64_t limit, char *buf, size_t cap);

/* --request FILE (or "-", standard input): the document, parsed into
 * *req; -EINVAL with e filled, its message naming the file and why. */
int file_read_request(const char *file, struct request *req, struct verrors *e);

/* `hutch run`'s --output-dir and --changes-dir (flag, as typed): the
 * existing directory dir, its final component not a symbolic link. 0
 * with *ret_fd, or -EINVAL after saying why on stderr. */
int file_open_dir(const char *flag, const char *dir, int *ret_fd);

#endif

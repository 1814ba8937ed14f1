/* policy-blob.h: a parsed policy as bytes and back, for the cache of
 * parsed policies (jail/policy-cache.c). The bytes are checked on the way
 * back twice: every count and length against what is left, and then the
 * policy rebuilt from them must render the very canonical text stored with
 * it, which covers every field that decides anything (policy.h). Pure
 * code. Frontend only. */
#ifndef HUTCH_POLICY_BLOB_H
#define HUTCH_POLICY_BLOB_H

#include <stddef.h>
#include <stdint.h>

#include "doc/policy.h"

/* p (its file left out) as bytes: 0, or -ENOMEM. */
int policy_blob_encode(const struct policy *p, uint8_t **ret, size_t *ret_len);

/* Bytes back into *ret (file NULL): 0, -EBADMSG for anything but what
 * policy_blob_encode wrote, -ENOMEM. Nothing is left allocated on error. */
int policy_blob_decode(const uint8_t *b, size_t len, struct policy *ret);

#endif

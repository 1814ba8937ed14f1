/* policy-blob.h: a parsed policy as bytes and back, for the cache of
 * parsed policies (jail/policy-cache.c). The bytes end in a seal, the
 * SHA-256 of all before it, and are checked on the way back twice: the
 * seal, then every count and length against what is left and every
 * string a parsed policy has. The canonical text comes back as it was
 * stored (the digest is made from it), not rendered again: the seal
 * refuses bytes changed after encode, and the cache trusts only entries
 * that no jail can write (jail/cache.h). Pure code. Frontend only. */
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

/* host-ids.h: the host uid and gid of a root caller's jail, one pair per
 * jail from a range reserved for hutch (hutch(1), "Host ids"), held under
 * a lock until the jail is gone, so that per-user counts, signals and file
 * ownership are per jail. Frontend only. */
#ifndef HUTCH_HOST_IDS_H
#define HUTCH_HOST_IDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Without a "hutch" entry in /etc/subuid and /etc/subgid: 65536 ids from
 * 0x70000000, past systemd's container range (524288-1879048191), below
 * its foreign range (0x7FFE0000) and 2^31, clear of login users, of
 * systemd's dynamic users (61184-65519) and of the subordinate ranges
 * useradd hands out (100000-600100000). */
#define HOST_IDS_DEFAULT_BASE 0x70000000u
#define HOST_IDS_DEFAULT_COUNT 65536u
#define HOST_IDS_SUBUID "/etc/subuid"
#define HOST_IDS_SUBGID "/etc/subgid"
#define HOST_IDS_LOCK_DIR "/run/hutch"
#define HOST_IDS_LOCK_FILE "host-ids.lock"

struct host_id_range {
	uint32_t uid_base, gid_base, count;
};

/* The range from the texts of /etc/subuid and /etc/subgid (NULL: the file
 * is absent): both "hutch:START:COUNT" entries, else the default block.
 * Pure. -EINVAL with a one-line reason in why when the entries are
 * unusable (one file only, malformed, holding 0, 61184-65535 or ids from
 * 2^31 on). ret is written on success only. */
int host_ids_parse(const char *subuid, const char *subgid, struct host_id_range *ret,
		   char *why, size_t why_len);

/* The byte each lock covers holds its id's mark (host-ids.c): this value
 * when the last jail with the id is known to be empty, else anything. */
#define HOST_IDS_MARK_CLEAN 1

/* A pair handed out: lock_fd holds it (an open file description with
 * two byte locks) until host_ids_release. jail_gone is the holder's to
 * set once it knows every process that ever held the pair is gone (the
 * helper exited of its own accord after its jail's pid 1, which had a pid
 * namespace of its own, was reaped): the release then marks the pair
 * clean, and the next run skips the scan of /proc. */
struct host_id_lease {
	int lock_fd;
	uint32_t uid, gid;
	bool jail_gone;
};

/* Read the range (refused unless all of it exists in our user
 * namespace), then lock the first uid and gid of it that no other hutch
 * holds, that /etc/passwd and /etc/group do not name, and that no process
 * holds (as real, effective, saved or filesystem id): known from the
 * pair's clean mark, else by reading /proc. -EBUSY when all are taken,
 * another -errno when the range or the lock cannot be used; either way
 * why says so in one line. */
int host_ids_acquire(struct host_id_lease *ret, char *why, size_t why_len);
void host_ids_release(struct host_id_lease *l);

#endif

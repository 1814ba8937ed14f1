/* cleanup.h: scope-bound release of heap memory and descriptors for the
 * frontend and shared code. Never used on the helper's phase-2 path. */
#ifndef HUTCH_CLEANUP_H
#define HUTCH_CLEANUP_H

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline void closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;

		close(*fd);
		errno = saved;
	}
}

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)

/* Hand ownership on: returns the value and empties the variable. */
#define TAKE_PTR(p)                          \
	({                                   \
		__typeof__(p) _tp_ = (p);    \
		(p) = NULL;                  \
		_tp_;                        \
	})
#define TAKE_FD(fd)                  \
	({                           \
		int _tf_ = (fd);     \
		(fd) = -1;           \
		_tf_;                \
	})

#endif

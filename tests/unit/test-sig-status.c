/* test-sig-status.c: unit tests of sig_status_reset (frontend/run/
 * sig-status.c), the signals a spawned helper's child sets to SIG_DFL
 * before it unblocks them: SigIgn | SigCgt of a whole status; every
 * signal (but SIGKILL and SIGSTOP) when either line is missing, empty,
 * not hexadecimal, or cut short by the read inside its digits (a long
 * Groups line pushes the masks past spawn.c's buffer: a cut mask parsed
 * as fewer signals and left a caught one's handler in the vforked child);
 * SIGKILL and SIGSTOP never among them. */
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "run/sig-status.h"

#include "cunit-main.h"

#define BIT(s) (1ull << ((s) - 1))

static const char status[] = "Name:\tsh\nGroups:\t\nSigQ:\t0/3000\n"
			     "SigPnd:\t0000000000000000\nShdPnd:\t0000000000000000\n"
			     "SigBlk:\t0000000000000000\n"
			     "SigIgn:\t0000000000001000\n"	/* SIGPIPE */
			     "SigCgt:\t0000000180000002\n"	/* SIGINT, 32, 33 */
			     "CapInh:\t0000000000000000\n";

static void test_whole(void)
{
	CU_ASSERT_EQUAL(sig_status_reset(status), BIT(SIGPIPE) | BIT(SIGINT) | BIT(32) | BIT(33));
}

static void test_cut_short(void)
{
	char buf[sizeof(status)];
	const char *cgt = strstr(status, "SigCgt:\t") + strlen("SigCgt:\t");
	const char *ign = strstr(status, "SigIgn:\t") + strlen("SigIgn:\t");

	/* every cut inside either mask's line, its newline included */
	for (const char *end = ign; end <= cgt + 16; end++) {
		size_t n = (size_t)(end - status);

		memcpy(buf, status, n);
		buf[n] = '\0';
		CU_ASSERT_EQUAL(sig_status_reset(buf), sig_status_all());
	}
}

static void test_malformed(void)
{
	CU_ASSERT_EQUAL(sig_status_reset(""), sig_status_all());
	CU_ASSERT_EQUAL(sig_status_reset("\nSigIgn:\t0\n"), sig_status_all());
	CU_ASSERT_EQUAL(sig_status_reset("\nSigIgn:\t\n\nSigCgt:\t0\n"), sig_status_all());
	CU_ASSERT_EQUAL(sig_status_reset("\nSigIgn:\tzz\n\nSigCgt:\t0\n"), sig_status_all());
	CU_ASSERT_EQUAL(sig_status_reset("\nSigIgn:\t0 1\n\nSigCgt:\t0\n"), sig_status_all());
	CU_ASSERT_EQUAL(sig_status_reset("\nSigIgn:\t0\n\nSigCgt:\t0\n"), 0);
}

static void test_never_kill_stop(void)
{
	CU_ASSERT_EQUAL(sig_status_reset("\nSigIgn:\tffffffffffffffff\n\nSigCgt:\t0\n"),
			sig_status_all());
	CU_ASSERT_EQUAL(sig_status_all() & (BIT(SIGKILL) | BIT(SIGSTOP)), 0);
	CU_ASSERT_EQUAL(sig_status_all() | BIT(SIGKILL) | BIT(SIGSTOP), UINT64_MAX);
}

static const struct unit_case cases[] = {
	{ "a whole status: ignored and caught", test_whole },
	{ "a mask cut short: all of them", test_cut_short },
	{ "missing, empty, not hexadecimal: all of them", test_malformed },
	{ "never SIGKILL or SIGSTOP", test_never_kill_stop },
	{ NULL, NULL },
};

UNIT_MAIN("sig-status")

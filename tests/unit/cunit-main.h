/* cunit-main.h: the shared main() of the CUnit test programs. A test file
 * defines `static const struct unit_case cases[]` (NULL-terminated) and
 * includes this last. Exit status: 0 when every assertion passed. */
#ifndef HUTCH_CUNIT_MAIN_H
#define HUTCH_CUNIT_MAIN_H

#include <CUnit/Basic.h>
#include <stdio.h>

struct unit_case {
	const char *name;
	void (*fn)(void);
};

static int unit_main(const char *suite_name, const struct unit_case *cases)
{
	CU_pSuite suite;
	unsigned failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 99;
	suite = CU_add_suite(suite_name, NULL, NULL);
	if (!suite)
		return 99;
	for (const struct unit_case *c = cases; c->name; c++)
		if (!CU_add_test(suite, c->name, c->fn))
			return 99;
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_tests_failed() + CU_get_number_of_failures();
	if (CU_get_number_of_tests_run() == 0)
		failed = 1; /* a suite that ran nothing proves nothing */
	CU_cleanup_registry();
	return failed ? 1 : 0;
}

#define UNIT_MAIN(suite_name)                             \
	int main(void)                                     \
	{                                                  \
		return unit_main(suite_name, cases);       \
	}

#endif

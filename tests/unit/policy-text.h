/* policy-text.h: what the policy unit tests (test-policy.c,
 * test-policy-canonical.c, test-policy-shipped.c) share: the shipped
 * policies' names, one's text from the source tree and a parse that prints
 * its errors. Include after policy.h and cunit-main.h. */
#ifndef HUTCH_POLICY_TEXT_H
#define HUTCH_POLICY_TEXT_H

static const char *const shipped[] = { "default", "strict", "network", "build", "convert",
				       "agent" };

/* The text of policy/NAME.json in the source tree ($HUTCH_SRCDIR, which
 * `make check` exports), or NULL after a clear failure. */
static char *read_policy(const char *name, size_t *ret_len)
{
	const char *src = getenv("HUTCH_SRCDIR");
	char path[4096];
	struct stat st;
	char *text;
	FILE *f;

	if (!src || !src[0]) {
		fprintf(stderr, "\n  HUTCH_SRCDIR is not set: run through `make check` or set it "
				"to the source tree\n");
		CU_FAIL_FATAL("HUTCH_SRCDIR unset");
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/policy/%s.json", src, name);
	f = fopen(path, "re");
	if (!f || fstat(fileno(f), &st) < 0) {
		fprintf(stderr, "\n  cannot open %s: %s\n", path, strerror(errno));
		CU_FAIL_FATAL("shipped policy unreadable");
		return NULL;
	}
	text = malloc((size_t)st.st_size + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	*ret_len = fread(text, 1, (size_t)st.st_size, f);
	CU_ASSERT_EQUAL(*ret_len, (size_t)st.st_size);
	text[*ret_len] = '\0';
	fclose(f);
	return text;
}

static void print_errors(const char *what, const struct verrors *e)
{
	for (size_t i = 0; i < e->n; i++)
		fprintf(stderr, "\n  %s: %s at \"%s\": %s", what, hutch_err_name(e->items[i].code),
			e->items[i].pointer, e->items[i].reason);
}

static int parse_text(const char *text, const char *name, struct policy *p, struct verrors *e)
{
	int rc = policy_parse(text, strlen(text), name, p, e);

	if (rc != 0)
		print_errors(name, e);
	return rc;
}

/* Parse the shipped policy NAME into *p; any error fails the test. */
static inline void parse_shipped(const char *name, struct policy *p)
{
	struct verrors e = { 0 };
	size_t len;
	char *text = read_policy(name, &len);

	CU_ASSERT_EQUAL_FATAL(policy_parse(text, len, name, p, &e), 0);
	free(text);
}

#endif

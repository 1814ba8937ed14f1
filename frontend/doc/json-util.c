/* json-util.c: strict parsing and typed access (see json-util.h).
 * json-c keeps the last of duplicate keys silently, so a small scanner
 * walks the (already valid) text once more and compares each object's
 * keys after unescaping them to the UTF-8 json-c stores. Frontend only. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "doc/json-util.h"
#include "doc/text.h"

/* ---- duplicate keys ---- */

struct scan {
	const char *p, *end;
	char pointer[VERROR_POINTER_MAX];
	bool dup;		/* a bad key: stop, pointer and why say which */
	const char *why;
};

static void skip_ws(struct scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0'
	     : c >= 'a' && c <= 'f' ? c - 'a' + 10
	     : c >= 'A' && c <= 'F' ? c - 'A' + 10
				    : -1;
}

static int scan_hex4(struct scan *s, unsigned *ret)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		int h = s->p < s->end ? hexval(*s->p++) : -1;

		if (h < 0)
			return -EINVAL;
		v = v << 4 | (unsigned)h;
	}
	*ret = v;
	return 0;
}

static int put_utf8(char *b, unsigned cp)
{
	if (cp < 0x80) {
		b[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12);
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	b[0] = (char)(0xf0 | cp >> 18);
	b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	b[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* After "\u": the code point, as json-c decodes it: a surrogate pair is
 * one code point, a lone surrogate is U+FFFD. */
static int scan_escape_u(struct scan *s, unsigned *ret)
{
	unsigned v, lo;

	if (scan_hex4(s, &v) < 0)
		return -EINVAL;
	*ret = v >= 0xd800 && v <= 0xdfff ? 0xfffd : v;
	if (v >= 0xd800 && v <= 0xdbff && s->end - s->p >= 6 && s->p[0] == '\\' &&
	    s->p[1] == 'u') {
		const char *save = s->p;

		s->p += 2;
		if (scan_hex4(s, &lo) == 0 && lo >= 0xdc00 && lo <= 0xdfff)
			*ret = 0x10000 + ((v - 0xd800) << 10) + (lo - 0xdc00);
		else
			s->p = save; /* not a pair: the next escape stands alone */
	}
	return 0;
}

/* Read a string at s->p (on the quote). When out is not NULL, write its
 * decoded bytes (escapes resolved to UTF-8) up to cap, NUL-terminated;
 * *ret_len is the full decoded length. */
static int scan_string(struct scan *s, char *out, size_t cap, size_t *ret_len)
{
	size_t n = 0;

	if (s->p >= s->end || *s->p != '"')
		return -EINVAL;
	s->p++;
	while (s->p < s->end && *s->p != '"') {
		char c = *s->p++;
		char b[4];
		int k = 1;

		/* RFC 8259: control characters inside strings must be escaped;
		 * json-c lets them through, we do not. */
		if ((unsigned char)c < 0x20)
			return -EINVAL;
		if (c == '\\') {
			if (s->p >= s->end)
				return -EINVAL;
			c = *s->p++;
			switch (c) {
			case 'b': b[0] = '\b'; break;
			case 'f': b[0] = '\f'; break;
			case 'n': b[0] = '\n'; break;
			case 'r': b[0] = '\r'; break;
			case 't': b[0] = '\t'; break;
			case 'u': {
				unsigned cp;

				if (scan_escape_u(s, &cp) < 0)
					return -EINVAL;
				k = put_utf8(b, cp);
				break;
			}
			default: b[0] = c; break;
			}
		} else {
			b[0] = c;
		}
		for (int i = 0; i < k; i++, n++)
			if (out && n + 1 < cap)
				out[n] = b[i];
	}
	if (s->p >= s->end)
		return -EINVAL;
	s->p++;
	if (out)
		out[n + 1 < cap ? n : cap - 1] = '\0';
	*ret_len = n;
	return 0;
}

static int scan_value(struct scan *s, int depth);

/* The keys of one object seen so far, decoded. */
struct keyset {
	struct key {
		char *text;
		size_t len;
	} *items;
	size_t n, cap;
};

static void keyset_free(struct keyset *ks)
{
	for (size_t i = 0; i < ks->n; i++)
		free(ks->items[i].text);
	free(ks->items);
}

/* Takes text, whatever happens. */
static int keyset_add(struct keyset *ks, char *text, size_t len)
{
	if (ks->n == ks->cap) {
		size_t cap = ks->cap ? ks->cap * 2 : 8;
		struct key *nk = realloc(ks->items, cap * sizeof(*nk));

		if (!nk) {
			free(text);
			return -ENOMEM;
		}
		ks->items = nk;
		ks->cap = cap;
	}
	ks->items[ks->n++] = (struct key){ text, len };
	return 0;
}

/* Read the key at s->p, decoded, into a malloc'd string. */
static int scan_key(struct scan *s, char **ret_text, size_t *ret_len)
{
	const char *start = s->p;
	size_t len;
	char *text;
	int r;

	if ((r = scan_string(s, NULL, 0, &len)) < 0)
		return r;
	text = malloc(len + 1);
	if (!text)
		return -ENOMEM;
	s->p = start;
	scan_string(s, text, len + 1, &len);
	*ret_text = text;
	*ret_len = len;
	return 0;
}

/* Mark s bad when text repeats a key of ks or holds a NUL. */
static void check_key(struct scan *s, const struct keyset *ks, const char *parent, char *text,
		      size_t len)
{
	for (size_t i = 0; i < ks->n; i++)
		if (ks->items[i].len == len && memcmp(ks->items[i].text, text, len) == 0) {
			pointer_join_key(s->pointer, sizeof(s->pointer), parent, text);
			s->dup = true;
			s->why = "duplicate key";
		}
	/* json-c cuts a key at "\u0000": "argv\u0000x" would be "argv". */
	if (!s->dup && memchr(text, 0, len)) {
		for (size_t i = 0; i < len; i++)
			if (text[i] == '\0')
				text[i] = '\x01'; /* shown as '?' in the pointer */
		pointer_join_key(s->pointer, sizeof(s->pointer), parent, text);
		s->dup = true;
		s->why = "key contains NUL";
	}
}

/* After a member: 1 when another follows, 0 at the end of the object. */
static int scan_member_end(struct scan *s)
{
	skip_ws(s);
	if (s->p < s->end && *s->p == ',') {
		s->p++;
		return 1;
	}
	if (s->p < s->end && *s->p == '}') {
		s->p++;
		return 0;
	}
	return -EINVAL;
}

/* One member: key, colon, value. 0 when the object goes on (or s->dup
 * was set), -errno on bad text. */
static int scan_member(struct scan *s, struct keyset *ks, const char *parent, int depth)
{
	char *text = NULL;
	size_t len;
	int r;

	skip_ws(s);
	if ((r = scan_key(s, &text, &len)) < 0)
		return r;
	check_key(s, ks, parent, text, len);
	if ((r = keyset_add(ks, text, len)) < 0 || s->dup)
		return r;
	skip_ws(s);
	if (s->p >= s->end || *s->p != ':')
		return -EINVAL;
	s->p++;
	pointer_join_key(s->pointer, sizeof(s->pointer), parent, text);
	if ((r = scan_value(s, depth + 1)) < 0 || s->dup)
		return r;
	memcpy(s->pointer, parent, VERROR_POINTER_MAX);
	return 0;
}

static int scan_object(struct scan *s, int depth)
{
	_cleanup_(keyset_free) struct keyset ks = { 0 };
	char parent[VERROR_POINTER_MAX];
	int r;

	memcpy(parent, s->pointer, sizeof(parent));
	s->p++; /* '{' */
	skip_ws(s);
	if (s->p < s->end && *s->p == '}') {
		s->p++;
		return 0;
	}
	do {
		if ((r = scan_member(s, &ks, parent, depth)) < 0 || s->dup)
			return r;
	} while ((r = scan_member_end(s)) > 0);
	return r;
}

static int scan_array(struct scan *s, int depth)
{
	char parent[VERROR_POINTER_MAX];
	size_t i = 0;

	memcpy(parent, s->pointer, sizeof(parent));
	s->p++; /* '[' */
	skip_ws(s);
	if (s->p < s->end && *s->p == ']') {
		s->p++;
		return 0;
	}
	for (;; i++) {
		int r;

		pointer_join_index(s->pointer, sizeof(s->pointer), parent, i);
		if ((r = scan_value(s, depth + 1)) < 0 || s->dup)
			return r;
		memcpy(s->pointer, parent, sizeof(parent));
		skip_ws(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			continue;
		}
		if (s->p < s->end && *s->p == ']') {
			s->p++;
			return 0;
		}
		return -EINVAL;
	}
}

static int scan_value(struct scan *s, int depth)
{
	size_t len;

	if (depth > JSON_MAX_DEPTH)
		return -EINVAL;
	skip_ws(s);
	if (s->p >= s->end)
		return -EINVAL;
	switch (*s->p) {
	case '{':
		return scan_object(s, depth);
	case '[':
		return scan_array(s, depth);
	case '"':
		return scan_string(s, NULL, 0, &len);
	default: /* number, true, false, null: json-c has checked them */
		while (s->p < s->end && !strchr(",]} \t\r\n", *s->p))
			s->p++;
		return 0;
	}
}

/* ---- parsing ---- */

int json_parse_strict(const char *text, size_t len, enum hutch_err code, struct verrors *e,
		      struct json_object **ret)
{
	struct json_tokener *tok = json_tokener_new_ex(JSON_MAX_DEPTH);
	struct json_object *obj;
	struct scan s = { .p = text, .end = text + len };
	size_t used;

	if (!tok)
		return -ENOMEM;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	if (len > INT32_MAX || memchr(text, 0, len)) {
		json_tokener_free(tok);
		return verror_add(e, code, "", "not a JSON document");
	}
	/* json-c's check takes overlong forms and surrogates ("\xc0\x80"). */
	if (!utf8_valid((const uint8_t *)text, len)) {
		json_tokener_free(tok);
		return verror_add(e, code, "", "not valid UTF-8");
	}
	obj = json_tokener_parse_ex(tok, text, (int)len);
	used = (size_t)json_tokener_get_parse_end(tok);
	if (!obj || json_tokener_get_error(tok) != json_tokener_success) {
		json_tokener_free(tok);
		json_object_put(obj);
		return verror_add(e, code, "", "not a JSON document");
	}
	json_tokener_free(tok);
	for (; used < len; used++)
		if (!strchr(" \t\r\n", text[used])) {
			json_object_put(obj);
			return verror_add(e, code, "", "trailing data after the JSON document");
		}
	if (!json_object_is_type(obj, json_type_object)) {
		json_object_put(obj);
		return verror_add(e, code, "", "must be a JSON object");
	}
	if (scan_value(&s, 0) < 0 || s.dup) {
		json_object_put(obj);
		/* The scanner also refuses what json-c lets by: {'a':1}. */
		return verror_add(e, code, s.dup ? s.pointer : "",
				  s.dup ? s.why : "not a JSON document");
	}
	*ret = obj;
	return 0;
}

int json_check_keys(struct json_object *obj, const char *const *known, enum hutch_err code,
		    const char *pointer, struct verrors *e)
{
	int r = 0;

	json_object_object_foreach(obj, key, val) {
		bool found = false;

		(void)val;
		for (size_t i = 0; known[i]; i++)
			if (strcmp(known[i], key) == 0)
				found = true;
		if (!found) {
			r = verror_add_key(e, code, pointer, key, "unknown field");
			/* The fields there are: a typo's remedy. */
			for (size_t i = 0; known[i]; i++)
				verror_accept(e, "%s", known[i]);
		}
	}
	return r;
}

bool json_string_is_clean(struct json_object *s)
{
	const char *t = json_object_get_string(s);

	/* json-c validated UTF-8; a \u0000 would cut the C string short. */
	return t && strlen(t) == (size_t)json_object_get_string_len(s);
}

int json_get_typed(struct json_object *obj, const char *key, enum json_type type,
		   enum hutch_err code, const char *parent, struct verrors *e,
		   struct json_object **ret)
{
	static const char *const reason[] = {
		[json_type_null] = "must be null",	 [json_type_boolean] = "must be a boolean",
		[json_type_double] = "must be a number", [json_type_int] = "must be an integer",
		[json_type_object] = "must be an object", [json_type_array] = "must be an array",
		[json_type_string] = "must be a string",
	};
	struct json_object *v;

	if (!json_object_object_get_ex(obj, key, &v))
		return 0;
	if (!json_object_is_type(v, type))
		return verror_add_key(e, code, parent, key, reason[type]);
	*ret = v;
	return 1;
}

int json_get_uint(struct json_object *obj, const char *key, uint64_t min, uint64_t max,
		  enum hutch_err code, const char *parent, struct verrors *e, uint64_t *ret)
{
	struct json_object *v = NULL;
	int r = json_get_typed(obj, key, json_type_int, code, parent, e, &v);
	int64_t i;

	if (r <= 0)
		return r;
	errno = 0;
	i = json_object_get_int64(v);
	/* json-c saturates out-of-range integers at INT64_MIN/MAX. */
	if (i < 0 || i == INT64_MAX || (uint64_t)i < min || (uint64_t)i > max) {
		verror_add_key(e, code, parent, key, "out of range");
		/* A number is never a secret: repeat it, and the range. */
		if (i > INT64_MIN && i < INT64_MAX)
			verror_given(e, "%" PRId64, i);
		if (min == max)
			verror_accept(e, "%" PRIu64, min);
		else
			verror_accept(e, "%" PRIu64 " to %" PRIu64, min, max);
		return -EINVAL;
	}
	*ret = (uint64_t)i;
	return 1;
}

int json_get_string(struct json_object *obj, const char *key, size_t max_len, enum hutch_err code,
		    const char *parent, struct verrors *e, const char **ret)
{
	struct json_object *v = NULL;
	int r = json_get_typed(obj, key, json_type_string, code, parent, e, &v);

	if (r <= 0)
		return r;
	if (!json_string_is_clean(v))
		return verror_add_key(e, code, parent, key, "must not contain NUL");
	if ((size_t)json_object_get_string_len(v) > max_len)
		return verror_add_key(e, code, parent, key, "too long");
	*ret = json_object_get_string(v);
	return 1;
}

int json_get_bool(struct json_object *obj, const char *key, enum hutch_err code,
		  const char *parent, struct verrors *e, bool *ret)
{
	struct json_object *v = NULL;
	int r = json_get_typed(obj, key, json_type_boolean, code, parent, e, &v);

	if (r <= 0)
		return r;
	*ret = json_object_get_boolean(v);
	return 1;
}

/* verror's '\n'-ended list as an array; NULL when empty or out of memory
 * (*ok false then). */
static struct json_object *lines_array(const char *list, bool *ok)
{
	struct json_object *a;
	const char *pos = list, *value;
	size_t len;

	if (!list[0])
		return NULL;
	if (!(a = json_object_new_array())) {
		*ok = false;
		return NULL;
	}
	while ((len = verror_list_next(&pos, &value)) > 0) {
		struct json_object *s = json_object_new_string_len(value, (int)len);

		if (!s || json_object_array_add(a, s) < 0) {
			json_object_put(s);
			*ok = false;
		}
	}
	return a;
}

int json_add_list(struct json_object *obj, const char *key, const char *list)
{
	bool ok = true;
	struct json_object *a = lines_array(list, &ok);

	if (a && json_object_object_add(obj, key, a) < 0) {
		json_object_put(a);
		ok = false;
	}
	return ok ? 0 : -ENOMEM;
}

int json_add_accepted(struct json_object *obj, const struct verror *v)
{
	int r = json_add_list(obj, "accepted", v->accepted);

	return r < 0 ? r : json_add_list(obj, "allowed_by", v->allowed_by);
}

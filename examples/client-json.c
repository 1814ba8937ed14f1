/* client-json.c: hutch-client's JSON without a library (see
 * client-json.h): requests are built by hand, events read with a small
 * scanner that finds top-level members, and the streams of live events
 * and result documents decoded to the command's bytes. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client-json.h"

void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *p = realloc(b->p, cap);

		if (!p) {
			b->failed = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void buf_puts(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

/* Length of the UTF-8 sequence at s (strict: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or 0 when it is not one. The server
 * refuses a frame that is not UTF-8, so we refuse to send one. */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n;
	unsigned cp, min;

	if (c < 0x80)
		return 1;
	if ((c & 0xe0) == 0xc0)
		n = 2, cp = c & 0x1f, min = 0x80;
	else if ((c & 0xf0) == 0xe0)
		n = 3, cp = c & 0x0f, min = 0x800;
	else if ((c & 0xf8) == 0xf0)
		n = 4, cp = c & 0x07, min = 0x10000;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;	/* also stops at the terminating NUL */
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

int buf_json_string(struct buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	buf_add(b, "\"", 1);
	while (*p) {
		size_t n = utf8_seq(p);
		char esc[8];

		if (n == 0)
			return -EILSEQ;
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			buf_add(b, esc, 2);
		} else if (*p < 0x20 || *p == 0x7f) {
			snprintf(esc, sizeof(esc), "\\u%04x", *p);
			buf_add(b, esc, 6);
		} else {
			buf_add(b, (const char *)p, n);
		}
		p += n;
	}
	buf_add(b, "\"", 1);
	return 0;
}

/* A minimal reader for the server's events: the skip_ helpers move *p
 * past whitespace, a string or a whole value and say false when the text
 * ends first. Strings are skipped escape by escape, so a quote or a brace
 * inside captured output never confuses them. */
static bool skip_ws(const char **p, const char *end)
{
	while (*p < end && (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r'))
		(*p)++;
	return *p < end;
}

static bool skip_string(const char **p, const char *end)
{
	for ((*p)++; *p < end; (*p)++) {
		if (**p == '\\') {
			if (end - *p < 2)
				return false;
			(*p)++;	/* the escaped character */
		} else if (**p == '"') {
			(*p)++;
			return true;
		}
	}
	return false;
}

static bool skip_value(const char **p, const char *end)
{
	int depth = 0;

	if (!skip_ws(p, end))
		return false;
	do {
		if (*p >= end)
			return false;
		switch (**p) {
		case '"':
			if (!skip_string(p, end))
				return false;
			continue;
		case '{':
		case '[':
			depth++;
			break;
		case '}':
		case ']':
			depth--;
			break;
		default:
			if (depth == 0) {	/* a number, true, false or null */
				while (*p < end && !strchr(",}] \t\r\n", **p))
					(*p)++;
				return true;
			}
			break;
		}
		(*p)++;
	} while (depth > 0);
	return true;
}

bool json_member(const char *s, const char *end, const char *key, const char **ret_val,
			const char **ret_end)
{
	const char *p = s;
	size_t klen = strlen(key);

	if (!skip_ws(&p, end) || *p != '{')
		return false;
	p++;
	for (;;) {
		const char *k, *v;
		size_t n;

		if (!skip_ws(&p, end) || *p != '"')
			return false;
		k = p + 1;
		if (!skip_string(&p, end))
			return false;
		n = (size_t)(p - 1 - k);	/* p is past the closing quote */
		if (!skip_ws(&p, end) || *p != ':')
			return false;
		p++;
		if (!skip_ws(&p, end))
			return false;
		v = p;
		if (!skip_value(&p, end))
			return false;
		if (n == klen && memcmp(k, key, klen) == 0) {
			*ret_val = v;
			*ret_end = p;
			return true;
		}
		if (!skip_ws(&p, end) || *p != ',')
			return false;
		p++;
	}
}

long long json_member_int(const char *s, const char *end, const char *key, long long dflt)
{
	const char *v, *ve;

	if (!json_member(s, end, key, &v, &ve) || !(*v == '-' || (*v >= '0' && *v <= '9')))
		return dflt;
	return strtoll(v, NULL, 10);
}

void json_member_str(const char *s, const char *end, const char *key, char *out, size_t n)
{
	const char *v, *ve;
	size_t len;

	snprintf(out, n, "-");
	if (!json_member(s, end, key, &v, &ve) || *v != '"')
		return;
	len = (size_t)(ve - v) - 2;
	snprintf(out, n, "%.*s", (int)(len < 40 ? len : 40), v + 1);
}


/* ---- decoding ---- */

static int hex4(const char *p, const char *end, unsigned *ret)
{
	unsigned v = 0;

	if (end - p < 4)
		return -EINVAL;
	for (int i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -EINVAL;
	}
	*ret = v;
	return 0;
}

static void put_utf8(struct buf *out, unsigned cp)
{
	char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | cp >> 12);
		u[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | cp >> 18);
		u[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		u[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	buf_add(out, u, n);
}

/* One \u escape at p (after the backslash and the u), a surrogate pair
 * taken whole: where it ends, or NULL when it is malformed. */
static const char *decode_u(const char *p, const char *end, struct buf *out)
{
	unsigned cp, lo;

	if (hex4(p, end, &cp) < 0)
		return NULL;
	p += 4;
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return NULL;
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (end - p < 6 || p[0] != '\\' || p[1] != 'u' || hex4(p + 2, end, &lo) < 0 ||
		    lo < 0xdc00 || lo > 0xdfff)
			return NULL;
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		p += 6;
	}
	put_utf8(out, cp);
	return p;
}

int json_string_decode(const char *v, const char *ve, struct buf *out)
{
	static const char esc_in[] = "\"\\/bfnrt", esc_out[] = "\"\\/\b\f\n\r\t";
	const char *p = v + 1, *end = ve - 1;	/* inside the quotes */

	if (ve - v < 2 || *v != '"' || *end != '"')
		return -EINVAL;
	while (p < end) {
		const char *bs = memchr(p, '\\', (size_t)(end - p));
		const char *e;

		if (!bs) {
			buf_add(out, p, (size_t)(end - p));
			break;
		}
		buf_add(out, p, (size_t)(bs - p));
		if (end - bs < 2)
			return -EINVAL;
		if (bs[1] == 'u') {
			p = decode_u(bs + 2, end, out);
			if (!p)
				return -EINVAL;
			continue;
		}
		e = strchr(esc_in, bs[1]);
		if (!e || !*e)
			return -EINVAL;
		buf_add(out, &esc_out[e - esc_in], 1);
		p = bs + 2;
	}
	return out->failed ? -ENOMEM : 0;
}

static int b64_value(char c)
{
	static const char abc[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = c ? strchr(abc, c) : NULL;

	return p ? (int)(p - abc) : -1;
}

/* Padded base64 (as the server writes it) appended to out as bytes. */
static int base64_decode(const char *s, size_t n, struct buf *out)
{
	if (n % 4)
		return -EINVAL;
	for (size_t i = 0; i < n; i += 4) {
		int v[4];
		char b[3];
		size_t k = 3;

		for (int j = 0; j < 4; j++)
			v[j] = b64_value(s[i + (size_t)j]);
		if (i + 4 == n && s[i + 3] == '=')
			k = s[i + 2] == '=' ? 1 : 2;
		if (v[0] < 0 || v[1] < 0 || (k > 1 && v[2] < 0) || (k > 2 && v[3] < 0))
			return -EINVAL;
		b[0] = (char)(v[0] << 2 | v[1] >> 4);
		b[1] = (char)((v[1] & 0xf) << 4 | (k > 1 ? v[2] >> 2 : 0));
		b[2] = (char)((k > 2 ? (v[2] & 3) << 6 | v[3] : 0));
		buf_add(out, b, k);
	}
	return out->failed ? -ENOMEM : 0;
}

int json_stream_bytes(const char *v, const char *ve, struct buf *out)
{
	const char *s, *se;
	struct buf raw = { 0 };
	int r;

	if (json_member(v, ve, "text", &s, &se))
		return json_string_decode(s, se, out);
	if (!json_member(v, ve, "base64", &s, &se))
		return -EINVAL;
	r = json_string_decode(s, se, &raw);	/* base64 has no escapes, but may */
	if (r == 0)
		r = base64_decode(raw.p ? raw.p : "", raw.len, out);
	free(raw.p);
	return r;
}

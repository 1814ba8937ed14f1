/* text.c: UTF-8 validation and base64, the two encodings every document
 * uses for bytes (see text.h). Frontend only. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <nettle/base64.h>
#include <stdlib.h>
#include <string.h>

#include "doc/text.h"

bool utf8_valid(const uint8_t *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		uint8_t c = s[i];
		size_t k;
		uint32_t cp;

		if (c < 0x80) {
			/* ASCII a word at a time: streams of hundreds of MiB */
			uint64_t w;

			while (i + 8 <= n && (memcpy(&w, s + i, 8), !(w & 0x8080808080808080u)))
				i += 8;
			if (i < n && s[i] < 0x80)
				i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0)
			k = 1, cp = c & 0x1f;
		else if ((c & 0xf0) == 0xe0)
			k = 2, cp = c & 0x0f;
		else if ((c & 0xf8) == 0xf0)
			k = 3, cp = c & 0x07;
		else
			return false;
		for (size_t j = 1; j <= k; j++) {
			if (i + j >= n || (s[i + j] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		/* overlong forms, surrogates, beyond U+10FFFF */
		if ((k == 1 && cp < 0x80) || (k == 2 && cp < 0x800) || (k == 3 && cp < 0x10000) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			return false;
		i += k + 1;
	}
	return true;
}

char *base64_encode_alloc(const uint8_t *data, size_t len)
{
	char *out = malloc(BASE64_ENCODE_RAW_LENGTH(len) + 1);

	if (!out)
		return NULL;
	base64_encode_raw(out, len, data);
	out[BASE64_ENCODE_RAW_LENGTH(len)] = '\0';
	return out;
}

int base64_decode_strict(const char *s, size_t len, uint8_t **ret, size_t *ret_len)
{
	struct base64_decode_ctx ctx;
	uint8_t *out;
	size_t out_len = BASE64_DECODE_LENGTH(len) + 1, pad = 0;

	if (len % 4)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '=') {
			if (i < len - 2)
				return -EINVAL;
			pad++;
		} else if (pad || !(isalnum((unsigned char)c) || c == '+' || c == '/')) {
			return -EINVAL;
		}
	}
	out = malloc(out_len);
	if (!out)
		return -ENOMEM;
	base64_decode_init(&ctx);
	if (!base64_decode_update(&ctx, &out_len, out, len, s) || !base64_decode_final(&ctx)) {
		free(out);
		return -EINVAL;
	}
	*ret = out;
	*ret_len = out_len;
	return 0;
}

/* A C1 control is two bytes of UTF-8 a terminal may obey: U+009B is
 * ESC [. */
size_t text_shown_len(const char *s)
{
	const uint8_t *u = (const uint8_t *)s;
	size_t len = u[0] < 0x80 ? 1 : (u[0] & 0xe0) == 0xc0 ? 2 : (u[0] & 0xf0) == 0xe0 ? 3
		   : (u[0] & 0xf8) == 0xf0 ? 4 : 0;

	if (len == 0 || !utf8_valid(u, len) || u[0] < 0x20 || u[0] == 0x7f ||
	    (u[0] == 0xc2 && u[1] < 0xa0))
		return 0;
	return len;
}

void text_shown(char *dst, size_t cap, const char *src)
{
	size_t n = 0;

	for (const char *k = src; *k;) {
		size_t len = text_shown_len(k);

		if (n + (len ? len : 1) >= cap)
			break;
		if (len)
			memmove(dst + n, k, len);	/* dst may be src */
		else
			dst[n] = '?';
		n += len ? len : 1;
		k += len ? len : 1;
	}
	dst[n] = '\0';
}

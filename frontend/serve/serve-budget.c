/* serve-budget.c: see serve-budget.h. The cost of a byte covers every
 * copy of it alive at once: the capture, the document's string, json-c's
 * rendering and the frame; the capture is dropped before rendering, so
 * at most three are held together. Frontend only. */
#include "config.h"

#include "serve/serve-budget.h"

/* Bytes json-c writes for one byte of a string: \u00XX for a control
 * character, a backslash pair for quote and backslash. Base64 (output
 * that is not text) is 4/3 a byte, under the 2 counted for each copy. */
static unsigned escaped(uint8_t b)
{
	if (b < 0x20)
		return 6;
	return b == '"' || b == '\\' ? 2 : 1;
}

uint64_t budget_cost(const uint8_t *p, size_t n)
{
	uint64_t cost = 0;

	/* The capture and the document's copy (2 as base64), then the
	 * rendering and the frame (2 each as base64, escaped as text). */
	for (size_t i = 0; i < n; i++)
		cost += 2 + 2 * escaped(p[i]);
	return cost;
}

void budget_take(struct budget *b, uint64_t n)
{
	b->used += n;
}

void budget_give(struct budget *b, uint64_t n)
{
	b->used = n > b->used ? 0 : b->used - n;
}

void held_init(struct held *h, const struct capture *c)
{
	*h = (struct held){ .limit = c->limit };
}

void held_clamp(const struct budget *b, struct held *h, struct capture *c)
{
	uint64_t room = b->used >= b->max ? 0 : b->max - b->used;
	uint64_t cap = c->bytes + room / (2 * BUDGET_COST_MAX);

	/* Once crossed, a cap stays where it was: raising it again would
	 * keep bytes after a gap. */
	if (c->truncated)
		return;
	/* With room for two streams' worst turn, the run's own cap holds;
	 * the clamp (which the rendered cap of supervise.c also reads) is
	 * set only when the budget runs low. */
	if (room >= 2 * BUDGET_COST_MAX * BUDGET_TURN_BYTES) {
		h->clamped = false;
		c->limit = h->limit;
		return;
	}
	if (cap == 0)
		cap = 1; /* 0 means no cap at all; one byte is in the margin */
	h->clamped = h->limit == 0 || cap < h->limit;
	c->limit = h->clamped ? cap : h->limit;
}

void held_charge(struct budget *b, struct held *h, const struct capture *c)
{
	uint64_t cost;

	if (c->len <= h->seen)
		return;
	cost = budget_cost(c->buf + h->seen, c->len - h->seen);
	budget_take(b, cost);
	h->charged += cost;
	h->seen = c->len;
}

bool held_overflowed(const struct held *h, const struct capture *c)
{
	return h->clamped && c->truncated;
}

void held_release(struct budget *b, struct held *h)
{
	budget_give(b, h->charged);
	h->charged = 0;
	h->seen = 0;
}

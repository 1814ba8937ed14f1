/* serve-budget.h: the server-wide budget for output `hutch serve` holds
 * in memory (--max-buffered): what runs and workers have written, charged
 * as it arrives with what rendering it into an event will take, and the
 * frames queued for clients. Frontend only. */
#ifndef HUTCH_SERVE_BUDGET_H
#define HUTCH_SERVE_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "run/supervise.h"

/* The most a kept byte can cost: see budget_cost(). */
#define BUDGET_COST_MAX 14u
/* More than one dispatch of a watch keeps of a stream (supervise.c reads
 * 64 KiB at a time). */
#define BUDGET_TURN_BYTES (256u << 10)

struct budget {
	uint64_t max, used;
};

/* One capture's share: its own cap, what of it is charged. */
struct held {
	uint64_t limit;		/* the capture's cap before any clamp; 0 = none */
	size_t seen;		/* kept bytes already charged */
	uint64_t charged;
	bool clamped;		/* the budget, not the cap, set the last limit */
};

/* Pure: the budget n kept bytes cost, an upper bound of the memory they
 * take until their event is queued. */
uint64_t budget_cost(const uint8_t *p, size_t n);

void budget_take(struct budget *b, uint64_t n);
void budget_give(struct budget *b, uint64_t n);

/* Around each dispatch of a run's or worker's watch: clamp lowers the
 * capture's cap so that what it may keep next fits the budget left
 * (crossing it is then an overflow, handled per the policy's on_limit);
 * charge takes what was kept since. */
void held_init(struct held *h, const struct capture *c);
void held_clamp(const struct budget *b, struct held *h, struct capture *c);
void held_charge(struct budget *b, struct held *h, const struct capture *c);
/* The capture crossed a cap the budget set, not its own. */
bool held_overflowed(const struct held *h, const struct capture *c);
/* The capture's bytes are gone (freed or rendered): give back its share. */
void held_release(struct budget *b, struct held *h);

#endif

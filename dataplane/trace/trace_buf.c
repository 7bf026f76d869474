/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The trace's shared state (rsw_trace.h): arming and stopping, the budget workers claim frames
 * from, and the per-worker record buffers the control thread reads and clears.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rsw_trace.h"

struct rsw_trace_main rsw_trace = {.port = RSW_TRACE_ANY_PORT};
struct rsw_trace_buf *rsw_trace_buf[RTE_MAX_LCORE];

int
rsw_trace_init(void)
{
	unsigned int lc;

	RTE_LCORE_FOREACH(lc) {
		if (rsw_trace_buf[lc] != NULL)
			continue;
		rsw_trace_buf[lc] =
			aligned_alloc(RTE_CACHE_LINE_SIZE, sizeof(struct rsw_trace_buf));
		if (rsw_trace_buf[lc] == NULL)
			return -ENOMEM;
		memset(rsw_trace_buf[lc], 0, sizeof(struct rsw_trace_buf));
	}
	return 0;
}

void
rsw_trace_fini(void)
{
	unsigned int lc;

	__atomic_store_n(&rsw_trace.ctl, 0, __ATOMIC_RELEASE);
	for (lc = 0; lc < RTE_MAX_LCORE; lc++) {
		free(rsw_trace_buf[lc]);
		rsw_trace_buf[lc] = NULL;
	}
}

int
rsw_trace_arm(uint32_t count, uint16_t port, uint64_t tsc, uint64_t ns, uint64_t hz)
{
	uint64_t old, want;

	if (count > RSW_TRACE_CAP)
		return -EINVAL;
	if (count > 0) {
		int ret = rsw_trace_init();

		if (ret != 0)
			return ret;
		/* Stopped first: no worker reads port and the clock while they change. */
		old = __atomic_load_n(&rsw_trace.ctl, __ATOMIC_ACQUIRE);
		while (!__atomic_compare_exchange_n(&rsw_trace.ctl, &old, old & ~0xffffffffull,
						    false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			;
		__atomic_store_n(&rsw_trace.port, port, __ATOMIC_RELAXED);
		rsw_trace.tsc0 = tsc;
		rsw_trace.ns0 = ns;
		rsw_trace.hz = hz != 0 ? hz : 1;
	}
	/* The sequence numbers go on; the budget is replaced. */
	old = __atomic_load_n(&rsw_trace.ctl, __ATOMIC_ACQUIRE);
	do
		want = (old & ~0xffffffffull) | count;
	while (!__atomic_compare_exchange_n(&rsw_trace.ctl, &old, want, false, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE));
	return 0;
}

uint32_t
rsw_trace_budget(void)
{
	return (uint32_t)__atomic_load_n(&rsw_trace.ctl, __ATOMIC_ACQUIRE);
}

uint32_t
rsw_trace_claim(uint16_t port, uint32_t want, uint64_t *seq)
{
	uint64_t old = __atomic_load_n(&rsw_trace.ctl, __ATOMIC_ACQUIRE), upd;
	uint32_t budget, got;
	uint16_t filter;

	for (;;) {
		budget = (uint32_t)old;
		if (budget == 0 || want == 0)
			return 0;
		/* port is stable while the budget is non-zero (rsw_trace_arm). */
		filter = __atomic_load_n(&rsw_trace.port, __ATOMIC_RELAXED);
		if (filter != RSW_TRACE_ANY_PORT && filter != port)
			return 0;
		got = RTE_MIN(budget, want);
		upd = (((old >> 32) + got) << 32) | (budget - got);
		if (__atomic_compare_exchange_n(&rsw_trace.ctl, &old, upd, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			break;
	}
	*seq = (old >> 32) + 1;
	return got;
}

void
rsw_trace_clear(void)
{
	unsigned int lc;

	for (lc = 0; lc < RTE_MAX_LCORE; lc++)
		if (rsw_trace_buf[lc] != NULL)
			__atomic_store_n(
				&rsw_trace_buf[lc]->base,
				__atomic_load_n(&rsw_trace_buf[lc]->head, __ATOMIC_ACQUIRE),
				__ATOMIC_RELAXED);
}

unsigned int
rsw_trace_read(unsigned int lcore, struct rsw_trace_rec *out)
{
	const struct rsw_trace_buf *buf = lcore < RTE_MAX_LCORE ? rsw_trace_buf[lcore] : NULL;
	uint64_t head, first, after, i;
	unsigned int n = 0, skip;

	if (buf == NULL)
		return 0;
	head = __atomic_load_n(&buf->head, __ATOMIC_ACQUIRE);
	first = __atomic_load_n(&buf->base, __ATOMIC_RELAXED);
	if (head > RSW_TRACE_CAP && first < head - RSW_TRACE_CAP)
		first = head - RSW_TRACE_CAP; /* wrapped: the oldest were overwritten */
	for (i = first; i < head; i++)
		out[n++] = buf->rec[i % RSW_TRACE_SLOTS];
	/* Record i is written over while the worker writes record i + RSW_TRACE_SLOTS (the same
	 * slot), when head (published) is i + RSW_TRACE_SLOTS already: records below
	 * after - RSW_TRACE_CAP may be torn, and are left out. */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	after = __atomic_load_n(&buf->head, __ATOMIC_RELAXED);
	if (after > RSW_TRACE_CAP + first) {
		skip = (unsigned int)RTE_MIN((uint64_t)n, after - RSW_TRACE_CAP - first);
		memmove(out, out + skip, sizeof(*out) * (n - skip));
		n -= skip;
	}
	return n;
}

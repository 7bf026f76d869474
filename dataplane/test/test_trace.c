/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The trace's shared state on its own (dataplane/trace/trace_buf.c): arming and the budget
 * workers claim frames from (counts, the port filter, sequence numbers that go on across
 * starts), the per-worker record buffer (wrap: the newest RSW_TRACE_CAP kept, oldest first;
 * clear), and a reader copying while a writer thread keeps writing: no torn record is returned.
 */

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include "rsw_trace.h"

static struct rsw_trace_rec out[RSW_TRACE_CAP];

static void
buf_reset(unsigned int lc)
{
	if (rsw_trace_buf[lc] == NULL)
		rsw_trace_buf[lc] =
			aligned_alloc(RTE_CACHE_LINE_SIZE, sizeof(struct rsw_trace_buf));
	assert_non_null(rsw_trace_buf[lc]);
	memset(rsw_trace_buf[lc], 0, sizeof(struct rsw_trace_buf));
}

/* What a worker does for one frame: a record with seq, published. */
static void
write_rec(unsigned int lc, uint64_t seq)
{
	struct rsw_trace_rec *r = rsw_trace_next(rsw_trace_buf[lc]);

	memset(r, 0, sizeof(*r));
	r->seq = seq;
	r->tsc = seq * 3;
	r->tsc_end = seq * 7;
	rsw_trace_publish(rsw_trace_buf[lc]);
}

static void
test_arming(void **state)
{
	uint64_t seq = 0, first;

	(void)state;
	buf_reset(0);
	assert_int_equal(rsw_trace_arm(0, RSW_TRACE_ANY_PORT, 0, 0, 0), 0);
	assert_false(rsw_trace_armed());
	assert_int_equal(rsw_trace_claim(1, 32, &seq), 0);
	assert_int_equal(rsw_trace_arm(RSW_TRACE_CAP + 1, RSW_TRACE_ANY_PORT, 0, 0, 1), -EINVAL);
	assert_false(rsw_trace_armed());

	/* Five frames on port 2 only. */
	assert_int_equal(rsw_trace_arm(5, 2, 100, 1000, 1), 0);
	assert_true(rsw_trace_armed());
	assert_int_equal(rsw_trace_budget(), 5);
	assert_int_equal(rsw_trace_claim(1, 32, &seq), 0); /* another port */
	assert_int_equal(rsw_trace_budget(), 5);
	assert_int_equal(rsw_trace_claim(2, 3, &seq), 3);
	first = seq;
	assert_int_equal(rsw_trace_claim(2, 32, &seq), 2); /* what is left */
	assert_int_equal(seq, first + 3);
	assert_false(rsw_trace_armed());
	assert_int_equal(rsw_trace_claim(2, 32, &seq), 0);

	/* Any port; stop keeps the numbering; a new start goes on from it. */
	assert_int_equal(rsw_trace_arm(4, RSW_TRACE_ANY_PORT, 100, 1000, 1), 0);
	assert_int_equal(rsw_trace_claim(7, 1, &seq), 1);
	assert_int_equal(seq, first + 5);
	assert_int_equal(rsw_trace_arm(0, RSW_TRACE_ANY_PORT, 0, 0, 0), 0);
	assert_false(rsw_trace_armed());
	assert_int_equal(rsw_trace_claim(7, 1, &seq), 0);
	assert_int_equal(rsw_trace_arm(2, RSW_TRACE_ANY_PORT, 100, 1000, 1), 0);
	assert_int_equal(rsw_trace_claim(9, 32, &seq), 2);
	assert_int_equal(seq, first + 6);
	assert_int_equal(rsw_trace_budget(), 0);
}

static void
test_count_read_clear(void **state)
{
	unsigned int n, i;

	(void)state;
	buf_reset(0);
	assert_int_equal(rsw_trace_read(0, out), 0);
	assert_int_equal(rsw_trace_read(5, out), 0); /* no buffer */
	for (i = 1; i <= 50; i++)
		write_rec(0, i);
	n = rsw_trace_read(0, out);
	assert_int_equal(n, 50);
	for (i = 0; i < n; i++)
		assert_int_equal(out[i].seq, i + 1);
	rsw_trace_clear();
	assert_int_equal(rsw_trace_read(0, out), 0);
	write_rec(0, 51);
	write_rec(0, 52);
	n = rsw_trace_read(0, out);
	assert_int_equal(n, 2);
	assert_int_equal(out[0].seq, 51);
	assert_int_equal(out[1].seq, 52);
}

static void
test_wrap(void **state)
{
	unsigned int n, i;

	(void)state;
	buf_reset(0);
	for (i = 1; i <= RSW_TRACE_CAP + 10; i++)
		write_rec(0, i);
	n = rsw_trace_read(0, out);
	assert_int_equal(n, RSW_TRACE_CAP);
	for (i = 0; i < n; i++)
		assert_int_equal(out[i].seq, i + 11); /* the 10 oldest written over */
	/* Cleared, then wrapped again past the clear point. */
	rsw_trace_clear();
	for (i = 1; i <= 3; i++)
		write_rec(0, 10000 + i);
	n = rsw_trace_read(0, out);
	assert_int_equal(n, 3);
	assert_int_equal(out[0].seq, 10001);
	for (i = 4; i <= 2 * RSW_TRACE_CAP; i++)
		write_rec(0, 10000 + i);
	n = rsw_trace_read(0, out);
	assert_int_equal(n, RSW_TRACE_CAP);
	assert_int_equal(out[0].seq, 10000 + RSW_TRACE_CAP + 1);
	assert_int_equal(out[n - 1].seq, 10000 + 2 * RSW_TRACE_CAP);
}

static volatile int writer_stop;

static void *
writer(void *arg)
{
	uint64_t seq = 1;

	(void)arg;
	while (!__atomic_load_n(&writer_stop, __ATOMIC_RELAXED)) {
		write_rec(1, seq++);
		/* About a frame's pace under trace, so that some copies complete whole. */
		for (volatile uint64_t k = 0; k < (seq & 1023) * 4; k++)
			;
	}
	return NULL;
}

static void
test_read_while_writing(void **state)
{
	pthread_t th;
	unsigned int n, i, round, seen = 0;
	time_t t_end;

	(void)state;
	buf_reset(1);
	writer_stop = 0;
	assert_int_equal(pthread_create(&th, NULL, writer, NULL), 0);
	/* Until copies were checked and the writer wrapped a few times, or 10 s. */
	t_end = time(NULL) + 10;
	for (round = 0; (seen == 0 || __atomic_load_n(&rsw_trace_buf[1]->head, __ATOMIC_RELAXED) <=
					      4 * RSW_TRACE_SLOTS) &&
			time(NULL) < t_end;
	     round++) {
		n = rsw_trace_read(1, out);
		seen += n;
		for (i = 0; i < n; i++) {
			/* Whole records, in order, consecutive. */
			assert_int_equal(out[i].tsc, out[i].seq * 3);
			assert_int_equal(out[i].tsc_end, out[i].seq * 7);
			if (i > 0)
				assert_int_equal(out[i].seq, out[i - 1].seq + 1);
		}
	}
	__atomic_store_n(&writer_stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	assert_true(seen > 0);
	assert_true(rsw_trace_buf[1]->head > 4 * RSW_TRACE_SLOTS);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arming),
		cmocka_unit_test(test_count_read_clear),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_read_while_writing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

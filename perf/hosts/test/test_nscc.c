/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The NSCC-like window and REPS-like entropy recycling against hand-worked sequences:
 * every expected window below is computed by hand from the rules in rsw_nscc.h.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include "rsw_nscc.h"

static struct rsw_nscc_params
params(void)
{
	return (struct rsw_nscc_params){
		.max_cwnd = 16,
		.min_cwnd = 1,
		.target_ns = 1000000, /* 1 ms */
		.beta = 0.5,
		.fast_gain = 0.5,
		.ai = 1,
	};
}

static void
test_starts_at_bdp_and_stays(void **state)
{
	struct rsw_nscc_params p = params();
	struct rsw_nscc c;
	int i;

	(void)state;
	rsw_nscc_init(&c, &p);
	assert_float_equal(c.cwnd, 16, 1e-9);
	/* 15 packets of feedback: the epoch (one window, 16) is not over yet. */
	assert_int_equal(rsw_nscc_feedback(&c, &p, 15, 0, 0, 500000), 0);
	assert_int_equal(rsw_nscc_feedback(&c, &p, 1, 0, 0, 500000), 1);
	/* Unmarked, below target: grows toward one BDP and never past it. */
	assert_float_equal(c.cwnd, 16, 1e-9);
	for (i = 0; i < 10; i++)
		rsw_nscc_feedback(&c, &p, 16, 0, 0, 100000);
	assert_float_equal(c.cwnd, 16, 1e-9);
	assert_int_equal(c.cuts, 0);
}

static void
test_cut_in_proportion_to_marks(void **state)
{
	struct rsw_nscc_params p = params();
	struct rsw_nscc c;

	(void)state;
	rsw_nscc_init(&c, &p);
	/* Half the window marked, delay 2 ms over a 1 ms target: 16 × (1 − 0.5 × 0.5) = 12. */
	assert_int_equal(rsw_nscc_feedback(&c, &p, 16, 8, 0, 2000000), 1);
	assert_float_equal(c.cwnd, 12, 1e-9);
	/* All 12 marked: 12 × (1 − 0.5) = 6. */
	assert_int_equal(rsw_nscc_feedback(&c, &p, 12, 12, 0, 3000000), 1);
	assert_float_equal(c.cwnd, 6, 1e-9);
	assert_int_equal(c.cuts, 2);
	/* Marks while the delay is below target: held, not cut. */
	assert_int_equal(rsw_nscc_feedback(&c, &p, 6, 6, 0, 500000), 1);
	assert_float_equal(c.cwnd, 6, 1e-9);
	assert_int_equal(c.holds, 1);
	/* Unmarked above target: + ai (7); unmarked below target: + half the gap + ai:
	 * 7 + 0.5 × 9 + 1 = 12.5. */
	rsw_nscc_feedback(&c, &p, 6, 0, 0, 1500000);
	assert_float_equal(c.cwnd, 7, 1e-9);
	rsw_nscc_feedback(&c, &p, 7, 0, 0, 400000);
	assert_float_equal(c.cwnd, 12.5, 1e-9);
	assert_float_equal(c.cwnd_min_seen, 6, 1e-9);
}

static void
test_trims_cut_whatever_the_delay(void **state)
{
	struct rsw_nscc_params p = params();
	struct rsw_nscc c;

	(void)state;
	rsw_nscc_init(&c, &p);
	/* 12 acked + 4 trimmed: trimmed fraction 1/4, delay low: 16 × (1 − 0.5/4) = 14. */
	assert_int_equal(rsw_nscc_feedback(&c, &p, 12, 0, 4, 100000), 1);
	assert_float_equal(c.cwnd, 14, 1e-9);
	/* Marks count too once the delay is above target: 7 acked (all marked) + 7 trims:
	 * 14 × (1 − 0.5 × (0.5 + 0.5)) = 7. */
	assert_int_equal(rsw_nscc_feedback(&c, &p, 7, 7, 7, 5000000), 1);
	assert_float_equal(c.cwnd, 7, 1e-9);
	/* More marks than packets acknowledged count as all marked. */
	assert_int_equal(rsw_nscc_feedback(&c, &p, 7, 99, 0, 5000000), 1);
	assert_float_equal(c.cwnd, 3.5, 1e-9);
}

static void
test_floor_and_timeout(void **state)
{
	struct rsw_nscc_params p = params();
	struct rsw_nscc c;
	int i;

	(void)state;
	rsw_nscc_init(&c, &p);
	for (i = 0; i < 20; i++)
		rsw_nscc_feedback(&c, &p, 1, 0, 16, 5000000);
	assert_float_equal(c.cwnd, 1, 1e-9);
	rsw_nscc_init(&c, &p);
	rsw_nscc_timeout(&c, &p);
	assert_float_equal(c.cwnd, 1, 1e-9);
	/* Back from the floor: 1 + 0.5 × 15 + 1 = 9.5 after one clean epoch. */
	assert_int_equal(rsw_nscc_feedback(&c, &p, 1, 0, 0, 0), 1);
	assert_float_equal(c.cwnd, 9.5, 1e-9);
}

static void
test_reps_recycles_unmarked(void **state)
{
	struct rsw_reps r, o;
	uint16_t a, b, e;
	int i;

	(void)state;
	rsw_reps_init(&r, 1000, 256, 7, 1);
	rsw_reps_init(&o, 1000, 256, 7, 0);
	/* Nothing to reuse: both draw the same fresh entropies, inside the pool. */
	a = rsw_reps_next(&r);
	b = rsw_reps_next(&o);
	assert_int_equal(a, b);
	assert_true(a >= 1000 && a < 1256);
	/* Unmarked entropies come back first in, first out; a marked one is not reused. */
	rsw_reps_feedback(&r, 1010, 0);
	rsw_reps_feedback(&r, 1020, 1);
	rsw_reps_feedback(&r, 1030, 0);
	assert_int_equal(rsw_reps_next(&r), 1010);
	assert_int_equal(rsw_reps_next(&r), 1030);
	assert_int_equal(r.reused, 2);
	e = rsw_reps_next(&r); /* empty again: fresh */
	assert_true(e >= 1000 && e < 1256);
	assert_int_equal(r.fresh, 2);
	/* Oblivious spraying ignores feedback. */
	rsw_reps_feedback(&o, 1010, 0);
	assert_int_equal(o.head, o.tail);
	/* The ring holds RSW_REPS_RING entropies; more are dropped. */
	for (i = 0; i < RSW_REPS_RING + 5; i++)
		rsw_reps_feedback(&r, (uint16_t)(1000 + (i & 255)), 0);
	assert_int_equal(r.tail - r.head, RSW_REPS_RING);
	assert_int_equal(rsw_reps_next(&r), 1000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_starts_at_bdp_and_stays),
		cmocka_unit_test(test_cut_in_proportion_to_marks),
		cmocka_unit_test(test_trims_cut_whatever_the_delay),
		cmocka_unit_test(test_floor_and_timeout),
		cmocka_unit_test(test_reps_recycles_unmarked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

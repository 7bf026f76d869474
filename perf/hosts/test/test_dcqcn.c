/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * DCQCN reaction and notification points against hand-worked sequences: every
 * expected rate below is computed by hand from the rules in dcqcn.c's header.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include "rsw_dcqcn.h"

#define M 1e6

static struct rsw_dcqcn_params
params(void)
{
	return (struct rsw_dcqcn_params){
		.line_bps = 100 * M,
		.min_bps = 1 * M,
		.g = 1.0 / 256,
		.cnp_interval_ns = 50000,
		.alpha_ns = 1000,
		.timer_ns = 1000,
		.byte_counter = 10000,
		.f = 5,
		.rai_bps = 1 * M,
		.rhai_bps = 10 * M,
	};
}

static void
test_defaults_scale(void **state)
{
	struct rsw_dcqcn_params p;

	(void)state;
	/* At 40 Gb/s and time scale 1: the figures of the DCQCN authors' ns-3 model. */
	rsw_dcqcn_params_default(&p, 40e9, 1);
	assert_float_equal(p.rai_bps, 40 * M, 1);
	assert_float_equal(p.rhai_bps, 200 * M, 1);
	assert_int_equal(p.cnp_interval_ns, 50000);
	assert_int_equal(p.alpha_ns, 55000);
	assert_int_equal(p.timer_ns, 60000);
	assert_int_equal(p.byte_counter, 300000);
	assert_int_equal(p.f, 5);
	/* 100 Mb/s, time scale 20: rates / 400, times × 20, B = 12.5 MB/s × 1.2 ms. */
	rsw_dcqcn_params_default(&p, 100 * M, 20);
	assert_float_equal(p.rai_bps, 0.1 * M, 1);
	assert_float_equal(p.rhai_bps, 0.5 * M, 1);
	assert_int_equal(p.cnp_interval_ns, 1000000);
	assert_int_equal(p.timer_ns, 1200000);
	assert_int_equal(p.byte_counter, 15000);
	/* A scale below 1 is taken as 1. */
	rsw_dcqcn_params_default(&p, 40e9, 0);
	assert_int_equal(p.timer_ns, 60000);
}

static void
test_cnp_cut_and_fast_recovery(void **state)
{
	struct rsw_dcqcn_params p = params();
	struct rsw_dcqcn_rp rp;

	(void)state;
	rsw_dcqcn_rp_init(&rp, &p);
	assert_float_equal(rp.rc, 100 * M, 1);
	assert_float_equal(rp.alpha, 1.0, 1e-12);
	assert_int_equal(rp.active, 0);
	/* No CNP yet: the timer does nothing at line rate. */
	rsw_dcqcn_rp_tick(&rp, &p, 5000);
	assert_float_equal(rp.rc, 100 * M, 1);

	/* CNP: rt = 100, rc = 100 (1 - 1/2) = 50, α = 255/256 + 1/256 = 1. */
	rsw_dcqcn_rp_cnp(&rp, &p, 10000);
	assert_float_equal(rp.rt, 100 * M, 1);
	assert_float_equal(rp.rc, 50 * M, 1);
	assert_float_equal(rp.alpha, 1.0, 1e-12);
	/* Second CNP at once: rt = 50, rc = 25. */
	rsw_dcqcn_rp_cnp(&rp, &p, 10000);
	assert_float_equal(rp.rt, 50 * M, 1);
	assert_float_equal(rp.rc, 25 * M, 1);
	assert_int_equal(rp.cnps, 2);

	/* One α interval and one T later: α = 255/256; fast recovery rc = (50+25)/2. */
	rsw_dcqcn_rp_tick(&rp, &p, 11000);
	assert_float_equal(rp.alpha, 255.0 / 256, 1e-12);
	assert_float_equal(rp.rc, 37.5 * M, 1);
	assert_float_equal(rp.rt, 50 * M, 1);
	/* Timer events 2..4: 43.75, 46.875, 48.4375; the target stays. */
	rsw_dcqcn_rp_tick(&rp, &p, 14000);
	assert_float_equal(rp.rc, 48.4375 * M, 1);
	assert_float_equal(rp.rt, 50 * M, 1);
	assert_float_equal(rp.alpha, (255.0 / 256) * (255.0 / 256) * (255.0 / 256) * (255.0 / 256),
			   1e-12);
	/* Event 5 (t = 5, bc = 0): additive, rt = 51, rc = (51 + 48.4375)/2 = 49.71875. */
	rsw_dcqcn_rp_tick(&rp, &p, 15000);
	assert_int_equal(rp.t_stage, 5);
	assert_float_equal(rp.rt, 51 * M, 1);
	assert_float_equal(rp.rc, 49.71875 * M, 1);
	/* B bytes: bc = 1 → additive again: rt = 52, rc = 50.859375. */
	rsw_dcqcn_rp_sent(&rp, &p, 9999);
	assert_float_equal(rp.rc, 49.71875 * M, 1);
	rsw_dcqcn_rp_sent(&rp, &p, 1);
	assert_int_equal(rp.bc_stage, 1);
	assert_float_equal(rp.rt, 52 * M, 1);
	assert_float_equal(rp.rc, 50.859375 * M, 1);
	assert_int_equal(rp.increases, 6);
}

static void
test_hyper_increase_and_cap(void **state)
{
	struct rsw_dcqcn_params p = params();
	struct rsw_dcqcn_rp rp;
	double rt;
	int i;

	(void)state;
	rsw_dcqcn_rp_init(&rp, &p);
	rsw_dcqcn_rp_cnp(&rp, &p, 0); /* rt 100, rc 50 */
	/* Six byte-counter events with no timer: fast recovery (bc 1..4), then bc = 5, 6 with
	 * t = 0: min = 0 so additive for bc 5 and 6. */
	rsw_dcqcn_rp_sent(&rp, &p, 60000);
	assert_int_equal(rp.bc_stage, 6);
	/* rc: 75, 87.5, 93.75, 96.875 (fast), then rt 101 → capped 100, rc 98.4375, 99.21875 */
	assert_float_equal(rp.rt, 100 * M, 1);
	assert_float_equal(rp.rc, 99.21875 * M, 1);

	/* Hyper: both counters past F. Cut again, then push both to 6. */
	rsw_dcqcn_rp_cnp(&rp, &p, 100000); /* rt = 99.21875, rc = 99.21875·(1 − α/2) */
	assert_float_equal(rp.rt, 99.21875 * M, 1);
	assert_float_equal(rp.rc, 99.21875 * M * (1 - 1.0 / 2), 1); /* α was still 1 */
	p.rhai_bps = 0.01 * M;
	p.rai_bps = 0.001 * M;
	for (i = 0; i < 6; i++) {
		rsw_dcqcn_rp_tick(&rp, &p, 100000 + (uint64_t)(i + 1) * 1000);
	}
	assert_int_equal(rp.t_stage, 6);
	for (i = 0; i < 5; i++)
		rsw_dcqcn_rp_sent(&rp, &p, 10000);
	assert_int_equal(rp.bc_stage, 5);
	/* Now t = 6, bc = 5: hi 6 ≥ F, lo 5 not > F → additive. */
	rt = rp.rt;
	rsw_dcqcn_rp_sent(&rp, &p, 10000); /* bc = 6: lo 6 > 5 → hyper by (6 − 5)·R_HAI */
	assert_float_equal(rp.rt, rt + 0.01 * M, 1);

	/* Repeated CNPs never take the rate below the floor. */
	for (i = 0; i < 40; i++)
		rsw_dcqcn_rp_cnp(&rp, &p, 200000);
	assert_float_equal(rp.rc, 1 * M, 1);
	/* Timer events alone never reach hyper increase (bc stays 0): additive only. */
	for (i = 0; i < 10; i++)
		rsw_dcqcn_rp_tick(&rp, &p, 200000 + (uint64_t)(i + 1) * 1000);
	assert_int_equal(rp.t_stage, 10);
	assert_true(rp.rt < 1.01 * M);
	/* With a large R_AI the rate climbs back to line rate, and there the timers stop. */
	p.rai_bps = 10 * M;
	for (i = 0; i < 100 && rp.active; i++)
		rsw_dcqcn_rp_tick(&rp, &p, 211000 + (uint64_t)i * 1000);
	assert_int_equal(rp.active, 0);
	assert_float_equal(rp.rc, 100 * M, 1);
}

static void
test_alpha_decay(void **state)
{
	struct rsw_dcqcn_params p = params();
	struct rsw_dcqcn_rp rp;
	double a;

	(void)state;
	p.g = 0.5; /* easy numbers */
	rsw_dcqcn_rp_init(&rp, &p);
	rsw_dcqcn_rp_cnp(&rp, &p, 0);     /* α = 0.5·1 + 0.5 = 1 */
	rsw_dcqcn_rp_tick(&rp, &p, 3000); /* three α intervals: 1/8 */
	assert_float_equal(rp.alpha, 0.125, 1e-12);
	a = rp.rc;
	/* CNP with α = 1/8: rc ← rc·(1 − 1/16), α ← 1/16 + 1/2. */
	rsw_dcqcn_rp_cnp(&rp, &p, 3500);
	assert_float_equal(rp.rc, a * (1 - 0.0625), 1);
	assert_float_equal(rp.alpha, 0.5625, 1e-12);
	/* The α timer restarted at the CNP: nothing at 4000, one decay at 4500. */
	rsw_dcqcn_rp_tick(&rp, &p, 4000);
	assert_float_equal(rp.alpha, 0.5625, 1e-12);
	rsw_dcqcn_rp_tick(&rp, &p, 4500);
	assert_float_equal(rp.alpha, 0.28125, 1e-12);
}

static void
test_np_interval(void **state)
{
	struct rsw_dcqcn_params p = params();
	struct rsw_dcqcn_np np = {0};

	(void)state;
	/* The first CE at time 0 sends a CNP (time 0 is a valid time). */
	assert_int_equal(rsw_dcqcn_np_ce(&np, &p, 0), 1);
	assert_int_equal(rsw_dcqcn_np_ce(&np, &p, 10000), 0);
	assert_int_equal(rsw_dcqcn_np_ce(&np, &p, 49999), 0);
	assert_int_equal(rsw_dcqcn_np_ce(&np, &p, 50000), 1);
	assert_int_equal(rsw_dcqcn_np_ce(&np, &p, 60000), 0);
	assert_int_equal(rsw_dcqcn_np_ce(&np, &p, 200000), 1);
	assert_int_equal(np.ce_rx, 6);
	assert_int_equal(np.cnp_tx, 3);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_scale),
		cmocka_unit_test(test_cnp_cut_and_fast_recovery),
		cmocka_unit_test(test_hyper_increase_and_cap),
		cmocka_unit_test(test_alpha_decay),
		cmocka_unit_test(test_np_interval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

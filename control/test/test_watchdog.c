/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the PFC watchdog (control/watchdog/watchdog.c, rsw_ctl_pfcwd_poll): what is
 * not a storm first (a lossy TC, the watchdog off, an empty queue, a queue that drains,
 * a pause that ended), then a storm detected after exactly detect_ms, each action's effect on
 * the state the workers read (drop: storm_drop; forward: the pause ignored; alert: nothing
 * but the count), no restore while pause frames keep coming, and the restore after
 * restore_ms without one, counted by rsw_pfcwd_counts. The pause state is the dataplane's
 * (received XOFF: paused_until and last_pause in TSC ticks), set here as the PFC receiver
 * would set it.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include <rte_cycles.h>

#include "ctl_test.h"
#include "rsw_qos.h"
#include "rsw_watchdog.h"

#define TC_LL   3 /* the lossless TC */
#define DETECT  100
#define RESTORE 100
#define PORT    1

static const char yaml_fmt[] = "switch: { name: ut }\n"
			       "ports:\n"
			       "  - { name: p0, devargs: net_null0, ipv4: 10.0.1.254/24 }\n"
			       "  - { name: p1, devargs: net_null1, ipv4: 10.0.2.254/24 }\n"
			       "qos:\n"
			       "  lossless: [3]\n"
			       "  pfc_watchdog: { detect_ms: 100, restore_ms: 100, action: %s }\n";

static uint64_t now_ms = 100000; /* the watchdog's clock, always forward across tests */

static void
start(const char *action)
{
	char yaml[sizeof(yaml_fmt) + 16];

	snprintf(yaml, sizeof(yaml), yaml_fmt, action);
	ct_start(yaml);
}

static uint64_t
ms_tsc(uint64_t ms)
{
	return ms * rsw_qos.tsc_hz / 1000;
}

/* (PORT, tc) paused by a pause frame just received, for a minute; bytes queued. */
static void
pause_now(int tc)
{
	struct rsw_qos_port *q = &rsw_qos.port[PORT];
	uint64_t now = rte_rdtsc();

	q->paused_until[tc] = now + ms_tsc(60000);
	q->paused_max = q->paused_until[tc];
	q->last_pause[tc] = now;
	q->q_bytes[tc] = 4096;
}

/* The last pause frame for (PORT, tc) arrived ago_ms ago, and its pause has ended. */
static void
pause_ended(int tc, uint64_t ago_ms)
{
	struct rsw_qos_port *q = &rsw_qos.port[PORT];

	q->last_pause[tc] = rte_rdtsc() - ms_tsc(ago_ms);
	q->paused_until[tc] = 0;
}

static void
poll_at(uint64_t t)
{
	now_ms = t;
	rsw_ctl_pfcwd_poll(t);
}

/* Counts of (PORT, tc) since this test's baseline. */
static uint64_t base_storms, base_restores;

static void
counts(int tc, uint64_t *storms, uint64_t *restores)
{
	rsw_pfcwd_counts(PORT, (uint8_t)tc, storms, restores);
	*storms -= base_storms;
	*restores -= base_restores;
}

static void
expect_counts(int tc, uint64_t storms, uint64_t restores)
{
	uint64_t s, r;

	counts(tc, &s, &r);
	assert_int_equal(s, storms);
	assert_int_equal(r, restores);
}

/*
 * A clean (PORT, TC_LL): nothing paused or queued, the watchdog has seen it so (its state
 * lives across tests), and this test's count baseline.
 */
static void
settle(void)
{
	struct rsw_qos_port *q = &rsw_qos.port[PORT];
	int tc;

	for (tc = 0; tc < RSW_N_TC; tc++) {
		q->paused_until[tc] = 0;
		q->last_pause[tc] = 0;
		q->q_bytes[tc] = 0;
		q->storm_drop[tc] = 0;
		q->storm_ignore[tc] = 0;
	}
	q->paused_max = 0;
	poll_at(now_ms + 1000);
	rsw_pfcwd_counts(PORT, TC_LL, &base_storms, &base_restores);
}

static int
setup_drop(void **state)
{
	(void)state;
	start("drop");
	settle();
	return 0;
}

static int
setup_forward(void **state)
{
	(void)state;
	start("forward");
	settle();
	return 0;
}

static int
setup_alert(void **state)
{
	(void)state;
	start("alert");
	settle();
	return 0;
}

static int
setup_off(void **state)
{
	(void)state;
	start("off");
	settle();
	return 0;
}

/* Paused for ten times detect_ms, polled every 10 ms. */
static void
poll_paused_long(void)
{
	uint64_t t0 = now_ms, t;

	for (t = t0; t <= t0 + 10 * DETECT; t += 10)
		poll_at(t);
}

/* -- not a storm -- */

static void
test_lossy_tc_not_watched(void **state)
{
	(void)state;
	pause_now(0);
	poll_paused_long();
	expect_counts(0, 0, 0);
	expect_counts(TC_LL, 0, 0);
	assert_int_equal(rsw_qos.port[PORT].storm_drop[0], 0);
}

static void
test_off_not_watched(void **state)
{
	(void)state;
	pause_now(TC_LL);
	poll_paused_long();
	expect_counts(TC_LL, 0, 0);
	assert_int_equal(rsw_qos.port[PORT].storm_drop[TC_LL], 0);
	assert_int_equal(rsw_qos.port[PORT].storm_ignore[TC_LL], 0);
}

static void
test_empty_queue_no_storm(void **state)
{
	(void)state;
	pause_now(TC_LL);
	rsw_qos.port[PORT].q_bytes[TC_LL] = 0; /* paused, but nothing waits */
	poll_paused_long();
	expect_counts(TC_LL, 0, 0);
	assert_int_equal(rsw_qos.port[PORT].storm_drop[TC_LL], 0);
}

static void
test_progress_no_storm(void **state)
{
	uint64_t *deq = &rsw_stats[rte_lcore_id()]->qos.q[PORT][TC_LL][RSW_QC_dequeued_packets];
	uint64_t t0 = now_ms, t;

	(void)state;
	pause_now(TC_LL);
	/* Paused on and off, but the queue drains: some packet leaves between two looks. */
	for (t = t0; t <= t0 + 10 * DETECT; t += 10) {
		(*deq)++;
		poll_at(t);
	}
	expect_counts(TC_LL, 0, 0);
	assert_int_equal(rsw_qos.port[PORT].storm_drop[TC_LL], 0);
	/* Once it stops draining, detect_ms after the last packet left it is a storm. */
	t = now_ms;
	poll_at(t + 10);
	poll_at(t + DETECT - 1);
	expect_counts(TC_LL, 0, 0);
	poll_at(t + DETECT);
	expect_counts(TC_LL, 1, 0);
	assert_int_equal(rsw_qos.port[PORT].storm_drop[TC_LL], 1);
	pause_ended(TC_LL, 10 * RESTORE);
	poll_at(now_ms + 10);
	expect_counts(TC_LL, 1, 1);
}

static void
test_pause_ended_no_storm(void **state)
{
	uint64_t t = now_ms;

	(void)state;
	pause_now(TC_LL);
	poll_at(t);
	poll_at(t + DETECT / 2);
	/* The pause ends (XON) before detect_ms: the count starts over at the next pause. */
	rsw_qos.port[PORT].paused_until[TC_LL] = 0;
	poll_at(t + DETECT / 2 + 10);
	pause_now(TC_LL);
	poll_at(t + DETECT + 10);
	poll_at(t + DETECT + 20);
	expect_counts(TC_LL, 0, 0);
	poll_at(t + 2 * DETECT + 10 - 1);
	expect_counts(TC_LL, 0, 0);
	poll_at(t + 2 * DETECT + 10);
	expect_counts(TC_LL, 1, 0);
	pause_ended(TC_LL, 10 * RESTORE);
	poll_at(now_ms + 10);
	expect_counts(TC_LL, 1, 1);
}

/* -- storms, by action -- */

/* Pause (PORT, TC_LL) at t, storm n detected at t + DETECT (not a millisecond sooner). */
static void
storm(uint64_t n)
{
	uint64_t t = now_ms + 10;

	pause_now(TC_LL);
	poll_at(t);
	poll_at(t + DETECT - 1);
	expect_counts(TC_LL, n - 1, n - 1);
	poll_at(t + DETECT);
	expect_counts(TC_LL, n, n - 1);
}

/* Pause frames keep coming: no restore, no second storm; then they stop: restore n. */
static void
restore(uint64_t n)
{
	uint64_t t = now_ms, i;

	for (i = 1; i <= 5; i++) {
		pause_now(TC_LL);
		poll_at(t + i * RESTORE);
	}
	expect_counts(TC_LL, n, n - 1);
	/* Half of restore_ms since the last pause frame: not yet. */
	pause_ended(TC_LL, RESTORE / 2);
	poll_at(now_ms + 10);
	expect_counts(TC_LL, n, n - 1);
	pause_ended(TC_LL, RESTORE);
	poll_at(now_ms + 10);
	expect_counts(TC_LL, n, n);
}

static void
test_drop(void **state)
{
	struct rsw_qos_port *q = &rsw_qos.port[PORT];

	(void)state;
	storm(1);
	/* The queue is flushed and dropped (storm_drop: the workers drop, send no PFC for it). */
	assert_int_equal(q->storm_drop[TC_LL], 1);
	assert_int_equal(q->storm_ignore[TC_LL], 0);
	assert_int_equal(q->storm_drop[0], 0);
	restore(1);
	assert_int_equal(q->storm_drop[TC_LL], 0);
	/* The same TC storms again: counted again, dropped again. */
	storm(2);
	assert_int_equal(q->storm_drop[TC_LL], 1);
	restore(2);
	assert_int_equal(q->storm_drop[TC_LL], 0);
}

/*
 * A pause frame a worker stamps after the poll read its clock (last_pause a little ahead of
 * the poll's now): the storm goes on. Unsigned, the difference wrapped and restored at once,
 * in the middle of a storm (pkt-tests' test_pfc_watchdog_storm saw it now and then).
 */
static void
test_pause_newer_than_poll(void **state)
{
	struct rsw_qos_port *q = &rsw_qos.port[PORT];

	(void)state;
	storm(1);
	pause_now(TC_LL);
	q->last_pause[TC_LL] = rte_rdtsc() + ms_tsc(50);
	poll_at(now_ms + 10);
	expect_counts(TC_LL, 1, 0);
	assert_int_equal(q->storm_drop[TC_LL], 1);
	restore(1);
}

static void
test_forward(void **state)
{
	struct rsw_qos_port *q = &rsw_qos.port[PORT];

	(void)state;
	pause_now(TC_LL);
	assert_int_equal(rsw_paused_mask(q, rte_rdtsc()), 1u << TC_LL);
	storm(1);
	/* The pause is ignored: the workers see TC 3 as not paused; nothing is dropped. */
	assert_int_equal(q->storm_ignore[TC_LL], 1);
	assert_int_equal(q->storm_drop[TC_LL], 0);
	assert_int_equal(rsw_paused_mask(q, rte_rdtsc()), 0);
	/* Pause frames keep coming; none is honoured until the restore. */
	restore(1);
	assert_int_equal(q->storm_ignore[TC_LL], 0);
	/* The next pause frame is honoured again. */
	pause_now(TC_LL);
	assert_int_equal(rsw_paused_mask(q, rte_rdtsc()), 1u << TC_LL);
}

static void
test_alert(void **state)
{
	struct rsw_qos_port *q = &rsw_qos.port[PORT];

	(void)state;
	storm(1);
	/* Only counted: the pause is honoured, nothing dropped. */
	assert_int_equal(q->storm_drop[TC_LL], 0);
	assert_int_equal(q->storm_ignore[TC_LL], 0);
	assert_int_equal(rsw_paused_mask(q, rte_rdtsc()), 1u << TC_LL);
	restore(1);
	storm(2);
	restore(2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_lossy_tc_not_watched, setup_drop, ct_stop),
		cmocka_unit_test_setup_teardown(test_off_not_watched, setup_off, ct_stop),
		cmocka_unit_test_setup_teardown(test_empty_queue_no_storm, setup_drop, ct_stop),
		cmocka_unit_test_setup_teardown(test_progress_no_storm, setup_drop, ct_stop),
		cmocka_unit_test_setup_teardown(test_pause_ended_no_storm, setup_drop, ct_stop),
		cmocka_unit_test_setup_teardown(test_drop, setup_drop, ct_stop),
		cmocka_unit_test_setup_teardown(test_pause_newer_than_poll, setup_drop, ct_stop),
		cmocka_unit_test_setup_teardown(test_forward, setup_forward, ct_stop),
		cmocka_unit_test_setup_teardown(test_alert, setup_alert, ct_stop),
	};
	int ret;

	if (ct_eal_init("watchdog") != 0)
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	ct_eal_fini();
	return ret;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of injected link faults (dataplane/link/rsw_impair.h): bad configurations,
 * determinism with a seed, the loss rate over 100,000 frames, loss bursts, exactly one
 * bit flipped (and never in a frame somebody else holds), the delay line's order and
 * its overflow.
 */

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include "rsw_impair.h"
#include "test_common.h"

#define LEN 64

static struct rte_mempool *pool;
static struct rsw_impair im;

/* A frame whose first four bytes hold id, the rest a pattern. */
static struct rte_mbuf *
frame(uint32_t id)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p;
	int i;

	assert_non_null(m);
	p = (uint8_t *)rte_pktmbuf_append(m, LEN);
	memcpy(p, &id, 4);
	for (i = 4; i < LEN; i++)
		p[i] = (uint8_t)i;
	return m;
}

static uint32_t
id_of(struct rte_mbuf *m)
{
	uint32_t id;

	memcpy(&id, rte_pktmbuf_mtod(m, void *), 4);
	return id;
}

static void
cfg_init(struct rsw_impair_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->loss_burst = 1;
	c->seed = 1;
}

static void
test_bad_cfg(void **state)
{
	struct rsw_impair_cfg c;

	(void)state;
	assert_int_equal(rsw_impair_cfg_check(NULL), -EINVAL);
	cfg_init(&c);
	assert_int_equal(rsw_impair_cfg_check(&c), 0);
	c.loss = -0.1;
	assert_int_equal(rsw_impair_cfg_check(&c), -EINVAL);
	c.loss = 1.0000001;
	assert_int_equal(rsw_impair_cfg_check(&c), -EINVAL);
	c.loss = NAN;
	assert_int_equal(rsw_impair_init(&im, &c, 1000000, pool), -EINVAL);
	c.loss = 1.0;
	c.corrupt = 2;
	assert_int_equal(rsw_impair_cfg_check(&c), -EINVAL);
	c.corrupt = 0;
	c.delay_us = RSW_IMPAIR_DELAY_US_MAX + 1;
	assert_int_equal(rsw_impair_cfg_check(&c), -EINVAL);
	c.delay_us = 0;
	c.loss_burst = RSW_IMPAIR_BURST_MAX + 1;
	assert_int_equal(rsw_impair_cfg_check(&c), -EINVAL);
	rsw_impair_fini(NULL);
	assert_string_equal(rsw_impair_ctr_name(RSW_IMPAIR_impair_dropped), "impair_dropped");
	assert_null(rsw_impair_ctr_name(RSW_N_IMPAIR_CTRS));
	assert_true(rsw_impair_ctr_is_drop(RSW_IMPAIR_impair_dropped));
	assert_false(rsw_impair_ctr_is_drop(RSW_IMPAIR_impair_corrupted));
}

/* Run n frames (ids first..) through im in bursts of 32; survivors' ids into kept. */
static uint32_t
run_frames(uint32_t first, uint32_t n, uint8_t *kept)
{
	struct rte_mbuf *m[32];
	uint32_t done = 0, out = 0;

	while (done < n) {
		uint16_t k = (uint16_t)RTE_MIN(32u, n - done), o, i;

		for (i = 0; i < k; i++)
			m[i] = frame(first + done + i);
		o = rsw_impair_burst(&im, m, k, 0, m, 32);
		for (i = 0; i < o; i++) {
			if (kept != NULL)
				kept[id_of(m[i]) - first] = 1;
			out++;
		}
		rte_pktmbuf_free_bulk(m, o);
		done += k;
	}
	return out;
}

static void
test_determinism(void **state)
{
	static uint8_t k1[10000], k2[10000], k3[10000];
	struct rsw_impair_cfg c;

	(void)state;
	cfg_init(&c);
	c.loss = 0.1;
	c.seed = 42;
	assert_int_equal(rsw_impair_init(&im, &c, 1000000, pool), 0);
	run_frames(0, 10000, k1);
	assert_int_equal(rsw_impair_init(&im, &c, 1000000, pool), 0);
	run_frames(0, 10000, k2);
	assert_memory_equal(k1, k2, sizeof(k1));
	c.seed = 43;
	assert_int_equal(rsw_impair_init(&im, &c, 1000000, pool), 0);
	run_frames(0, 10000, k3);
	assert_memory_not_equal(k1, k3, sizeof(k1));
	/* Nothing configured: every frame goes, nothing counted. */
	cfg_init(&c);
	assert_int_equal(rsw_impair_init(&im, &c, 1000000, pool), 0);
	assert_int_equal(run_frames(0, 1000, NULL), 1000);
	assert_int_equal(im.ctr[RSW_IMPAIR_impair_dropped] + im.ctr[RSW_IMPAIR_impair_corrupted],
			 0);
}

static void
test_loss_rate(void **state)
{
	struct rsw_impair_cfg c;
	uint32_t out;

	(void)state;
	cfg_init(&c);
	c.loss = 0.01;
	c.seed = 7;
	assert_int_equal(rsw_impair_init(&im, &c, 1000000, pool), 0);
	out = run_frames(0, 100000, NULL);
	/* 1000 expected, standard deviation 31.5: five of them either side. */
	assert_in_range(im.ctr[RSW_IMPAIR_impair_dropped], 840, 1160);
	assert_int_equal(out + im.ctr[RSW_IMPAIR_impair_dropped], 100000);
	c.loss = 1.0;
	assert_int_equal(rsw_impair_init(&im, &c, 1000000, pool), 0);
	assert_int_equal(run_frames(0, 100, NULL), 0);
	assert_int_equal(im.ctr[RSW_IMPAIR_impair_dropped], 100);
}

static void
test_bursts(void **state)
{
	static uint8_t kept[100000];
	struct rsw_impair_cfg c;
	uint32_t i, run = 0, events = 0;

	(void)state;
	cfg_init(&c);
	c.loss = 0.002;
	c.loss_burst = 5;
	c.seed = 9;
	assert_int_equal(rsw_impair_init(&im, &c, 1000000, pool), 0);
	memset(kept, 0, sizeof(kept));
	run_frames(0, 100000, kept);
	/* Every run of lost frames is a whole number of bursts of 5 (back to back events). */
	for (i = 0; i <= 100000; i++) {
		if (i < 100000 && !kept[i]) {
			run++;
			continue;
		}
		if (run > 0) {
			if (i < 100000)
				assert_int_equal(run % 5, 0);
			events += run / 5;
		}
		run = 0;
	}
	assert_in_range(events, 120, 280); /* about 200 */
	assert_int_equal(im.ctr[RSW_IMPAIR_impair_dropped] % 5, 0);
}

static int
bits_differ(const uint8_t *a, const uint8_t *b, size_t n)
{
	int d = 0;
	size_t i;

	for (i = 0; i < n; i++)
		d += __builtin_popcount((unsigned int)(a[i] ^ b[i]));
	return d;
}

static void
test_corrupt(void **state)
{
	struct rsw_impair_cfg c;
	struct rte_mbuf *m[1], *shared;
	uint8_t ref[LEN];
	uint32_t i;

	(void)state;
	cfg_init(&c);
	c.corrupt = 1.0;
	assert_int_equal(rsw_impair_init(&im, &c, 1000000, pool), 0);
	for (i = 0; i < 1000; i++) {
		m[0] = frame(i);
		memcpy(ref, rte_pktmbuf_mtod(m[0], void *), LEN);
		assert_int_equal(rsw_impair_burst(&im, m, 1, 0, m, 1), 1);
		assert_int_equal(rte_pktmbuf_pkt_len(m[0]), LEN);
		assert_int_equal(bits_differ(ref, rte_pktmbuf_mtod(m[0], uint8_t *), LEN), 1);
		rte_pktmbuf_free(m[0]);
	}
	assert_int_equal(im.ctr[RSW_IMPAIR_impair_corrupted], 1000);
	/* A frame an LLR replay buffer holds: the copy is flipped, the original is not. */
	shared = frame(5);
	memcpy(ref, rte_pktmbuf_mtod(shared, void *), LEN);
	rte_mbuf_refcnt_update(shared, 1);
	m[0] = shared;
	assert_int_equal(rsw_impair_burst(&im, m, 1, 0, m, 1), 1);
	assert_ptr_not_equal(m[0], shared);
	assert_int_equal(rte_mbuf_refcnt_read(shared), 1);
	assert_memory_equal(ref, rte_pktmbuf_mtod(shared, void *), LEN);
	assert_int_equal(bits_differ(ref, rte_pktmbuf_mtod(m[0], uint8_t *), LEN), 1);
	rte_pktmbuf_free(m[0]);
	rte_pktmbuf_free(shared);
	/* Without a pool a shared frame cannot be copied: it is lost. */
	assert_int_equal(rsw_impair_init(&im, &c, 1000000, NULL), 0);
	shared = frame(6);
	rte_mbuf_refcnt_update(shared, 1);
	m[0] = shared;
	assert_int_equal(rsw_impair_burst(&im, m, 1, 0, m, 1), 0);
	assert_int_equal(im.ctr[RSW_IMPAIR_impair_dropped], 1);
	rte_pktmbuf_free(shared);
}

static void
test_delay(void **state)
{
	struct rsw_impair_cfg c;
	struct rte_mbuf *m[64], *out[64];
	uint32_t i, next = 0;
	uint16_t o;
	unsigned int avail = rte_mempool_avail_count(pool);

	(void)state;
	cfg_init(&c);
	c.delay_us = 10;
	/* The clock in ticks of 1 µs: the delay is 10 ticks. */
	assert_int_equal(rsw_impair_init(&im, &c, 1000000, pool), 0);
	for (i = 0; i < 8; i++)
		m[i] = frame(i);
	assert_int_equal(rsw_impair_burst(&im, m, 4, 100, out, 64), 0);
	assert_int_equal(rsw_impair_burst(&im, m + 4, 4, 105, out, 64), 0);
	assert_int_equal(im.ctr[RSW_IMPAIR_impair_delayed], 8);
	assert_int_equal(rsw_impair_burst(&im, NULL, 0, 109, out, 64), 0);
	o = rsw_impair_burst(&im, NULL, 0, 110, out, 2); /* the room in out limits */
	assert_int_equal(o, 2);
	for (i = 0; i < o; i++)
		assert_int_equal(id_of(out[i]), next++);
	rte_pktmbuf_free_bulk(out, o);
	o = rsw_impair_burst(&im, NULL, 0, 114, out, 64);
	assert_int_equal(o, 2);
	for (i = 0; i < o; i++)
		assert_int_equal(id_of(out[i]), next++);
	rte_pktmbuf_free_bulk(out, o);
	o = rsw_impair_burst(&im, NULL, 0, 200, out, 64);
	assert_int_equal(o, 4);
	for (i = 0; i < o; i++)
		assert_int_equal(id_of(out[i]), next++);
	rte_pktmbuf_free_bulk(out, o);
	assert_int_equal(im.ctr[RSW_IMPAIR_impair_delayed], 0);

	/* Overflow: the line holds RSW_IMPAIR_DELAY_MAX frames. */
	for (i = 0; i < RSW_IMPAIR_DELAY_MAX / 32 + 1; i++) {
		uint32_t k;

		for (k = 0; k < 32; k++)
			m[k] = frame(k);
		assert_int_equal(rsw_impair_burst(&im, m, 32, 300, out, 64), 0);
	}
	assert_int_equal(im.ctr[RSW_IMPAIR_impair_delay_overflow], 32);
	assert_int_equal(im.ctr[RSW_IMPAIR_impair_delayed], RSW_IMPAIR_DELAY_MAX);
	rsw_impair_fini(&im);
	assert_int_equal(im.ctr[RSW_IMPAIR_impair_dropped], RSW_IMPAIR_DELAY_MAX);
	assert_int_equal(rte_mempool_avail_count(pool), avail);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_cfg),   cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_loss_rate), cmocka_unit_test(test_bursts),
		cmocka_unit_test(test_corrupt),   cmocka_unit_test(test_delay),
	};
	int ret;

	if (ut_eal_init("impair") < 0)
		return 1;
	pool = rte_pktmbuf_pool_create("ut_impair", 8191, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (pool == NULL)
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return ret;
}

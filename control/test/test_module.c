/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the module registry (ctl.c, rsw_module.h) with modules of its own: the
 * registry keeps them by order (equal orders in registration order), init runs in that
 * order and fini in reverse, an init that fails finalises in reverse the modules already
 * initialised (and not itself), each poll runs when its period has passed, and what one
 * poll reports as work is seen by the later modules of the same turn.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* cmocka.h needs the headers above. */
#include <cmocka.h>

#include "rsw_module.h"

/* What the modules did, in order: "init:b fini:b poll:a ...". */
static char events[1024];
static const char *fail_init;  /* the module whose init fails, or NULL */
static unsigned int busy_seen; /* rsw_modules_busy() as module "e" saw it */
static unsigned int a_work;    /* what module a's poll reports */

static void
record(const char *what, const char *name)
{
	size_t n = strlen(events);

	snprintf(events + n, sizeof(events) - n, "%s%s:%s", n ? " " : "", what, name);
}

#define TEST_MODULE(x)                                                                             \
	static int x##_init(const struct rsw_config *cfg)                                          \
	{                                                                                          \
		record("init", #x);                                                                \
		return fail_init != NULL && strcmp(fail_init, #x) == 0 ? -ENOSPC : 0;              \
	}                                                                                          \
	static void x##_fini(void)                                                                 \
	{                                                                                          \
		record("fini", #x);                                                                \
	}

TEST_MODULE(a)
TEST_MODULE(b)
TEST_MODULE(c)
TEST_MODULE(d)

static unsigned int
a_poll(uint64_t now_ms)
{
	record("poll", "a");
	return a_work;
}

static unsigned int
b_poll(uint64_t now_ms)
{
	record("poll", "b");
	return 0;
}

static unsigned int
e_poll(uint64_t now_ms)
{
	record("poll", "e");
	busy_seen = rsw_modules_busy();
	return 0;
}

/* Registered out of order; c and d share an order (d registered after c). */
static struct rsw_module m_e = {.name = "e", .order = 50, .poll = e_poll};
static struct rsw_module m_c = {.name = "c", .order = 30, .init = c_init, .fini = c_fini};
static struct rsw_module m_a = {
	.name = "a", .order = 10, .init = a_init, .poll = a_poll, .fini = a_fini};
static struct rsw_module m_d = {.name = "d", .order = 30, .init = d_init, .fini = d_fini};
static struct rsw_module m_b = {
	.name = "b", .order = 20, .init = b_init, .poll = b_poll, .period_ms = 10, .fini = b_fini};

RSW_MODULE_REGISTER(m_e);
RSW_MODULE_REGISTER(m_c);
RSW_MODULE_REGISTER(m_a);
RSW_MODULE_REGISTER(m_d);
RSW_MODULE_REGISTER(m_b);

static int
reset(void **state)
{
	events[0] = '\0';
	fail_init = NULL;
	busy_seen = 0;
	a_work = 0;
	return 0;
}

static void
test_order(void **state)
{
	const struct rsw_module *m;
	char names[16] = "";

	/* Only this file's modules: nothing else of the library is linked in. */
	for (m = rsw_modules_first(); m != NULL; m = m->next)
		strncat(names, m->name, sizeof(names) - strlen(names) - 1);
	assert_string_equal(names, "abcde");
}

static void
test_init_fini(void **state)
{
	assert_int_equal(rsw_modules_init(NULL), 0);
	assert_string_equal(events, "init:a init:b init:c init:d");
	events[0] = '\0';
	rsw_modules_fini();
	assert_string_equal(events, "fini:d fini:c fini:b fini:a");
	/* A second fini finalises nothing. */
	events[0] = '\0';
	rsw_modules_fini();
	assert_string_equal(events, "");
}

static void
test_init_failure(void **state)
{
	fail_init = "c";
	assert_int_equal(rsw_modules_init(NULL), -ENOSPC);
	/* c failed: b and a are finalised, in that order; c and d are not. */
	assert_string_equal(events, "init:a init:b init:c fini:b fini:a");
	events[0] = '\0';
	rsw_modules_fini();
	assert_string_equal(events, "");

	/* The first module failing: nothing to finalise. */
	reset(state);
	fail_init = "a";
	assert_int_equal(rsw_modules_init(NULL), -ENOSPC);
	assert_string_equal(events, "init:a");

	/* The last one with an init: every other is finalised. */
	reset(state);
	fail_init = "d";
	assert_int_equal(rsw_modules_init(NULL), -ENOSPC);
	assert_string_equal(events, "init:a init:b init:c init:d fini:c fini:b fini:a");
}

static void
test_poll_periods(void **state)
{
	assert_int_equal(rsw_modules_init(NULL), 0);
	events[0] = '\0';
	/* b runs every 10 ms (measured from 0 at first), a and e every turn. */
	assert_int_equal(rsw_modules_poll(1000), 0);
	assert_string_equal(events, "poll:a poll:b poll:e");
	events[0] = '\0';
	rsw_modules_poll(1005);
	assert_string_equal(events, "poll:a poll:e");
	events[0] = '\0';
	rsw_modules_poll(1009);
	assert_string_equal(events, "poll:a poll:e");
	events[0] = '\0';
	rsw_modules_poll(1010);
	assert_string_equal(events, "poll:a poll:b poll:e");
	events[0] = '\0';
	rsw_modules_poll(1019);
	rsw_modules_poll(1025);
	assert_string_equal(events, "poll:a poll:e poll:a poll:b poll:e");
	rsw_modules_fini();
}

static void
test_poll_busy(void **state)
{
	/* Work done by a is seen by e later in the same turn, and returned. */
	a_work = 3;
	assert_int_equal(rsw_modules_poll(2000), 3);
	assert_int_equal(busy_seen, 3);
	assert_int_equal(rsw_modules_busy(), 3);
	/* A turn without work starts from 0 again. */
	a_work = 0;
	busy_seen = 99;
	assert_int_equal(rsw_modules_poll(2001), 0);
	assert_int_equal(busy_seen, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_order, reset),
		cmocka_unit_test_setup(test_init_fini, reset),
		cmocka_unit_test_setup(test_init_failure, reset),
		cmocka_unit_test_setup(test_poll_periods, reset),
		cmocka_unit_test_setup(test_poll_busy, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

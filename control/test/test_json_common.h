/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * JSON look-ups for the control tests that read a document the code built (topology, plan):
 * a dotted path ("bom.switches.leaf", "links.0.speed_bps"), failing the test with the path
 * named when a member is missing or of the wrong kind. Include after <cmocka.h>.
 */

#ifndef RSW_TEST_JSON_COMMON_H
#define RSW_TEST_JSON_COMMON_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline json_t *
jget(json_t *o, const char *path)
{
	char buf[128], *tok, *save = NULL;
	json_t *v = o;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok != NULL && v != NULL;
	     tok = strtok_r(NULL, ".", &save)) {
		if (json_is_array(v))
			v = json_array_get(v, strtoul(tok, NULL, 10));
		else
			v = json_object_get(v, tok);
	}
	if (v == NULL)
		print_error("no %s\n", path);
	assert_non_null(v);
	return v;
}

static inline long long
jint(json_t *o, const char *path)
{
	json_t *v = jget(o, path);

	if (!json_is_integer(v))
		print_error("%s is not an integer\n", path);
	assert_true(json_is_integer(v));
	return json_integer_value(v);
}

#endif /* RSW_TEST_JSON_COMMON_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `railctl trace show` for people: one block per traced frame, a heading line (seq, time,
 * worker, rx port:queue, length, summary), then one line per step with its fields, and the
 * end. --json prints the reply as the switch sent it.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "railctl_priv.h"

/* The fields of a step but its name, "key=value" separated by spaces. */
static void
print_step(json_t *s)
{
	const char *k;
	json_t *v;
	char *text;

	printf("    %-9s", json_string_value(json_object_get(s, "step")));
	json_object_foreach(s, k, v)
	{
		if (strcmp(k, "step") == 0)
			continue;
		text = railctl_value_text(v);
		printf(" %s=%s", k, text);
		free(text);
	}
	printf("\n");
}

static void
print_entry(json_t *e)
{
	json_int_t ts = json_integer_value(json_object_get(e, "ts_ns"));
	time_t sec = (time_t)(ts / 1000000000);
	const char *end = json_string_value(json_object_get(e, "end"));
	json_t *steps = json_object_get(e, "steps"), *s, *v;
	char when[32] = "?", *text;
	struct tm tm;
	size_t i;

	if (gmtime_r(&sec, &tm) != NULL)
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
	printf("#%" JSON_INTEGER_FORMAT "  %s.%09" JSON_INTEGER_FORMAT
	       "  worker %" JSON_INTEGER_FORMAT "  %s:%" JSON_INTEGER_FORMAT
	       "  %" JSON_INTEGER_FORMAT " B  %s\n",
	       json_integer_value(json_object_get(e, "seq")), when, ts % 1000000000,
	       json_integer_value(json_object_get(e, "worker")),
	       json_string_value(json_object_get(e, "rx_port")),
	       json_integer_value(json_object_get(e, "rx_queue")),
	       json_integer_value(json_object_get(e, "len")),
	       json_string_value(json_object_get(e, "summary")));
	json_array_foreach(steps, i, s) print_step(s);
	printf("    %-9s %s", "end", end != NULL ? end : "?");
	v = json_object_get(e, "tx_port");
	if (json_is_string(v)) {
		printf(" on %s", json_string_value(v));
		v = json_object_get(e, "tx_queue");
		if (json_is_integer(v))
			printf(" tx queue %" JSON_INTEGER_FORMAT, json_integer_value(v));
	}
	v = json_object_get(e, "reason");
	if (json_is_string(v))
		printf(" (%s)", json_string_value(v));
	v = json_object_get(e, "end_ns");
	if (json_is_integer(v)) {
		text = railctl_value_text(v);
		printf(" after %s ns", text);
		free(text);
	}
	printf("\n");
}

bool
railctl_print_trace(json_t *reply)
{
	json_t *arr = json_object_get(reply, "trace"), *e;
	size_t i;

	if (json_object_size(reply) != 1 || !json_is_array(arr))
		return false;
	if (json_array_size(arr) == 0)
		printf("no traced frames\n");
	json_array_foreach(arr, i, e)
	{
		if (i > 0)
			printf("\n");
		print_entry(e);
	}
	return true;
}

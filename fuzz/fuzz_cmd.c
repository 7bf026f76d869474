/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * libFuzzer target: the control-socket command parser (control/cmd.c) on
 * arbitrary request lines. Commands with the words and argument bounds of the
 * real ones (docs/cli.md) are registered in the real registry with a
 * handler that echoes its arguments, so that every line reaching a handler is
 * checked to be valid UTF-8 text (a reply must always encode as JSON), and
 * every reply is serialised. `lookup` and `trace start` run their real argument
 * parsers (rsw_lookup_parse, rsw_trace_parse_start, which railctl runs too) on
 * what reaches them. Bad input must
 * give an error object, never a crash, a leak or NULL.
 */

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rsw_cmd.h"
#include "rsw_lookup.h"
#include "rsw_trace_args.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Echo the arguments; argv must be NUL-terminated UTF-8 (json_string refuses anything else). */
static json_t *
echo(int argc, char **argv, void *ctx)
{
	json_t *args = json_array();
	int i;

	if (args == NULL)
		return NULL;
	for (i = 0; i < argc; i++) {
		json_t *s = json_string(argv[i]);

		if (s == NULL)
			abort(); /* a handler got bytes that are not text */
		json_array_append_new(args, s);
	}
	if (argv[argc] != NULL)
		abort();
	return json_pack("{s:s, s:o}", "cmd", (const char *)ctx, "args", args);
}

/* `lookup`: the real parser, then the echo. */
static json_t *
lookup(int argc, char **argv, void *ctx)
{
	struct rsw_lookup_req q;
	char err[160];

	if (rsw_lookup_parse(argc, argv, &q, err, sizeof(err)) < 0)
		return rsw_cmd_error("%s; usage: lookup %s", err, RSW_LOOKUP_USAGE);
	return echo(argc, argv, ctx);
}

/* `trace start`: the real parser, then the echo. */
static json_t *
trace_start(int argc, char **argv, void *ctx)
{
	struct rsw_trace_req q;
	char err[128];

	if (rsw_trace_parse_start(argc, argv, &q, err, sizeof(err)) < 0)
		return rsw_cmd_error("trace start: %s; usage: trace %s", err, RSW_TRACE_USAGE);
	return echo(argc, argv, ctx);
}

static const struct {
	const char *words;
	int min, max;
	const char *usage;
} cmds[] = {
	{"show ports", 0, 1, "[PORT]"}, {"show drops", 0, 0, ""},
	{"show routes", 0, 0, ""},      {"show neighbors", 0, 0, ""},
	{"show lb", 0, 0, ""},          {"show queues", 0, 1, "[PORT]"},
	{"show pfc", 0, 1, "[PORT]"},   {"show buffer", 0, 1, "[PORT]"},
	{"show config", 0, 0, ""},      {"clear counters", 0, 0, ""},
	{"show topology", 0, 0, ""},    {"port", 2, 2, "NAME down|up"},
	{"reload", 0, 1, "[FILE]"},     {"fuzz many", 0, -1, "[ARG...]"},
	{"describe", 0, 0, ""},         {"show workers", 0, 0, ""},
	{"trace stop", 0, 0, ""},       {"trace clear", 0, 0, ""},
	{"trace show", 0, 0, ""},
};

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	size_t i;

	(void)argc;
	(void)argv;
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (rsw_cmd_register(cmds[i].words, cmds[i].min, cmds[i].max, cmds[i].usage, "fuzz",
				     echo, (void *)cmds[i].words) != 0)
			abort();
	if (rsw_cmd_register("lookup", 1, 15, RSW_LOOKUP_USAGE, "fuzz", lookup, "lookup") != 0)
		abort();
	if (rsw_cmd_register("trace start", 0, 4, "[--port PORT] [--count N]", "fuzz", trace_start,
			     "trace start") != 0)
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *reply = rsw_cmd_exec((const char *)data, size);
	char *s;

	if (reply == NULL || !json_is_object(reply))
		abort();
	/* The socket sends the reply as one line: it must serialise. */
	s = json_dumps(reply, JSON_COMPACT);
	if (s == NULL)
		abort();
	free(s);
	json_decref(reply);
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/* The words of `trace` (rsw_trace_args.h). */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rsw_trace_args.h"

int
rsw_trace_parse_start(int argc, char **argv, struct rsw_trace_req *q, char *err, size_t errlen)
{
	int i;

	q->port = NULL;
	q->count = RSW_TRACE_COUNT_DEFAULT;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (i + 1 >= argc && (strcmp(a, "--port") == 0 || strcmp(a, "--count") == 0)) {
			snprintf(err, errlen, "%s needs a value", a);
			return -EINVAL;
		}
		if (strcmp(a, "--port") == 0) {
			q->port = argv[++i];
		} else if (strcmp(a, "--count") == 0) {
			const char *v = argv[++i];
			char *end;
			unsigned long n;

			errno = 0;
			n = v[0] >= '0' && v[0] <= '9' ? strtoul(v, &end, 10) : 0;
			if (n == 0 || errno != 0 || *end != '\0' || n > RSW_TRACE_COUNT_MAX) {
				snprintf(err, errlen, "--count '%.32s': a number from 1 to %d", v,
					 RSW_TRACE_COUNT_MAX);
				return -EINVAL;
			}
			q->count = (unsigned int)n;
		} else {
			snprintf(err, errlen, "unknown argument '%.32s'", a);
			return -EINVAL;
		}
	}
	return 0;
}

int
rsw_trace_check(int argc, char **argv, char *err, size_t errlen)
{
	struct rsw_trace_req q;

	if (argc == 0) {
		snprintf(err, errlen, "missing start, stop, clear or show");
		return -EINVAL;
	}
	if (strcmp(argv[0], "start") == 0)
		return rsw_trace_parse_start(argc - 1, argv + 1, &q, err, errlen);
	if (strcmp(argv[0], "stop") != 0 && strcmp(argv[0], "clear") != 0 &&
	    strcmp(argv[0], "show") != 0) {
		snprintf(err, errlen, "unknown word '%.32s'", argv[0]);
		return -EINVAL;
	}
	if (argc > 1) {
		snprintf(err, errlen, "'%s' takes no argument", argv[0]);
		return -EINVAL;
	}
	return 0;
}

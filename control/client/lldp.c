/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * railctl plan FILE --check-lldp DIR: the cabling check. DIR holds one file per switch,
 * SWITCH.json, what `lldpcli -f json0 show neighbors` (or `-f json`) printed on that
 * switch. Every cable end of the plan is compared with the LLDP neighbour its port hears:
 * the neighbour's system name must be the plan's peer switch and its port ID (or port
 * description) the plan's peer port. docs/routing.md, "LLDP and the cabling check".
 *
 * A fabric link end is ok, miscabled (another switch or port answers), missing (nothing
 * heard) or unchecked (no file for the switch); a server link end whose server speaks no
 * LLDP is "silent", which is not a fault (lab hosts run no lldpd); a neighbour heard on a
 * port the plan has no cable for is unexpected. No switch or DPDK is needed.
 */

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "railctl_lldp.h"

/* A scalar of lldpcli's JSON: "x", {"value": "x"}, [{"value": "x"}] (json0), or "". */
static const char *
lv(json_t *v)
{
	if (json_is_array(v))
		v = json_array_get(v, 0);
	if (json_is_object(v))
		v = json_object_get(v, "value");
	return json_is_string(v) ? json_string_value(v) : "";
}

/* The single value of a one-key object ({"spine-0": {...}}) and its key, or NULL. */
static json_t *
only_member(json_t *o, const char **key)
{
	const char *k;
	json_t *v;

	if (!json_is_object(o) || json_object_size(o) != 1)
		return NULL;
	json_object_foreach(o, k, v)
	{
		*key = k;
		return v;
	}
	return NULL;
}

/* Append one neighbour {"port", "switch", "peer_port", "peer_descr"} of interface if. */
static void
add_neighbour(json_t *out, const char *ifname, json_t *n)
{
	json_t *ch = json_object_get(n, "chassis"), *port = json_object_get(n, "port"), *c;
	const char *name = "", *key = NULL;

	if (json_is_array(ch)) {
		/* json0: "chassis": [{"id": [...], "name": [{"value": "spine-0"}], ...}] */
		name = lv(json_object_get(json_array_get(ch, 0), "name"));
	} else if ((c = only_member(ch, &key)) != NULL && json_object_get(c, "id") != NULL) {
		/* json: "chassis": {"spine-0": {"id": {...}, ...}} */
		name = key;
	} else if (json_is_object(ch)) {
		/* json, a chassis without a name: "chassis": {"id": {...}} */
		name = lv(json_object_get(ch, "name"));
	}
	if (json_is_array(port))
		port = json_array_get(port, 0);
	json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:s}", "port", ifname, "switch", name,
					     "peer_port", lv(json_object_get(port, "id")),
					     "peer_descr", lv(json_object_get(port, "descr"))));
}

json_t *
railctl_lldp_neighbours(json_t *doc)
{
	json_t *out = json_array(), *lldp = json_object_get(doc, "lldp"), *ifs, *e, *v;
	const char *name;
	size_t i;

	if (json_is_array(lldp))
		lldp = json_array_get(lldp, 0);
	ifs = json_object_get(lldp, "interface");
	if (json_is_object(ifs)) {
		/* json with one interface: "interface": {"up0": {...}} */
		json_object_foreach(ifs, name, v) add_neighbour(out, name, v);
		return out;
	}
	json_array_foreach(ifs, i, e)
	{
		if (json_is_string(json_object_get(e, "name"))) {
			/* json0: [{"name": "up0", "chassis": ...}] */
			add_neighbour(out, json_string_value(json_object_get(e, "name")), e);
		} else if ((v = only_member(e, &name)) != NULL) {
			/* json with several: [{"up0": {...}}, {"up1": {...}}] */
			add_neighbour(out, name, v);
		}
	}
	return out;
}

/* Load DIR/SWITCH.json: its neighbours, or NULL when absent or unreadable (why in err). */
static json_t *
load_switch(const char *dir, const char *sw, char *err, size_t errlen)
{
	char path[4096];
	json_error_t je;
	json_t *doc, *n;

	snprintf(path, sizeof(path), "%s/%s.json", dir, sw);
	doc = json_load_file(path, 0, &je);
	if (doc == NULL) {
		snprintf(err, errlen, "%.3900s: %.150s", path, je.text);
		return NULL;
	}
	n = railctl_lldp_neighbours(doc);
	json_decref(doc);
	return n;
}

static bool
heard_as(json_t *nb, const char *sw, const char *port)
{
	const char *s = json_string_value(json_object_get(nb, "switch"));
	const char *p = json_string_value(json_object_get(nb, "peer_port"));
	const char *d = json_string_value(json_object_get(nb, "peer_descr"));

	return strcmp(s, sw) == 0 && (strcmp(p, port) == 0 || strcmp(d, port) == 0);
}

/* The neighbours heard on port of one switch's list, as "switch:port" joined by ",". */
static char *
heard_text(json_t *nbs, const char *port, int *count)
{
	size_t i, len = 1;
	json_t *nb;
	char *s;

	*count = 0;
	json_array_foreach(nbs, i, nb)
	{
		if (strcmp(json_string_value(json_object_get(nb, "port")), port) == 0)
			len += strlen(json_string_value(json_object_get(nb, "switch"))) +
			       strlen(json_string_value(json_object_get(nb, "peer_port"))) + 3;
	}
	s = calloc(1, len);
	if (s == NULL)
		return NULL;
	json_array_foreach(nbs, i, nb)
	{
		if (strcmp(json_string_value(json_object_get(nb, "port")), port) != 0)
			continue;
		if (*count > 0)
			strcat(s, ",");
		strcat(s, json_string_value(json_object_get(nb, "switch")));
		strcat(s, ":");
		strcat(s, json_string_value(json_object_get(nb, "peer_port")));
		(*count)++;
	}
	return s;
}

/* One cable end: (sw, port) should hear (peer, peer_port). */
static json_t *
check_end(json_t *nbs, const char *load_err, const char *sw, const char *port, const char *peer,
	  const char *peer_port, bool server)
{
	const char *status;
	char *heard = NULL;
	size_t i;
	json_t *nb, *o;
	int n = 0;
	bool match = false;

	if (nbs == NULL) {
		status = "unchecked";
	} else {
		heard = heard_text(nbs, port, &n);
		json_array_foreach(nbs, i, nb)
		{
			if (strcmp(json_string_value(json_object_get(nb, "port")), port) == 0 &&
			    heard_as(nb, peer, peer_port))
				match = true;
		}
		if (n == 0)
			status = server ? "silent" : "missing";
		else if (match && n == 1)
			status = "ok";
		else
			status = "miscabled";
	}
	o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "switch", sw, "port", port,
		      "plan_switch", peer, "plan_port", peer_port, "status", status, "heard",
		      heard != NULL ? heard : "", "kind", server ? "server" : "fabric");
	if (nbs == NULL && o != NULL)
		json_object_set_new(o, "error", json_string(load_err));
	free(heard);
	return o;
}

/* Whether (sw, port) is a cable end of the plan. */
static bool
planned(json_t *plan, const char *sw, const char *port)
{
	json_t *links = json_object_get(plan, "links"), *l;
	size_t i;

	json_array_foreach(links, i, l)
	{
		const char *a = json_string_value(json_object_get(l, "a"));
		const char *ap = json_string_value(json_object_get(l, "a_port"));
		const char *b = json_string_value(json_object_get(l, "b"));
		const char *bp = json_string_value(json_object_get(l, "b_port"));

		if ((strcmp(a, sw) == 0 && strcmp(ap, port) == 0) ||
		    (strcmp(b, sw) == 0 && strcmp(bp, port) == 0))
			return true;
	}
	return false;
}

json_t *
railctl_lldp_check(json_t *plan, const char *dir)
{
	json_t *sws = json_object_get(plan, "switches"), *links = json_object_get(plan, "links");
	json_t *seen = json_object(), *errs = json_object(), *ends = json_array(), *sw, *l, *nbs;
	json_t *nb, *res;
	const char *name;
	size_t i, j;
	int counts[6] = {0}; /* ok miscabled missing unchecked silent unexpected */
	static const char *const names[6] = {"ok",        "miscabled", "missing",
					     "unchecked", "silent",    "unexpected"};
	char err[4200];

	json_array_foreach(sws, i, sw)
	{
		name = json_string_value(json_object_get(sw, "name"));
		nbs = load_switch(dir, name, err, sizeof(err));
		if (nbs != NULL)
			json_object_set_new(seen, name, nbs);
		else
			json_object_set_new(errs, name, json_string(err));
	}
	json_array_foreach(links, i, l)
	{
		const char *a = json_string_value(json_object_get(l, "a"));
		const char *ap = json_string_value(json_object_get(l, "a_port"));
		const char *b = json_string_value(json_object_get(l, "b"));
		const char *bp = json_string_value(json_object_get(l, "b_port"));
		bool server = strcmp(json_string_value(json_object_get(l, "kind")), "server") == 0;

		json_array_append_new(ends, check_end(json_object_get(seen, a),
						      json_string_value(json_object_get(errs, a)),
						      a, ap, b, bp, server));
		if (!server)
			json_array_append_new(ends,
					      check_end(json_object_get(seen, b),
							json_string_value(json_object_get(errs, b)),
							b, bp, a, ap, false));
	}
	/* Neighbours on ports the plan has no cable for. */
	json_object_foreach(seen, name, nbs)
	{
		json_array_foreach(nbs, j, nb)
		{
			const char *port = json_string_value(json_object_get(nb, "port"));
			char heard[512];

			if (planned(plan, name, port))
				continue;
			snprintf(heard, sizeof(heard), "%s:%s",
				 json_string_value(json_object_get(nb, "switch")),
				 json_string_value(json_object_get(nb, "peer_port")));
			json_array_append_new(ends,
					      json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}",
							"switch", name, "port", port, "plan_switch",
							"", "plan_port", "", "status", "unexpected",
							"heard", heard, "kind", "none"));
		}
	}
	json_array_foreach(ends, i, l)
	{
		const char *st = json_string_value(json_object_get(l, "status"));

		for (j = 0; j < 6; j++)
			if (strcmp(st, names[j]) == 0)
				counts[j]++;
	}
	res = json_pack("{s:o, s:i, s:i, s:i, s:i, s:i, s:i, s:b}", "ends", ends, "ok", counts[0],
			"miscabled", counts[1], "missing", counts[2], "unchecked", counts[3],
			"silent", counts[4], "unexpected", counts[5], "passed",
			counts[1] + counts[2] + counts[3] + counts[5] == 0);
	json_decref(seen);
	json_decref(errs);
	return res;
}

void
railctl_lldp_print(json_t *res, const char *dir)
{
	json_t *ends = json_object_get(res, "ends"), *e;
	size_t i;

	printf("cabling check: the plan's cable ends against the LLDP neighbours in %s\n", dir);
	json_array_foreach(ends, i, e)
	{
		const char *st = json_string_value(json_object_get(e, "status"));
		const char *sw = json_string_value(json_object_get(e, "switch"));
		const char *port = json_string_value(json_object_get(e, "port"));
		const char *ps = json_string_value(json_object_get(e, "plan_switch"));
		const char *pp = json_string_value(json_object_get(e, "plan_port"));
		const char *heard = json_string_value(json_object_get(e, "heard"));
		char end[256];

		snprintf(end, sizeof(end), "%s:%s", sw, port);
		if (strcmp(st, "ok") == 0)
			printf("  ok          %-22s hears %s:%s\n", end, ps, pp);
		else if (strcmp(st, "miscabled") == 0)
			printf("  MISCABLED   %-22s hears %s, the plan says %s:%s\n", end, heard,
			       ps, pp);
		else if (strcmp(st, "missing") == 0)
			printf("  MISSING     %-22s hears nothing, the plan says %s:%s\n", end, ps,
			       pp);
		else if (strcmp(st, "unchecked") == 0)
			printf("  UNCHECKED   %-22s no LLDP data (%s)\n", end,
			       json_string_value(json_object_get(e, "error")));
		else if (strcmp(st, "silent") == 0)
			printf("  silent      %-22s hears nothing (%s:%s speaks no LLDP?)\n", end,
			       ps, pp);
		else
			printf("  UNEXPECTED  %-22s hears %s on a port the plan has no cable for\n",
			       end, heard);
	}
	printf("%s: %" JSON_INTEGER_FORMAT " ok, %" JSON_INTEGER_FORMAT
	       " miscabled, %" JSON_INTEGER_FORMAT " missing, %" JSON_INTEGER_FORMAT
	       " unchecked, %" JSON_INTEGER_FORMAT " unexpected\n",
	       json_is_true(json_object_get(res, "passed")) ? "cabling as planned"
							    : "cabling differs from the plan",
	       json_integer_value(json_object_get(res, "ok")),
	       json_integer_value(json_object_get(res, "miscabled")),
	       json_integer_value(json_object_get(res, "missing")),
	       json_integer_value(json_object_get(res, "unchecked")),
	       json_integer_value(json_object_get(res, "unexpected")));
}

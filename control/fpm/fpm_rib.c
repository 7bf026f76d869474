/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The RIB of routes zebra sent over FPM: one route per prefix (zebra sends its selected
 * route), with its next hops as zebra gave them (inline, or resolved from next-hop objects
 * at each change), its source and distance from rtm_protocol, and the session that last
 * sent it, so that a reconnect's replay can drop what was not sent again. A dense array
 * (what the table builder walks) indexed by a prefix hash; a next-hop object table by id.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpm_priv.h"

struct fpm_entry {
	struct rsw_ctl_route route; /* first: the builder's view */
	uint64_t session;           /* the session that last sent it */
	uint32_t nh_id;             /* next-hop object, 0 = inline next hops */
	uint32_t next;              /* hash chain: entry index + 1, 0 = end */
};

struct nhobj_entry {
	struct rsw_fpm_nhobj o;
	uint64_t session;
	struct nhobj_entry *next;
};

#define NH_BUCKETS 4096

struct fpm_rib {
	struct fpm_entry *e; /* [n], capacity cap */
	uint32_t n, cap, max;
	uint32_t *bucket; /* [n_bucket]: entry index + 1 */
	uint32_t n_bucket;
	struct nhobj_entry *nb[NH_BUCKETS];
	uint32_t n_nhobj;
};

static int
fail(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/* Source names of protocols outside rsw_fpm_source's list, kept for the routes' lifetime. */
static char proto_names[256][16];

static const char *
source_name(uint8_t protocol, uint8_t *distance)
{
	return rsw_fpm_source(protocol, distance, proto_names[protocol], sizeof(proto_names[0]));
}

static bool
prefix_eq(const struct rsw_prefix *a, const struct rsw_prefix *b)
{
	size_t n = a->ip.family == RSW_AF_INET ? 4 : 16;

	return a->len == b->len && a->ip.family == b->ip.family &&
	       memcmp(a->ip.addr, b->ip.addr, n) == 0;
}

static uint32_t
prefix_hash(const struct rsw_prefix *p)
{
	uint32_t h = 2166136261u;
	size_t i, n = p->ip.family == RSW_AF_INET ? 4 : 16;

	for (i = 0; i < n; i++)
		h = (h ^ p->ip.addr[i]) * 16777619u;
	return (h ^ p->len ^ (uint32_t)p->ip.family << 8) * 16777619u;
}

struct fpm_rib *
fpm_rib_new(uint32_t max_routes)
{
	struct fpm_rib *rib = calloc(1, sizeof(*rib));

	if (rib == NULL)
		return NULL;
	rib->max = max_routes;
	rib->n_bucket = 1;
	while (rib->n_bucket < max_routes)
		rib->n_bucket <<= 1;
	rib->bucket = calloc(rib->n_bucket, sizeof(*rib->bucket));
	if (rib->bucket == NULL) {
		free(rib);
		return NULL;
	}
	return rib;
}

static void
nhobj_clear(struct fpm_rib *rib)
{
	struct nhobj_entry *o, *next;
	uint32_t b;

	for (b = 0; b < NH_BUCKETS; b++) {
		for (o = rib->nb[b]; o != NULL; o = next) {
			next = o->next;
			free(o);
		}
		rib->nb[b] = NULL;
	}
	rib->n_nhobj = 0;
}

void
fpm_rib_clear(struct fpm_rib *rib)
{
	if (rib == NULL)
		return;
	rib->n = 0;
	memset(rib->bucket, 0, rib->n_bucket * sizeof(*rib->bucket));
	nhobj_clear(rib);
}

void
fpm_rib_free(struct fpm_rib *rib)
{
	if (rib == NULL)
		return;
	nhobj_clear(rib);
	free(rib->e);
	free(rib->bucket);
	free(rib);
}

uint32_t
fpm_rib_count(const struct fpm_rib *rib)
{
	return rib != NULL ? rib->n : 0;
}

struct rsw_ctl_route *
fpm_rib_get(struct fpm_rib *rib, uint32_t i)
{
	return rib != NULL && i < rib->n ? &rib->e[i].route : NULL;
}

/* The index of p's entry, or -1; *pp receives the link that holds (or would hold) it. */
static int64_t
lookup(struct fpm_rib *rib, const struct rsw_prefix *p, uint32_t **pp)
{
	uint32_t *link = &rib->bucket[prefix_hash(p) & (rib->n_bucket - 1)];

	while (*link != 0) {
		if (prefix_eq(&rib->e[*link - 1].route.r.prefix, p))
			break;
		link = &rib->e[*link - 1].next;
	}
	if (pp != NULL)
		*pp = link;
	return *link != 0 ? (int64_t)*link - 1 : -1;
}

struct rsw_ctl_route *
fpm_rib_find(struct fpm_rib *rib, const struct rsw_prefix *p)
{
	int64_t i;

	if (rib == NULL)
		return NULL;
	i = lookup(rib, p, NULL);
	return i >= 0 ? &rib->e[i].route : NULL;
}

/* Delete entry i: unlink it, move the last entry into its place. */
static void
delete_at(struct fpm_rib *rib, uint32_t i)
{
	uint32_t *link, last = rib->n - 1;

	lookup(rib, &rib->e[i].route.r.prefix, &link);
	*link = rib->e[i].next;
	if (i != last) {
		lookup(rib, &rib->e[last].route.r.prefix, &link);
		*link = i + 1;
		rib->e[i] = rib->e[last];
	}
	rib->n--;
}

static struct nhobj_entry *
nhobj_find(struct fpm_rib *rib, uint32_t id, struct nhobj_entry ***pp)
{
	struct nhobj_entry **link = &rib->nb[id & (NH_BUCKETS - 1)];

	while (*link != NULL && (*link)->o.id != id)
		link = &(*link)->next;
	if (pp != NULL)
		*pp = link;
	return *link;
}

/*
 * Add next hop (gw, weight) over interface oif (0: none) to r, unless it has no gateway or r
 * is full. The tables map oif to a port through the kernel interfaces (BGP unnumbered).
 */
static void
add_nh(struct rsw_cfg_route *r, const struct rsw_ip *gw, uint32_t weight, uint32_t oif)
{
	if (gw->family == 0 || r->n_nexthops == RSW_MAX_NEXTHOPS)
		return;
	r->oif[r->n_nexthops] = oif;
	r->nexthops[r->n_nexthops] = *gw;
	r->weights[r->n_nexthops++] = weight > 0 && weight <= 1000 ? weight : 1;
}

/* The next hops of next-hop object id into r (none when the object is unknown). */
static void
resolve_obj(struct fpm_rib *rib, uint32_t id, struct rsw_cfg_route *r)
{
	struct nhobj_entry *o = nhobj_find(rib, id, NULL), *m;
	uint16_t i;

	r->n_nexthops = 0;
	if (o == NULL || o->o.blackhole)
		return;
	if (o->o.n_group == 0) {
		add_nh(r, &o->o.gw, 1, o->o.oif);
		return;
	}
	for (i = 0; i < o->o.n_group; i++) {
		m = nhobj_find(rib, o->o.group[i].id, NULL);
		if (m != NULL && !m->o.blackhole && m->o.n_group == 0)
			add_nh(r, &m->o.gw, o->o.group[i].weight, m->o.oif);
	}
}

/* Routes over next-hop objects: their next hops again, after an object changed. */
static void
resolve_all(struct fpm_rib *rib)
{
	uint32_t i;

	for (i = 0; i < rib->n; i++)
		if (rib->e[i].nh_id != 0)
			resolve_obj(rib, rib->e[i].nh_id, &rib->e[i].route.r);
}

static int
route_del(struct fpm_rib *rib, const struct rsw_prefix *p)
{
	int64_t i = lookup(rib, p, NULL);

	if (i < 0)
		return FPM_APPLY_NONE;
	delete_at(rib, (uint32_t)i);
	return FPM_APPLY_DELETED;
}

static int
route_add(struct fpm_rib *rib, const struct rsw_fpm_route *fr, uint64_t session, char *err,
	  size_t errlen)
{
	char buf[64];
	struct fpm_entry *e;
	uint32_t *link;
	int64_t i;
	uint16_t k;

	if (fr->table != RSW_FPM_MAIN_TABLE)
		return fail(err, errlen, -ENOTSUP,
			    "route %s in table %u: only the main table (254)",
			    rsw_prefix_str(&fr->prefix, buf, sizeof(buf)), fr->table);
	if (fr->type != RSW_RTN_UNICAST || (fr->n_nh == 0 && fr->nh_id == 0)) {
		route_del(rib, &fr->prefix);
		if (fr->type != RSW_RTN_UNICAST)
			return fail(err, errlen, -ENOTSUP,
				    "route %s of type %u: only unicast routes are supported",
				    rsw_prefix_str(&fr->prefix, buf, sizeof(buf)), fr->type);
		return fail(err, errlen, -EINVAL, "route %s without a next hop",
			    rsw_prefix_str(&fr->prefix, buf, sizeof(buf)));
	}
	i = lookup(rib, &fr->prefix, &link);
	if (i < 0) {
		if (rib->n == rib->max)
			return fail(err, errlen, -ENOSPC,
				    "route %s: the FPM RIB is full (%u routes)",
				    rsw_prefix_str(&fr->prefix, buf, sizeof(buf)), rib->max);
		if (rib->n == rib->cap) {
			uint32_t cap = rib->cap ? 2 * rib->cap : 1024;
			struct fpm_entry *ne;

			cap = cap < rib->max ? cap : rib->max;
			ne = realloc(rib->e, (size_t)cap * sizeof(*ne));
			if (ne == NULL)
				return fail(err, errlen, -ENOMEM, "route %s: out of memory",
					    rsw_prefix_str(&fr->prefix, buf, sizeof(buf)));
			rib->e = ne;
			rib->cap = cap;
		}
		i = rib->n++;
		memset(&rib->e[i], 0, sizeof(rib->e[i]));
		*link = (uint32_t)i + 1;
	}
	e = &rib->e[i];
	e->session = session;
	e->nh_id = fr->nh_id;
	e->route.r.prefix = fr->prefix;
	e->route.r.lb = RSW_LB_UNSET;
	e->route.source = source_name(fr->protocol, &e->route.distance);
	e->route.r.n_nexthops = 0;
	if (fr->nh_id != 0) {
		resolve_obj(rib, fr->nh_id, &e->route.r);
	} else {
		for (k = 0; k < fr->n_nh; k++)
			add_nh(&e->route.r, &fr->nh[k].gw, fr->nh[k].weight, fr->nh[k].oif);
	}
	return FPM_APPLY_ADDED;
}

static int
nh_add(struct fpm_rib *rib, const struct rsw_fpm_nhobj *o, uint64_t session, char *err,
       size_t errlen)
{
	struct nhobj_entry **link, *e = nhobj_find(rib, o->id, &link);

	if (e == NULL) {
		if (rib->n_nhobj == RSW_FPM_MAX_NHOBJ)
			return fail(err, errlen, -ENOSPC, "next-hop object %u: at most %u", o->id,
				    RSW_FPM_MAX_NHOBJ);
		e = calloc(1, sizeof(*e));
		if (e == NULL)
			return fail(err, errlen, -ENOMEM, "next-hop object %u: out of memory",
				    o->id);
		*link = e;
		rib->n_nhobj++;
	}
	e->o = *o;
	e->session = session;
	resolve_all(rib);
	return FPM_APPLY_NH;
}

static int
nh_del(struct fpm_rib *rib, uint32_t id)
{
	struct nhobj_entry **link, *e = nhobj_find(rib, id, &link);

	if (e == NULL)
		return FPM_APPLY_NONE;
	*link = e->next;
	free(e);
	rib->n_nhobj--;
	resolve_all(rib);
	return FPM_APPLY_NH;
}

int
fpm_rib_apply(struct fpm_rib *rib, const struct rsw_fpm_msg *m, uint64_t session, char *err,
	      size_t errlen)
{
	if (rib == NULL || m == NULL)
		return fail(err, errlen, -EINVAL, "no RIB or message");
	switch (m->op) {
	case RSW_FPM_OP_ROUTE_ADD:
		return route_add(rib, &m->route, session, err, errlen);
	case RSW_FPM_OP_ROUTE_DEL:
		if (m->route.table != RSW_FPM_MAIN_TABLE)
			return FPM_APPLY_NONE;
		return route_del(rib, &m->route.prefix);
	case RSW_FPM_OP_NH_ADD:
		return nh_add(rib, &m->nh, session, err, errlen);
	case RSW_FPM_OP_NH_DEL:
		return nh_del(rib, m->nh.id);
	case RSW_FPM_OP_IGNORED:
		break;
	}
	return FPM_APPLY_NONE;
}

uint32_t
fpm_rib_drop_stale(struct fpm_rib *rib, uint64_t session)
{
	struct nhobj_entry **link, *o;
	uint32_t i, n = 0, b;
	bool nh_gone = false;

	if (rib == NULL)
		return 0;
	for (i = rib->n; i-- > 0;) {
		if (rib->e[i].session < session) {
			delete_at(rib, i);
			n++;
		}
	}
	for (b = 0; b < NH_BUCKETS; b++) {
		link = &rib->nb[b];
		while ((o = *link) != NULL) {
			if (o->session < session) {
				*link = o->next;
				free(o);
				rib->n_nhobj--;
				nh_gone = true;
			} else {
				link = &o->next;
			}
		}
	}
	if (nh_gone)
		resolve_all(rib);
	return n;
}

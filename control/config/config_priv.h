/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * What the files of the configuration loader share (config/): the loader's state for one
 * file, the limits of the values it takes, the YAML value getters (yaml.c), the number and
 * address parsers (units.c, addr.c), one parser per section and the names of the enums.
 * Nothing outside config/ includes it; the public API is rsw_config.h.
 */

#ifndef RSW_CONFIG_PRIV_H
#define RSW_CONFIG_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "rsw_config.h"

#define CFG_MAX_FILE      (64u << 20) /* largest configuration file read */
#define CFG_MAX_WEIGHT    1000
#define CFG_MAX_IDLE_US   1000000
#define CFG_MAX_BURST_US  100000 /* switch.shaper_burst_us */
#define CFG_MAX_PPS       1000000
#define CFG_MAX_FLOWLET   1000000
#define CFG_MIN_MTU       68
#define CFG_MAX_MTU       9000
#define CFG_MIN_MTU_IPV6  1280 /* RFC 8200 §5 */
#define CFG_MAX_DEPTH     64   /* flow nesting ([ {) */
#define CFG_KB            1024ull
#define CFG_MB            (1024ull * 1024)
#define CFG_MAX_SIZE      (4096 * CFG_MB) /* 4GB: largest size of any qos.buffer / ecn key */
#define CFG_MIN_TOTAL     (64 * CFG_KB)   /* qos.buffer.total: 64KB.. */
#define CFG_MAX_DWRR      100             /* qos.scheduler.dwrr weights: 1.. */
#define CFG_MAX_QUANTA    65535           /* qos.buffer.pfc.quanta: 1.. */
#define CFG_MAX_ALPHA     64.0            /* qos.buffer.pfc.alpha: (0.. */
#define CFG_MIN_WD_MS     10              /* qos.pfc_watchdog.{detect,restore}_ms */
#define CFG_MAX_WD_MS     60000
#define CFG_KEY_LEN       64 /* "ecn.7.kmin" and the like, in messages */
#define CFG_N_HASH_FIELDS 8  /* entries of cfg_hash_field_names */

/* One error line, with the line of the file it is about (0: none), for sorting. */
struct cfg_error {
	int line;
	char text[RSW_CFG_MSG_LEN];
};

/* Loader state for one file. */
struct ctx {
	const char *name;                  /* file name in messages */
	char *err;                         /* caller's error buffer, may be NULL */
	size_t errlen;                     /* size of err */
	yaml_document_t *doc;              /* the parsed document */
	struct rsw_config *cfg;            /* being filled */
	struct rsw_cfg_neighbor **nsorted; /* neighbours sorted by IP, for next-hop lookup */
	bool plan;                         /* rsw_config_load_plan: switch and ports optional */
	uint32_t n_nsorted;                /* entries of nsorted: the neighbours parsed */
	bool ports_ok;                     /* ports: parsed without error (qos sums use them) */
	bool ports_partial;      /* a port or the topology had an error: neighbours are checked
			       * against the port names as written, not the ports' addresses */
	yaml_node_t *ports_node; /* the ports: section's value, NULL if none */
	int n_errors;            /* errors reported (may exceed RSW_CFG_MAX_ERRS) */
	int n_msgs;              /* errors and warnings reported */
	struct cfg_error errors[RSW_CFG_MAX_ERRS]; /* the first messages, sorted by line */
};

/* A key found in a mapping: its value node and the key's line. */
struct kv {
	yaml_node_t *v;
	int line;
};

/* Names of the enums, as docs/config.md spells them, indexed by value. */
extern const char *const cfg_switch_roles[];                      /* enum rsw_switch_role */
extern const char *const cfg_port_roles[];                        /* enum rsw_port_role - 1 */
extern const char *const cfg_llr_fallbacks[];                     /* enum rsw_cfg_llr_fallback */
extern const char *const cfg_cbfc_fallbacks[];                    /* enum rsw_cfg_cbfc_fallback */
extern const char *const cfg_hash_field_names[CFG_N_HASH_FIELDS]; /* bit i of RSW_HF_* */
extern const char *const cfg_hash_alg_names[];                    /* enum rsw_hash_alg */
extern const char *const cfg_spray_names[];                       /* enum rsw_spray_mode */
extern const char *const cfg_trust_names[];                       /* enum rsw_trust */
extern const char *const cfg_pfc_mode_names[];                    /* static, dynamic */
extern const char *const cfg_ecn_mark_names[];                    /* dequeue, enqueue */
extern const char *const cfg_pfcwd_action_names[];                /* enum rsw_pfcwd_action */

/* yaml.c: nodes and typed values; each getter reports its own error and returns -EINVAL. */

/*
 * Report "FILE:LINE: message" (line 0: "FILE: message"): add it to c->errors in line order
 * and write them all to c->err, one per line. Returns -EINVAL.
 */
int cfg_fail(struct ctx *c, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Report "FILE:LINE: warning: message" among the errors; the load does not fail for it. */
void cfg_warn(struct ctx *c, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int cfg_line_of(const yaml_node_t *n);
yaml_node_t *cfg_node_at(struct ctx *c, int idx);
const char *cfg_sval(const yaml_node_t *n);
bool cfg_is_null(const yaml_node_t *n);
int cfg_seq_len(const yaml_node_t *n);
yaml_node_t *cfg_seq_item(struct ctx *c, const yaml_node_t *n, int i);
int cfg_get_map(struct ctx *c, yaml_node_t *n, const char *what, const char *const *keys, size_t nk,
		struct kv *out);
int cfg_map_scalar_key(struct ctx *c, yaml_node_t *k, const char *what);
int cfg_get_scalar(struct ctx *c, yaml_node_t *n, const char *key, const char *kind,
		   const char **out);
int cfg_get_int(struct ctx *c, yaml_node_t *n, const char *key, int64_t min, int64_t max,
		int64_t *out);
int cfg_get_u32(struct ctx *c, yaml_node_t *n, const char *key, int64_t min, int64_t max,
		uint32_t *out);
int cfg_get_bool(struct ctx *c, yaml_node_t *n, const char *key, bool *out);
int cfg_get_enum(struct ctx *c, yaml_node_t *n, const char *key, const char *const *names, int nn,
		 int *out);
int cfg_get_name(struct ctx *c, yaml_node_t *n, const char *key, char out[RSW_NAME_LEN]);
int cfg_get_text(struct ctx *c, yaml_node_t *n, const char *key, char *out, size_t size);
int cfg_get_mac(struct ctx *c, yaml_node_t *n, const char *key, uint8_t mac[6]);
int cfg_get_ip(struct ctx *c, yaml_node_t *n, const char *key, int family, struct rsw_ip *ip);
int cfg_get_size(struct ctx *c, yaml_node_t *n, const char *key, uint64_t min, uint64_t max,
		 uint64_t *out);
int cfg_get_fraction(struct ctx *c, yaml_node_t *n, const char *key, double max, double *out);
int cfg_get_tc(struct ctx *c, yaml_node_t *n, const char *key, const char *role, int *tc);
int cfg_parse_tc_list(struct ctx *c, yaml_node_t *n, const char *key, uint8_t *list, uint8_t *count,
		      uint8_t *bits, int lines[RSW_N_TC]);

/* units.c */
bool cfg_parse_i64(const char *s, int64_t *v);
const char *cfg_size_str(uint64_t b, char *buf, size_t len);
bool cfg_parse_mac(const char *s, uint8_t mac[6]);

/* addr.c */
bool cfg_parse_ip(const char *s, struct rsw_ip *ip);
int cfg_ip_bits(const struct rsw_ip *ip);
bool cfg_ip_unicast(const struct rsw_ip *ip);
const char *cfg_family_name(int family);
bool cfg_parse_prefix(const char *s, struct rsw_prefix *p);
void cfg_prefix_mask(struct rsw_prefix *p);
bool cfg_prefix_overlap(const struct rsw_prefix *a, const struct rsw_prefix *b);
int cfg_ip_cmp(const struct rsw_ip *a, const struct rsw_ip *b);

/* The sections, in the order load.c parses them; each returns 0 or -EINVAL. */
int cfg_parse_switch(struct ctx *c, const struct kv *sec);
int cfg_parse_ports(struct ctx *c, const struct kv *sec);
int cfg_parse_topology(struct ctx *c, const struct kv *sec);
int cfg_parse_neighbors(struct ctx *c, const struct kv *sec);
int cfg_parse_routes(struct ctx *c, const struct kv *sec);
int cfg_check_table_limits(struct ctx *c);
int cfg_parse_lb(struct ctx *c, const struct kv *sec);
int cfg_parse_qos(struct ctx *c, const struct kv *sec);

/* parse_cbfc.c: ports[].cbfc, and its checks against qos: once that is parsed. */
int cfg_parse_cbfc(struct ctx *c, yaml_node_t *n, struct rsw_cfg_port *port);
int cfg_check_cbfc(struct ctx *c);
int cfg_parse_control(struct ctx *c, const struct kv *sec);

/* parse_ports.c: the port whose own address is ip, or -1; whether ip is in a port's subnet. */
int cfg_own_address(const struct rsw_config *cfg, const struct rsw_ip *ip);
bool cfg_connected(const struct rsw_config *cfg, const struct rsw_ip *ip);

/* parse_neighbors.c: whether ip is a static neighbour. */
bool cfg_neighbor_known(struct ctx *c, const struct rsw_ip *ip);

/* parse_lb.c */
int cfg_get_lb_mode(struct ctx *c, yaml_node_t *n, const char *key, enum rsw_lb_mode *out);

/* parse_qos_buffer.c and parse_qos_trim.c: the sub-keys of qos:. */
int cfg_parse_buffer(struct ctx *c, yaml_node_t *n, struct rsw_cfg_qos *q, int *total_line);
int cfg_parse_ecn(struct ctx *c, yaml_node_t *n, struct rsw_cfg_qos *q);
int cfg_parse_pfcwd(struct ctx *c, yaml_node_t *n, struct rsw_cfg_qos *q);
int cfg_parse_trim(struct ctx *c, yaml_node_t *n, struct rsw_cfg_qos *q, int line);
int cfg_parse_cnp(struct ctx *c, yaml_node_t *n, struct rsw_cfg_qos *q, int line);

#endif /* RSW_CONFIG_PRIV_H */

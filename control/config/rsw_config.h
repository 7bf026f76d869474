/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The parsed configuration of one switch (docs/config.md). The loader
 * (config/, libyaml) fills it before rte_eal_init; the control thread builds
 * the dataplane tables from it. Nothing here is read by a worker.
 */

#ifndef RSW_CONFIG_H
#define RSW_CONFIG_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rsw_defs.h"

#define RSW_DEVARGS_LEN    256
#define RSW_PATH_LEN       108 /* sun_path */
#define RSW_CFG_MSG_LEN    512 /* one error line, NUL included */
#define RSW_CFG_MAX_ERRS   20  /* error lines a load reports at most */
#define RSW_CFG_ERR_LEN    ((RSW_CFG_MAX_ERRS + 1) * RSW_CFG_MSG_LEN) /* all, and "N more" */
#define RSW_CFG_MAX_CHECKS 4               /* checks modules register (rsw_config_register_check) */
#define RSW_SPEED_MIN_BPS  1000000ull      /* ports.speed range: 1M.. */
#define RSW_SPEED_MAX_BPS  400000000000ull /* ..400G */

enum rsw_switch_role {
	RSW_ROLE_LEAF = 0,
	RSW_ROLE_SPINE,
};

enum rsw_port_role {
	RSW_PORT_ROLE_NONE = 0, /* not given */
	RSW_PORT_ROLE_DOWNLINK,
	RSW_PORT_ROLE_UPLINK,
};

struct rsw_cfg_switch {
	char name[RSW_NAME_LEN];   /* required */
	enum rsw_switch_role role; /* default leaf */
	uint32_t idle_sleep_us;    /* default 100; 0 = busy poll */
	uint32_t shaper_burst_us;  /* egress shaper bucket in µs of the port's speed; 100 */
	bool has_router_id;        /* router_id given */
	struct rsw_ip router_id;   /* IPv4 */
	bool icmp_unreachable;     /* default true */
	uint32_t icmp_rate_pps;    /* default 100 */
	int line;                  /* line of 'switch:' */
	bool rss_symmetric;        /* switch.rss.symmetric: both directions to one worker */
	int rss_line;              /* line of 'rss:' (0 when absent) */
};

/* ports[].impair (docs/link.md "Impairments"); the dataplane's struct rsw_impair_cfg. */
struct rsw_cfg_impair {
	double loss;         /* probability a loss event starts at a frame, 0..1 */
	uint32_t loss_burst; /* frames per loss event, 1..1000000; default 1 */
	double corrupt;      /* probability of one flipped bit, 0..1 */
	uint32_t delay_us;   /* 0..1000000 */
	uint64_t seed;       /* default 1 */
};

/* ports[].llr.fallback, in the order of the dataplane's enum rsw_llr_fallback. */
enum rsw_cfg_llr_fallback {
	RSW_CFG_LLR_BEST_EFFORT = 0,
	RSW_CFG_LLR_DISCARD,
	RSW_CFG_LLR_BLOCK,
};

/* Descriptors per rx / tx queue when ports[].rx_desc / tx_desc are not given: sized for
 * 100G (1024 frames are ~7 us of 64-byte frames at line rate), as most 100G PMDs default. */
#define RSW_CFG_RX_DESC  1024
#define RSW_CFG_TX_DESC  1024
#define RSW_CFG_MAX_DESC 32768
/* ports[].cbfc.fallback, in the order of the dataplane's enum rsw_cbfc_fallback. */
enum rsw_cfg_cbfc_fallback {
	RSW_CFG_CBFC_PFC = 0,
	RSW_CFG_CBFC_NONE,
};

/* ports[].cbfc (docs/link.md "Credit-based flow control"). */
struct rsw_cfg_cbfc {
	bool enable;                         /* cbfc: true, or a mapping without enable: false */
	uint16_t bytes_per_credit;           /* 32..2048; default 64 */
	uint64_t buffer;                     /* bytes granted per lossless TC; 0 = the PG's xoff */
	enum rsw_cfg_cbfc_fallback fallback; /* default pfc */
	int line;                            /* line of 'cbfc:' (0: not given) */
	int buffer_line;                     /* line of 'buffer:' (0: not given) */
};

struct rsw_cfg_port {
	char name[RSW_NAME_LEN];
	char devargs[RSW_DEVARGS_LEN];
	bool has_mac;
	uint8_t mac[6];
	uint64_t speed_bps; /* 0 = not given */
	bool has_ipv4;
	struct rsw_prefix ipv4; /* address with host bits kept (not masked) */
	bool has_ipv6;
	struct rsw_prefix ipv6; /* address with host bits kept (not masked) */
	uint16_t mtu;           /* default 1500; 68..9000 (IPv6 on the port: >= 1280) */
	enum rsw_port_role role;
	bool ipv4_derived; /* ipv4 was derived from topology: (not given) */
	int line;          /* line of this port's list item */
	bool has_impair;   /* impair: given (docs/link.md) */
	struct rsw_cfg_impair impair;
	uint16_t rx_desc; /* rx descriptors per queue; default RSW_CFG_RX_DESC */
	uint16_t tx_desc; /* tx descriptors per queue; default RSW_CFG_TX_DESC */
	int rx_desc_line; /* line of rx_desc: (0: not given) */
	int tx_desc_line; /* line of tx_desc: (0: not given) */
	bool llr;         /* llr: enabled */
	enum rsw_cfg_llr_fallback llr_fallback; /* default best-effort */
	struct rsw_cfg_cbfc cbfc;               /* cbfc: (enable false when not given) */
	int devargs_line;                       /* lines of devargs:, mtu: and llr: (0: absent) */
	int mtu_line;
	int llr_line;
};

struct rsw_cfg_neighbor {
	struct rsw_ip ip;
	uint8_t mac[6];
	uint16_t port; /* index into rsw_config.ports */
	int line;
};

struct rsw_cfg_route {
	struct rsw_prefix prefix;                 /* masked */
	uint16_t n_nexthops;                      /* 1..RSW_MAX_NEXTHOPS */
	struct rsw_ip nexthops[RSW_MAX_NEXTHOPS]; /* same family as prefix */
	uint32_t weights[RSW_MAX_NEXTHOPS];       /* default 1 each; 1..1000 */
	enum rsw_lb_mode lb;                      /* RSW_LB_UNSET if not given */
	bool derived;  /* added by the topology derivation, not written in routes: */
	bool has_port; /* next hops leave by .port, not by the first port whose subnet holds
			* them (a leaf's downlinks share one subnet: each server has its port) */
	uint16_t port; /* index into rsw_config.ports when has_port */
	uint32_t oif[RSW_MAX_NEXTHOPS]; /* FPM: the kernel ifindex of each next hop, 0 = none */
	uint16_t nh_port_mask;          /* tables: bit j set = next hop j leaves by nh_port[j] */
	uint8_t nh_port[RSW_MAX_NEXTHOPS];
	bool has_distance; /* distance: given */
	uint8_t distance;  /* administrative distance 0..255 when has_distance */
	int line;
};

struct rsw_cfg_lb {
	enum rsw_lb_mode mode;             /* default hash */
	enum rsw_lb_mode per_tc[RSW_N_TC]; /* RSW_LB_UNSET where not given */
	uint32_t hash_fields;              /* RSW_HF_* bits; default RSW_HF_DEFAULT */
	enum rsw_hash_alg hash_algorithm;  /* default crc32 */
	enum rsw_spray_mode spray;         /* default round-robin */
	uint32_t flowlet_timeout_us;       /* default 50 */
	uint32_t hash_seed;                /* default 0 */
	bool hash_symmetric;               /* default false */
};

enum rsw_pfcwd_action {
	RSW_PFCWD_DROP = 0, /* flush and drop the stormed queue, stop PFC for it */
	RSW_PFCWD_FORWARD,  /* ignore received pause, keep forwarding */
	RSW_PFCWD_ALERT,    /* count only */
	RSW_PFCWD_OFF,      /* no watchdog */
};

/* qos.buffer.pfc: static (xoff/xon) or dynamic (alpha × free buffer) thresholds. */
struct rsw_cfg_pfc {
	bool dynamic;  /* mode: dynamic */
	uint64_t xoff; /* static: bytes of an ingress (port, PG) that send XOFF; default 96KB */
	uint64_t xon;  /* static: XON at or below; default 48KB; xon < xoff */
	double alpha;  /* dynamic: xoff = alpha × free; default 0.125; 0 < alpha <= 64 */
	uint64_t xon_offset; /* dynamic: XON at xoff − xon_offset; default 3KB */
	uint64_t headroom;   /* bytes per lossless (port, PG) beyond xoff; default 64KB */
	uint16_t quanta;     /* pause time sent in XOFF, 1..65535; default 65535 */
};

/* qos.ecn.<tc>: WRED/ECN curve on egress queue bytes (DCQCN). */
struct rsw_cfg_ecn {
	bool enabled;  /* the TC is listed under qos.ecn */
	uint64_t kmin; /* bytes; kmin < kmax */
	uint64_t kmax; /* bytes */
	double pmax;   /* 0 < pmax <= 1 */
};

struct rsw_cfg_qos {
	enum rsw_trust trust;   /* default dscp */
	uint8_t dscp_to_tc[64]; /* unlisted = default_tc */
	uint8_t pcp_to_tc[8];   /* unlisted = default_tc */
	uint8_t default_tc;     /* default 0 */

	/* scheduler: strict TCs first (in list order), DWRR over the rest. */
	uint8_t n_strict;         /* entries of strict[] */
	uint8_t strict[RSW_N_TC]; /* highest priority first; a TC at most once */
	uint32_t dwrr[RSW_N_TC];  /* weights 1..100 of non-strict TCs; default 1 */
	uint8_t lossless;         /* bit t = TC t is PFC-protected (qos.lossless); default none */

	/* buffer */
	uint64_t buffer_total; /* switch-wide shared buffer bytes; default 16MB */
	uint64_t queue_limit;  /* lossy per-queue tail-drop limit, bytes; default 512KB */
	struct rsw_cfg_pfc pfc;

	struct rsw_cfg_ecn ecn[RSW_N_TC];
	bool ecn_mark_enqueue; /* ecn_mark_point: enqueue (default dequeue) */

	/* trim: UEC packet trimming (qos.trim). */
	struct {
		bool enabled;       /* qos.trim given */
		uint8_t tcs;        /* bit t: TC t trim-eligible; never lossless */
		uint64_t threshold; /* queue bytes at which trim replaces drop; default 256KB */
		uint16_t size;      /* bytes kept from the destination MAC, FCS excluded; >= 78 */
		uint8_t dscp;       /* DSCP_TRIMMED, 0..63 */
		bool has_dscp_lasthop; /* dscp_lasthop given */
		uint8_t dscp_lasthop;  /* DSCP_TRIMMED_LASTHOP: on a leaf's downlinks */
		uint8_t tc;            /* class of trimmed packets: lossy, not strict */
	} trim;

	/* cnp: RoCEv2 CNPs (qos.cnp). */
	struct {
		bool enabled;         /* qos.cnp given */
		uint8_t tc;           /* CNPs go here whatever their DSCP */
		uint32_t coalesce_us; /* 0 = off: else one CNP per (dst IP, dest QP) per interval */
	} cnp;

	struct {
		uint32_t detect_ms;           /* default 200; 10..60000 */
		uint32_t restore_ms;          /* default 200; 10..60000 */
		enum rsw_pfcwd_action action; /* default drop */
	} pfcwd;
	int line; /* line of 'qos:' (0 when absent) */
};

enum rsw_topo_design {
	RSW_TOPO_RAIL_OPTIMIZED = 0, /* every leaf reaches every spine */
	RSW_TOPO_RAIL_ONLY,          /* each rail is its own leaf-spine network */
};

/* Keys of topology:, for the line of each (rsw_cfg_topology.lines). */
enum rsw_topo_key {
	RSW_TK_DESIGN,
	RSW_TK_SUS,
	RSW_TK_SERVERS,
	RSW_TK_RAILS,
	RSW_TK_SPINES,
	RSW_TK_RADIX,
	RSW_TK_THIS,
	RSW_TK_GPU_PREFIX,
	RSW_TK_FABRIC_PREFIX,
	RSW_N_TK,
};

/*
 * topology: the fabric this switch sits in (docs/topology.md). The loader
 * parses it; topology/ checks it and derives ports' addresses and routes (rsw_topology.h).
 */
struct rsw_cfg_topology {
	bool present;                    /* the section was given */
	enum rsw_topo_design design;     /* default rail-optimized */
	uint32_t sus;                    /* scalable units; required */
	uint32_t servers_per_su;         /* required */
	uint32_t rails;                  /* NICs per server = leaves per SU; required */
	uint32_t spines;                 /* per fabric (rail-optimized) or per rail; required */
	uint32_t radix;                  /* ports per switch; default 64 */
	bool has_this;                   /* this: given (required in a switch's file) */
	bool this_spine;                 /* this: { spine } (rail-only: { rail, spine }) */
	uint32_t this_su;                /* a leaf's SU */
	uint32_t this_rail;              /* a leaf's rail; a rail-only spine's rail */
	uint32_t this_spine_idx;         /* a spine's index (within its rail for rail-only) */
	struct rsw_prefix gpu_prefix;    /* a /8, masked; default 10.0.0.0/8 */
	struct rsw_prefix fabric_prefix; /* masked; default 172.16.0.0/12 */
	int line;                        /* line of 'topology:' */
	int lines[RSW_N_TK];             /* line of each key given, else 0 */
};

/* kernel_interfaces.bgp_peers: at most this many addresses. */
#define RSW_CFG_MAX_BGP_PEERS 64

/* kernel_interfaces.punt: room for the punt classes (RSW_N_PUNT_CLASSES, rsw_punt_dp.h). */
#define RSW_CFG_PUNT_CLASSES   16
#define RSW_CFG_PUNT_MAX_RATE  1000000 /* frames per second per worker */
#define RSW_CFG_PUNT_MAX_BURST 100000  /* frames */

/* kernel_interfaces.punt.CLASS: { rate, burst }; what is not given keeps its default. */
struct rsw_cfg_punt {
	bool has_rate;  /* rate: given */
	bool has_burst; /* burst: given */
	uint32_t rate;  /* frames per second per worker, 0..RSW_CFG_PUNT_MAX_RATE; 0 = drop all */
	uint32_t burst; /* frames, 1..RSW_CFG_PUNT_MAX_BURST */
	int line;       /* line of the class's key, 0 when the class is not given */
};

struct rsw_cfg_control {
	char socket[RSW_PATH_LEN]; /* default /run/railsw/railsw.sock */
	bool telemetry;            /* default true */
	bool has_metrics;          /* metrics_listen given */
	char metrics_listen[64];   /* "host:port" */
	bool has_fpm;              /* fpm: given */
	char fpm_listen[64];       /* fpm.listen "host:port"; default 127.0.0.1:2620 */
	uint32_t fpm_stale_s;      /* fpm.stale_s: 1..3600, default 10 */
	int fpm_line;              /* line of 'fpm:' */
	bool has_kif;              /* kernel_interfaces: given */
	char kif_netns[64];        /* kernel_interfaces.netns (a name under /run/netns) */
	int kif_tc;                /* kernel_interfaces.tc, or -1: the highest strict TC, else 7 */
	uint16_t n_bgp_peers;      /* kernel_interfaces.bgp_peers: entries of bgp_peers[] */
	struct rsw_ip bgp_peers[RSW_CFG_MAX_BGP_PEERS]; /* sources of the punt class bgp */
	int kif_line;                                   /* line of 'kernel_interfaces:' */
	struct rsw_cfg_punt punt[RSW_CFG_PUNT_CLASSES]; /* kernel_interfaces.punt, by class */
};

struct rsw_config {
	char path[4096]; /* file it came from */
	struct rsw_cfg_switch sw;
	uint16_t n_ports; /* 1..RSW_MAX_PORTS */
	struct rsw_cfg_port ports[RSW_MAX_PORTS];
	uint32_t n_neighbors;
	struct rsw_cfg_neighbor *neighbors; /* malloc'd, n_neighbors entries */
	uint32_t n_routes;
	struct rsw_cfg_route *routes; /* malloc'd, n_routes entries */
	struct rsw_cfg_lb lb;
	struct rsw_cfg_qos qos;
	struct rsw_cfg_control control;
	struct rsw_cfg_topology topology;
};

/**
 * Load and validate a configuration file.
 *
 * @param path
 *   YAML file.
 * @param err
 *   On failure, receives one line "FILE:LINE: message" (or "FILE: message" when no line
 *   applies) per independent error, in file order, joined by '\n' (no trailing newline):
 *   the first RSW_CFG_MAX_ERRS found, then "FILE: N more errors not shown" if there were
 *   more. A file with one mistake gets exactly one line. Warnings of registered checks
 *   ("FILE:LINE: warning: message") are among them in line order; on success err holds
 *   the warnings alone (empty when there are none).
 * @param errlen
 *   Size of err (RSW_CFG_ERR_LEN is enough; a smaller buffer gets the lines that fit, the
 *   first one cut if need be).
 * @return
 *   A new configuration (free with rsw_config_free), or NULL on any error.
 */
struct rsw_config *rsw_config_load(const char *path, char *err, size_t errlen);

/**
 * Same as rsw_config_load, from memory; name is used in messages in place of a path.
 */
struct rsw_config *rsw_config_load_buf(const char *name, const char *buf, size_t len, char *err,
				       size_t errlen);

/**
 * Load a file for planning (`railctl plan`): like rsw_config_load, but `topology:` is
 * required while `switch:` and `ports:` may be left out (a file with only `topology:`
 * describes a fabric). When they are given, everything is checked as for a switch.
 */
struct rsw_config *rsw_config_load_plan(const char *path, char *err, size_t errlen);

/** Free a configuration; NULL is a no-op. */
void rsw_config_free(struct rsw_config *cfg);

/** What a registered check reports its findings to (the loader's state for one file). */
struct rsw_cfg_report;

/**
 * A check a module adds to the loader: it looks at the ports of cfg that parsed without
 * error (a port that failed has an empty name) and reports what it finds with
 * rsw_config_report_error and rsw_config_report_warning. It runs on every load of a
 * switch's file, after the ports are parsed, whatever else failed.
 */
typedef void rsw_config_check_fn(const struct rsw_config *cfg, struct rsw_cfg_report *r);

/**
 * Add fn to the checks of every later load (at most RSW_CFG_MAX_CHECKS; registering one
 * twice keeps one).
 *
 * @return 0, or -ENOSPC.
 */
int rsw_config_register_check(rsw_config_check_fn *fn);

/** Remove fn from the registered checks (for tests); an unknown fn is a no-op. */
void rsw_config_unregister_check(rsw_config_check_fn *fn);

/** Report an error on line (0: none) of the file being loaded: the load fails. */
void rsw_config_report_error(struct rsw_cfg_report *r, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** Report "warning: ..." on line of the file being loaded: the load does not fail for it. */
void rsw_config_report_warning(struct rsw_cfg_report *r, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * The effective configuration as JSON, with docs/config.md's key names and every default filled in
 * (for `show config`).
 *
 * @return a new reference, or NULL on allocation failure.
 */
json_t *rsw_config_to_json(const struct rsw_config *cfg);

/** Index of the port called name, or -1. */
int rsw_config_port_index(const struct rsw_config *cfg, const char *name);

/** "10.0.0.1" / "fd00::1" into buf (INET6_ADDRSTRLEN is enough). Returns buf. */
const char *rsw_ip_str(const struct rsw_ip *ip, char *buf, size_t len);

struct rsw_punt_rates; /* rsw_punt_dp.h */

/**
 * The punt policers' rates cfg asks for into r: the defaults of rsw_punt_dp.h with what
 * kernel_interfaces.punt gives in their place (the defaults alone without kernel interfaces).
 */
void rsw_config_punt_rates(const struct rsw_config *cfg, struct rsw_punt_rates *r);

/** The TC kernel interfaces' frames leave in: kernel_interfaces.tc, else the highest strict TC, else 7. */
uint8_t rsw_config_kif_tc(const struct rsw_config *cfg);

/** "10.0.0.0/24" into buf (INET6_ADDRSTRLEN + 4 is enough). Returns buf. */
const char *rsw_prefix_str(const struct rsw_prefix *p, char *buf, size_t len);

/** Whether ip lies inside prefix p (same family, first p->len bits equal). */
bool rsw_prefix_contains(const struct rsw_prefix *p, const struct rsw_ip *ip);

/**
 * Set o[k] = v, or append v to a, for the JSON dumps: on any failure (v NULL from a failed
 * allocation, o or a NULL) v is released and *bad set, so that the caller can build a
 * whole document and drop it once at the end.
 */
void rsw_cfg_json_set(json_t *o, const char *k, json_t *v, bool *bad);
void rsw_cfg_json_append(json_t *a, json_t *v, bool *bad);

/** An address or prefix as a JSON string ("10.0.0.1", "10.0.0.0/24"); NULL on ENOMEM. */
json_t *rsw_ip_json(const struct rsw_ip *ip);
json_t *rsw_prefix_json(const struct rsw_prefix *p);

/**
 * Whether two routes need the same next-hop group: the same next hops in the same order,
 * weights, lb mode and egress port (the route's, and each next hop's nh_port where
 * nh_port_mask has it). Such routes share one group in the forwarding tables.
 */
bool rsw_cfg_route_same_group(const struct rsw_cfg_route *a, const struct rsw_cfg_route *b);

/** A hash of what rsw_cfg_route_same_group compares. */
uint32_t rsw_cfg_route_group_hash(const struct rsw_cfg_route *r);

/** Names of the enums, as docs/config.md spells them ("hash", "round-robin", ...). */
const char *rsw_lb_mode_name(enum rsw_lb_mode m);

/**
 * Parse a rate in bits/s: a plain integer, or a number with a K, M or G suffix (1000-based,
 * case-insensitive, decimals allowed: "2.5G", "100M"). One space may precede the suffix.
 * No range check: callers apply their own (ports.speed: RSW_SPEED_MIN_BPS..RSW_SPEED_MAX_BPS).
 *
 * @param s
 *   The text.
 * @param bps
 *   Receives the rate on success.
 * @return
 *   0, or -EINVAL if s is NULL, malformed, not a whole number of bits/s, or overflows.
 */
int rsw_parse_rate(const char *s, uint64_t *bps);

/**
 * Parse a size in bytes: a plain integer, or a number with a B, KB or MB suffix (1024-based,
 * case-insensitive, decimals allowed if the result is whole: "1.5MB"). "512KB" = 524288.
 * One space may precede the suffix.
 *
 * @param s
 *   The text.
 * @param bytes
 *   Receives the size on success.
 * @return
 *   0, or -EINVAL if s is NULL, malformed, not a whole number of bytes, or overflows.
 */
int rsw_parse_size(const char *s, uint64_t *bytes);

#endif /* RSW_CONFIG_H */

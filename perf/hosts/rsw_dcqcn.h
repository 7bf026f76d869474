/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * DCQCN (Zhu et al., SIGCOMM 2015) for the lab hosts: the reaction point (RP, the
 * sender's rate control per QP) and the notification point (NP, the receiver's CNP
 * pacing per QP). Pure C, no DPDK: times are nanoseconds given by the caller, rates
 * bits per second. rswhost (perf/hosts/host.c, host_io.c) drives it; test/test_dcqcn.c
 * checks it against hand-worked sequences.
 */

#ifndef RSW_DCQCN_H
#define RSW_DCQCN_H

#include <stdint.h>

/* Parameters of one host's DCQCN; rsw_dcqcn_params_default() scales them. */
struct rsw_dcqcn_params {
	double line_bps;          /* link rate: the RP starts and is capped here */
	double min_bps;           /* floor of the current rate */
	double g;                 /* α gain (1/256) */
	uint64_t cnp_interval_ns; /* NP: at most one CNP per QP per interval */
	uint64_t alpha_ns;        /* RP: α decays after this long without a CNP */
	uint64_t timer_ns;        /* RP: rate-increase timer T */
	uint64_t byte_counter;    /* RP: rate-increase byte counter B */
	unsigned int f;           /* fast-recovery stages F */
	double rai_bps;           /* additive increase R_AI */
	double rhai_bps;          /* hyper increase R_HAI */
};

/* Reaction point: one per sending QP. */
struct rsw_dcqcn_rp {
	double rc;             /* current rate, b/s */
	double rt;             /* target rate, b/s */
	double alpha;          /* congestion estimate α */
	uint64_t alpha_due;    /* next α decay, ns */
	uint64_t timer_due;    /* next rate-increase timer event, ns */
	uint64_t bytes;        /* bytes sent since the last byte-counter event */
	unsigned int t_stage;  /* timer events since the last CNP */
	unsigned int bc_stage; /* byte-counter events since the last CNP */
	int active;            /* rate below line: timers run */
	uint64_t cnps;         /* CNPs handled */
	uint64_t increases;    /* rate-increase events */
};

/* Notification point: one per receiving QP. */
struct rsw_dcqcn_np {
	uint64_t last_cnp; /* ns of the last CNP sent; 0 = none yet */
	int sent_any;      /* a CNP was sent */
	uint64_t ce_rx;    /* CE-marked packets seen */
	uint64_t cnp_tx;   /* CNPs sent */
};

/**
 * Fill @p p with defaults scaled to a link of @p line_bps: rates (R_AI, R_HAI, the
 * floor) scale linearly with the link as the HPCC code does; times (CNP interval,
 * α interval, T) are the DCQCN authors' ns-3 values multiplied by @p time_scale, and
 * the byte counter B is what the link carries in one scaled T (the ns-3 300 KB is one
 * 60 µs T at 40 Gb/s); at least 4 KB.
 */
void rsw_dcqcn_params_default(struct rsw_dcqcn_params *p, double line_bps, double time_scale);

/** Start @p rp at line rate, α = 1 (as the ns-3 code). */
void rsw_dcqcn_rp_init(struct rsw_dcqcn_rp *rp, const struct rsw_dcqcn_params *p);

/** A CNP arrived for this QP at @p now: cut the rate, raise α, restart the stages. */
void rsw_dcqcn_rp_cnp(struct rsw_dcqcn_rp *rp, const struct rsw_dcqcn_params *p, uint64_t now);

/** @p n bytes were sent: may fire byte-counter increase events. */
void rsw_dcqcn_rp_sent(struct rsw_dcqcn_rp *rp, const struct rsw_dcqcn_params *p, uint64_t n);

/** Run the α and increase timers up to @p now (call often; idempotent between events). */
void rsw_dcqcn_rp_tick(struct rsw_dcqcn_rp *rp, const struct rsw_dcqcn_params *p, uint64_t now);

/**
 * A CE-marked packet arrived at the receiver's QP at @p now.
 * @return 1 if a CNP is to be sent now, 0 if the CNP interval suppresses it.
 */
int rsw_dcqcn_np_ce(struct rsw_dcqcn_np *np, const struct rsw_dcqcn_params *p, uint64_t now);

#endif /* RSW_DCQCN_H */

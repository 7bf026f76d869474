/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The cabling check of `railctl plan FILE --check-lldp DIR` (lldp.c): a plan's cable ends
 * against the LLDP neighbours each switch heard. Jansson only: unit-tested on its own.
 */

#ifndef RAILCTL_LLDP_H
#define RAILCTL_LLDP_H

#include <jansson.h>

/**
 * The neighbours in one `lldpcli -f json0 show neighbors` (or `-f json`) document.
 * @return a new array of {"port", "switch", "peer_port", "peer_descr"}: the local
 *   interface, the neighbour's system name, port ID and port description ("" if absent).
 */
json_t *railctl_lldp_neighbours(json_t *doc);

/**
 * Compare the plan (`railctl plan --json`) with DIR/SWITCH.json of every switch.
 * @return a new object: "ends" (one per cable end: switch, port, plan_switch, plan_port,
 *   status ok|miscabled|missing|unchecked|silent|unexpected, heard, kind), the count of
 *   each status, and "passed" (no end miscabled, missing, unchecked or unexpected).
 */
json_t *railctl_lldp_check(json_t *plan, const char *dir);

/** Print the result of railctl_lldp_check for people. */
void railctl_lldp_print(json_t *res, const char *dir);

#endif /* RAILCTL_LLDP_H */

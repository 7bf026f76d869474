/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The punt dispatch (punt.c): the top of the neighbour area, handing each punted packet
 * to ARP, ND, ICMP or the neighbour state machine.
 */

#ifndef RSW_PUNT_H
#define RSW_PUNT_H

/** Handle every punted packet waiting on the punt ring (a bounded batch). @return how many. */
unsigned int rsw_ctl_punt_poll(void);

#endif /* RSW_PUNT_H */

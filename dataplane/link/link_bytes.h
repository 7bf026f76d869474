/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Big-endian field access on byte buffers, for the link layer's own frames (the LLR shim and
 * its control frames, CBFC credit messages): no alignment assumed, network byte order on the
 * wire. Used by the encoders and the parsers of outside input alike.
 */

#ifndef RSW_LINK_BYTES_H
#define RSW_LINK_BYTES_H

#include <stdint.h>

static inline uint16_t
rsw_link_get16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint32_t
rsw_link_get32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static inline void
rsw_link_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
rsw_link_put32(uint8_t *p, uint32_t v)
{
	rsw_link_put16(p, (uint16_t)(v >> 16));
	rsw_link_put16(p + 2, (uint16_t)v);
}

#endif /* RSW_LINK_BYTES_H */

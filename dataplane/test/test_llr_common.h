/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * What the LLR tests (test_llr.c, test_llr_shim.c) share: the parameters they start from.
 */

#ifndef RSW_TEST_LLR_COMMON_H
#define RSW_TEST_LLR_COMMON_H

#include "rsw_llr.h"

static inline void
default_params(struct rsw_llr_params *p)
{
	rsw_llr_params_default(p);
}

#endif /* RSW_TEST_LLR_COMMON_H */

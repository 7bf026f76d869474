/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * libFuzzer target: the FPM stream (control/fpm/fpm_parse.c) and the RIB it feeds
 * (fpm_rib.c) on arbitrary bytes, read as fpm.c reads a session: frames delimited by their
 * headers, a bad header ending the stream, every message of a frame applied to a small
 * RIB, and a stale drop at the end. Nothing may crash, leak or read out of bounds.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fpm_priv.h"
#include "rsw_fpm_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
on_msg(const struct rsw_fpm_msg *m, void *arg)
{
	char err[RSW_FPM_ERR_LEN];
	int ret = fpm_rib_apply(arg, m, 1 + (m->nl_type & 1), err, sizeof(err));

	if (ret < 0 && err[0] == '\0')
		abort(); /* refused without saying why */
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fpm_rib *rib = fpm_rib_new(64);
	size_t off = 0, flen;
	uint32_t i;

	if (rib == NULL)
		return 0;
	while (off < size && rsw_fpm_frame_check(data + off, size - off, &flen) == 0 &&
	       flen <= size - off) {
		rsw_fpm_parse_frame(data + off, flen, on_msg, NULL, rib);
		off += flen;
	}
	for (i = 0; i < fpm_rib_count(rib); i++)
		if (fpm_rib_find(rib, &fpm_rib_get(rib, i)->r.prefix) != fpm_rib_get(rib, i))
			abort(); /* every route is found by its prefix */
	fpm_rib_drop_stale(rib, 2);
	fpm_rib_free(rib);
	return 0;
}

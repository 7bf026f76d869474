/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Reading a port's devargs string ("net_memif0,role=server,socket=/run/m.sock", or a PCI
 * address): its device name, a key's value, whether it is a PCI address. Pure string work,
 * shared by port set-up (ports.c), the administrative state (admin.c) and the checks made
 * before EAL (port_check.c). Control thread.
 */

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rsw_ports.h"

bool
rsw_devargs_value(const char *devargs, const char *key, char *val, size_t len)
{
	size_t klen = strlen(key), n;
	const char *s = strchr(devargs, ',');

	while (s != NULL) {
		s++;
		if (strncmp(s, key, klen) == 0 && s[klen] == '=') {
			s += klen + 1;
			n = strcspn(s, ",");
			if (n >= len)
				n = len - 1;
			memcpy(val, s, n);
			val[n] = '\0';
			return true;
		}
		s = strchr(s, ',');
	}
	return false;
}

void
rsw_devargs_name(const char *devargs, char *name, size_t len)
{
	size_t n = strcspn(devargs, ",");

	if (n >= len)
		n = len - 1;
	memcpy(name, devargs, n);
	name[n] = '\0';
}

bool
rsw_devargs_is_pci(const char *devargs)
{
	unsigned int d, b, s, f;
	char tail;

	if (sscanf(devargs, "%x:%x:%x.%x%c", &d, &b, &s, &f, &tail) == 4)
		return true;
	if (sscanf(devargs, "%x:%x:%x.%x,%c", &d, &b, &s, &f, &tail) == 5)
		return true;
	if (sscanf(devargs, "%x:%x.%x%c", &b, &s, &f, &tail) == 3)
		return true;
	return sscanf(devargs, "%x:%x.%x,%c", &b, &s, &f, &tail) == 4;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Numbers as a configuration writes them: decimal integers, rates (10G, 2.5G), sizes (512KB,
 * 1.5MB) and MAC addresses; and sizes back as text for messages. Plain string functions: no
 * YAML, no loader state.
 */

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config_priv.h"

/* Decimal integer with an optional sign; false on syntax error or overflow. */
bool
cfg_parse_i64(const char *s, int64_t *v)
{
	uint64_t acc = 0;
	bool neg = false;

	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++) {
		if (!isdigit((unsigned char)*s))
			return false;
		if (acc > ((uint64_t)INT64_MAX - 9) / 10)
			return false;
		acc = acc * 10 + (uint64_t)(*s - '0');
	}
	*v = neg ? -(int64_t)acc : (int64_t)acc;
	return true;
}

/* Decimal number with an optional fraction, times mult; false unless a whole result. */
static bool
scaled_number(const char *s, const char *end, uint64_t mult, uint64_t *out)
{
	uint64_t ip = 0, frac = 0, div = 1;
	const char *q = s;

	if (q == end || !isdigit((unsigned char)*q))
		return false;
	for (; q < end && isdigit((unsigned char)*q); q++) {
		if (ip > (UINT64_MAX - 9) / 10)
			return false;
		ip = ip * 10 + (uint64_t)(*q - '0');
	}
	if (q < end && *q == '.') {
		q++;
		if (q == end || !isdigit((unsigned char)*q))
			return false;
		for (; q < end && isdigit((unsigned char)*q); q++) {
			if (div > UINT64_MAX / 100)
				return false;
			frac = frac * 10 + (uint64_t)(*q - '0');
			div *= 10;
		}
	}
	if (q != end)
		return false;
	while (frac != 0 && frac % 10 == 0) {
		frac /= 10;
		div /= 10;
	}
	if (mult != 0 && ip > UINT64_MAX / mult)
		return false;
	/* frac / div < 1 and mult <= 2^30, so frac * mult fits when div fits in 2^33. */
	if (frac != 0 && (div > (1ull << 33) || (frac * mult) % div != 0))
		return false;
	if (ip * mult > UINT64_MAX - frac * mult / div)
		return false;
	*out = ip * mult + frac * mult / div;
	return true;
}

int
rsw_parse_rate(const char *s, uint64_t *bps)
{
	size_t len;
	uint64_t mult = 1;

	if (s == NULL || bps == NULL)
		return -EINVAL;
	len = strlen(s);
	if (len > 0) {
		switch (s[len - 1]) {
		case 'k':
		case 'K':
			mult = 1000;
			break;
		case 'm':
		case 'M':
			mult = 1000000;
			break;
		case 'g':
		case 'G':
			mult = 1000000000;
			break;
		default:
			break;
		}
	}
	if (mult != 1)
		len--;
	/* "2.5 G": one space before the unit is fine. */
	if (mult != 1 && len > 0 && s[len - 1] == ' ')
		len--;
	return scaled_number(s, s + len, mult, bps) ? 0 : -EINVAL;
}

int
rsw_parse_size(const char *s, uint64_t *bytes)
{
	size_t len;
	uint64_t mult = 1;

	if (s == NULL || bytes == NULL)
		return -EINVAL;
	len = strlen(s);
	if (len >= 2 && strcasecmp(s + len - 2, "KB") == 0) {
		mult = 1024;
		len -= 2;
	} else if (len >= 2 && strcasecmp(s + len - 2, "MB") == 0) {
		mult = 1024 * 1024;
		len -= 2;
	} else if (len >= 1 && (s[len - 1] == 'B' || s[len - 1] == 'b')) {
		len -= 1;
	}
	/* "512 KB": one space before the unit is fine. */
	if (mult != 1 && len > 0 && s[len - 1] == ' ')
		len--;
	return scaled_number(s, s + len, mult, bytes) ? 0 : -EINVAL;
}

/* Bytes as a user writes them: "1.5MB", "96KB", "1000B" (exact, at most three decimals). */
const char *
cfg_size_str(uint64_t b, char *buf, size_t len)
{
	static const struct {
		uint64_t unit;
		const char *name;
	} units[] = {{CFG_MB, "MB"}, {CFG_KB, "KB"}};
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		uint64_t u = units[i].unit, rest = b % u, milli;
		char frac[24] = ""; /* ".375" */
		int digits = 3;

		if (b < u || rest * 1000 % u != 0)
			continue;
		milli = rest * 1000 / u;
		while (milli != 0 && milli % 10 == 0) {
			milli /= 10;
			digits--;
		}
		if (milli != 0)
			snprintf(frac, sizeof(frac), ".%0*llu", digits, (unsigned long long)milli);
		snprintf(buf, len, "%llu%s%s", (unsigned long long)(b / u), frac, units[i].name);
		return buf;
	}
	snprintf(buf, len, "%lluB", (unsigned long long)b);
	return buf;
}

static int
hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

bool
cfg_parse_mac(const char *s, uint8_t mac[6])
{
	int i;

	for (i = 0; i < 6; i++) {
		int hi = hexval(s[0]), lo = hi < 0 ? -1 : hexval(s[1]);

		if (hi < 0 || lo < 0)
			return false;
		mac[i] = (uint8_t)(hi << 4 | lo);
		s += 2;
		if (i < 5 && *s++ != ':')
			return false;
	}
	return *s == '\0';
}

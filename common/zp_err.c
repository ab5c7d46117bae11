#include "zp_err.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char err_msg[ZP_ERR_MSG_MAX];

static const char *const names[] = {
	[-(ZP_EINVAL_POINT - ZP_ERR_BASE)] = "point is not on the curve",
	[-(ZP_ESUBGROUP - ZP_ERR_BASE)]    = "point is not in the prime-order subgroup",
	[-(ZP_ENONCANON - ZP_ERR_BASE)]    = "field element is not canonical (>= modulus)",
	[-(ZP_EFLAGS - ZP_ERR_BASE)]       = "bad flag bits in point encoding",
	[-(ZP_EFORMAT - ZP_ERR_BASE)]      = "malformed input",
	[-(ZP_ETRUNC - ZP_ERR_BASE)]       = "input is truncated",
	[-(ZP_EMISMATCH - ZP_ERR_BASE)]    = "inputs do not match each other",
	[-(ZP_EUNSAT - ZP_ERR_BASE)]       = "witness does not satisfy the circuit",
	[-(ZP_EVERIFY - ZP_ERR_BASE)]      = "proof does not verify",
	[-(ZP_EVERSION - ZP_ERR_BASE)]     = "unsupported format or layout version",
	[-(ZP_EFULL - ZP_ERR_BASE)]        = "table is full",
	[-(ZP_ESTALE - ZP_ERR_BASE)]       = "stale handle (generation changed)",
	[-(ZP_ECUDA - ZP_ERR_BASE)]        = "CUDA error",
	[-(ZP_ENOTSQR - ZP_ERR_BASE)]      = "no square root: x is not a valid coordinate",
	[-(ZP_ERANGE - ZP_ERR_BASE)]       = "parameter out of range",
	[-(ZP_EWITGEN - ZP_ERR_BASE)]      = "witness generator failed",
};

const char *zp_strerror(int code)
{
	if (code >= 0)
		return "success";
	if (code > ZP_ERR_BASE)
		return strerror(-code);
	int i = -(code - ZP_ERR_BASE);
	if (code > ZP_ERR_LAST && i < (int)(sizeof(names) / sizeof(names[0])) && names[i])
		return names[i];
	return "unknown zkpipe error";
}

/* m (n bytes formatted of want) as the message; one cut to fit ends in "..." */
static void put(const char *m, int want)
{
	size_t n = strlen(m);
	memcpy(err_msg, m, n + 1);
	if (want >= (int)sizeof err_msg)
		memcpy(err_msg + sizeof err_msg - 4, "...", 4);
}

int zp_err_set(int code, const char *fmt, ...)
{
	char m[ZP_ERR_MSG_MAX];  /* a copy: an argument may be err_msg itself (a message wrapped in context) */
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0, m[0] = 0;
	const char *why = zp_strerror(code);
	size_t w = strlen(why);
	bool said = (size_t)n >= w + 2 && (size_t)n < sizeof m && !strcmp(m + n - w, why) && !memcmp(m + n - w - 2, ": ", 2);
	if (!said && (size_t)n < sizeof m)
		n += snprintf(m + n, sizeof m - n, ": %s", why);
	put(m, n);
	return code;
}

int zp_err_wrap(int code, const char *fmt, ...)
{
	char p[ZP_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(p, sizeof p, fmt, ap);
	va_end(ap);
	if (n < 0)
		p[0] = 0;
	size_t pl = strlen(p);
	if (err_msg[0] && !strncmp(err_msg, p, pl) && (!err_msg[pl] || !strncmp(err_msg + pl, ": ", 2)))
		return code;  /* said already: one prefix */
	/* the inner message ends with ": <name of code>" when it was set for this code: zp_err_set adds none then */
	return err_msg[0] ? zp_err_set(code, "%s: %s", p, err_msg) : zp_err_set(code, "%s", p);
}

const char *zp_err_msg(void) { return err_msg; }
const char *zp_err_text(int code) { return err_msg[0] ? err_msg : zp_strerror(code); }
void zp_err_clear(void) { err_msg[0] = 0; }

void zp_err_save(char buf[ZP_ERR_MSG_MAX]) { memcpy(buf, err_msg, sizeof err_msg); }
void zp_err_restore(const char buf[ZP_ERR_MSG_MAX]) { memcpy(err_msg, buf, sizeof err_msg); }

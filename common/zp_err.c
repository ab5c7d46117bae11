#include "zp_err.h"

#include <stdio.h>
#include <string.h>

static _Thread_local char err_msg[512];

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

int zp_err_set(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(err_msg, sizeof(err_msg), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(err_msg) - 2)
		snprintf(err_msg + n, sizeof(err_msg) - n, ": %s", zp_strerror(code));
	return code;
}

const char *zp_err_msg(void) { return err_msg; }
void zp_err_clear(void) { err_msg[0] = 0; }

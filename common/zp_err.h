/*
 * zp_err.h — zkpipe's error convention.
 *
 * Every function that can fail returns int: >= 0 on success, -errno for an OS
 * failure, or a negative zp_err code (all below ZP_ERR_BASE, well clear of the
 * errno range) for zkpipe's own failures.  zp_strerror() names both.
 *
 * Context (which file, section, field or request) travels in a thread-local
 * message set with zp_err_set(); callers that print an error print
 * zp_err_text(code): zp_err_msg() when it is non-empty, zp_strerror(code) otherwise.
 */
#ifndef ZP_ERR_H
#define ZP_ERR_H

#include <stdarg.h>

#define ZP_ERR_BASE (-4096)

enum zp_err {
	ZP_EINVAL_POINT   = ZP_ERR_BASE - 1,  /* not on the curve */
	ZP_ESUBGROUP      = ZP_ERR_BASE - 2,  /* on the curve, not in the r-torsion */
	ZP_ENONCANON      = ZP_ERR_BASE - 3,  /* field element >= modulus */
	ZP_EFLAGS         = ZP_ERR_BASE - 4,  /* bad compression / infinity / sign bits */
	ZP_EFORMAT        = ZP_ERR_BASE - 5,  /* malformed file or message */
	ZP_ETRUNC         = ZP_ERR_BASE - 6,  /* file or buffer shorter than its header says */
	ZP_EMISMATCH      = ZP_ERR_BASE - 7,  /* two inputs disagree (circuit vs key, witness vs circuit) */
	ZP_EUNSAT         = ZP_ERR_BASE - 8,  /* witness does not satisfy a constraint */
	ZP_EVERIFY        = ZP_ERR_BASE - 9,  /* proof failed its pairing check */
	ZP_EVERSION       = ZP_ERR_BASE - 10, /* layout / format version not understood */
	ZP_EFULL          = ZP_ERR_BASE - 11, /* no free slot / job record / table entry */
	ZP_ESTALE         = ZP_ERR_BASE - 12, /* handle's generation no longer current */
	ZP_ECUDA          = ZP_ERR_BASE - 13, /* CUDA runtime error */
	ZP_ENOTSQR        = ZP_ERR_BASE - 14, /* x has no square root (decompression) */
	ZP_ERANGE         = ZP_ERR_BASE - 15, /* parameter out of range */
	ZP_EWITGEN        = ZP_ERR_BASE - 16, /* a circuit's witness generator failed (exit, limit, timeout) */
	ZP_ERR_LAST       = ZP_ERR_BASE - 17,
};

/* Name of any code: -errno or zp_err. Never NULL. */
const char *zp_strerror(int code);

/* The context message's size: a message is never longer than ZP_ERR_MSG_MAX - 1 bytes; one cut
 * to fit ends in "...". */
#define ZP_ERR_MSG_MAX 1024

/* Thread-local context message for the last error (printf-style), followed by ": <zp_strerror(code)>"
 * unless the text ends with that already. Its arguments may include zp_err_msg() itself (formatted
 * into a copy). Returns code. */
int zp_err_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Context for an error whose message is set already: "<prefix>: <message>", the prefix printf-style.
 * A message that starts with the prefix already is left as it is (one prefix, never two); with no
 * message set yet it is zp_err_set(code, prefix). Returns code. */
int zp_err_wrap(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *zp_err_msg(void);
/* What to print for a failure with this code: the context message when one is set, else zp_strerror(code).
 * Never NULL. */
const char *zp_err_text(int code);
void zp_err_clear(void);
/* Keep the thread's message across a call whose failure is not the caller's to report (a progress
 * snapshot written in the middle of a load): save before, restore after. */
void zp_err_save(char buf[ZP_ERR_MSG_MAX]);
void zp_err_restore(const char buf[ZP_ERR_MSG_MAX]);

#endif

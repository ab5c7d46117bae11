/*
 * jsonscan.c — a streaming JSON syntax check (RFC 8259 grammar) of a client's input.json: synthd
 * runs it before the witness generator so a malformed file fails its partition with the line and
 * column, and the supervisor never parses the file (its loop reads only the first bytes).
 * Memory: one 64 KiB buffer and the recursion (at most ZP_JSON_DEPTH levels).
 */
#include "jsonscan.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "zp_err.h"

#define ZP_JSON_DEPTH 256

struct scan {
	int fd;
	const char *name;
	unsigned char buf[65536];
	size_t n, at;
	uint64_t off, line, col;
	int err; /* a read error (-errno) */
};

/* The next byte without taking it; -1 at the end of the file (or a read error, kept in s->err). */
static int peek(struct scan *s)
{
	if (s->at == s->n) {
		ssize_t got;
		do
			got = pread(s->fd, s->buf, sizeof s->buf, (off_t)s->off);
		while (got < 0 && errno == EINTR);
		if (got < 0)
			s->err = -errno;
		if (got <= 0)
			return -1;
		s->off += (uint64_t)got;
		s->n = (size_t)got, s->at = 0;
	}
	return s->buf[s->at];
}

static int take(struct scan *s)
{
	int c = peek(s);
	if (c < 0)
		return c;
	s->at++;
	if (c == '\n')
		s->line++, s->col = 1;
	else
		s->col++;
	return c;
}

static int bad(struct scan *s, const char *what)
{
	if (s->err)
		return zp_err_set(s->err, "input %s: read: %s", s->name, strerror(-s->err));
	int c = peek(s);
	char got[32];
	if (c < 0)
		snprintf(got, sizeof got, "the end of the file");
	else if (c >= 0x20 && c < 0x7f)
		snprintf(got, sizeof got, "'%c'", c);
	else
		snprintf(got, sizeof got, "byte 0x%02x", c);
	return zp_err_set(ZP_EFORMAT, "input %s: not valid JSON: line %llu column %llu: %s expected, %s found", s->name,
			  (unsigned long long)s->line, (unsigned long long)s->col, what, got);
}

static void blanks(struct scan *s)
{
	for (int c; (c = peek(s)) == ' ' || c == '\t' || c == '\n' || c == '\r';)
		take(s);
}

static bool lit(struct scan *s, const char *w)
{
	for (; *w; w++) {
		if (peek(s) != (unsigned char)*w)
			return false;
		take(s);
	}
	return true;
}

static bool digit(int c) { return c >= '0' && c <= '9'; }
static bool hex(int c) { return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

static int string(struct scan *s)
{
	if (peek(s) != '"')
		return bad(s, "a string");
	take(s);
	for (;;) {
		int c = peek(s);
		if (c < 0x20) /* the end, or a control character: never raw in a JSON string */
			return bad(s, "a closing '\"'");
		take(s);
		if (c == '"')
			return 0;
		if (c != '\\')
			continue;
		c = peek(s);
		if (c == 'u') {
			take(s);
			for (int i = 0; i < 4; i++) {
				if (!hex(peek(s)))
					return bad(s, "a hex digit of \\u");
				take(s);
			}
		} else if (c >= 0 && strchr("\"\\/bfnrt", c)) {
			take(s);
		} else {
			return bad(s, "an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)");
		}
	}
}

/* Any number of digits: an integer beyond 64 bits is as valid as circom's own inputs take it. */
static int number(struct scan *s)
{
	if (peek(s) == '-')
		take(s);
	if (peek(s) == '0')
		take(s);
	else if (digit(peek(s)))
		while (digit(peek(s)))
			take(s);
	else
		return bad(s, "a digit");
	if (peek(s) == '.') {
		take(s);
		if (!digit(peek(s)))
			return bad(s, "a digit after '.'");
		while (digit(peek(s)))
			take(s);
	}
	if (peek(s) == 'e' || peek(s) == 'E') {
		take(s);
		if (peek(s) == '+' || peek(s) == '-')
			take(s);
		if (!digit(peek(s)))
			return bad(s, "a digit of the exponent");
		while (digit(peek(s)))
			take(s);
	}
	return 0;
}

static int value(struct scan *s, unsigned depth);

/* '{' or '[' already seen (not taken): members or elements up to the closing bracket. */
static int compound(struct scan *s, unsigned depth)
{
	if (depth >= ZP_JSON_DEPTH)
		return zp_err_set(ZP_EFORMAT, "input %s: line %llu column %llu: nested deeper than %d levels", s->name,
				  (unsigned long long)s->line, (unsigned long long)s->col, ZP_JSON_DEPTH);
	bool obj = take(s) == '{';
	int close = obj ? '}' : ']', r;
	blanks(s);
	if (peek(s) == close) {
		take(s);
		return 0;
	}
	for (;;) {
		blanks(s);
		if (obj) {
			if ((r = string(s)))
				return r;
			blanks(s);
			if (peek(s) != ':')
				return bad(s, "':'");
			take(s);
			blanks(s);
		}
		if ((r = value(s, depth + 1)))
			return r;
		blanks(s);
		int c = peek(s);
		if (c == close) {
			take(s);
			return 0;
		}
		if (c != ',')
			return bad(s, obj ? "',' or '}'" : "',' or ']'");
		take(s);
	}
}

static int value(struct scan *s, unsigned depth)
{
	int c = peek(s);
	if (c == '{' || c == '[')
		return compound(s, depth);
	if (c == '"')
		return string(s);
	if (c == '-' || digit(c))
		return number(s);
	if (c == 't' ? lit(s, "true") : c == 'f' ? lit(s, "false") : c == 'n' ? lit(s, "null") : false)
		return 0;
	return bad(s, "a value");
}

int zp_json_scan_object(int fd, const char *name)
{
	static __thread struct scan s;
	s.n = s.at = 0, s.off = 0, s.line = s.col = 1, s.err = 0;
	s.fd = fd, s.name = name;
	blanks(&s);
	if (peek(&s) != '{')
		return bad(&s, "'{' (the top level must be an object of signal names)");
	int r = compound(&s, 0);
	if (r)
		return r;
	blanks(&s);
	return peek(&s) < 0 && !s.err ? 0 : bad(&s, "nothing after the object");
}

/*
 * synth_spec.c — a synthetic circuit's parameters: PoRep defaults, range checks, the text form
 * (synth_spec.h).
 */
#include "synth_spec.h"
#include "zp_err.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXT ZP_SYNTH_MAXT

void zp_synth_params_porep(zp_synth_params *p, uint32_t n_constraints)
{
	*p = (zp_synth_params){ .n_constraints = n_constraints, .n_public = 328, .bool_share = 0.9,
				.free_share = 0.3, .nnz_a = 2.4, .nnz_b = 1.0, .nnz_c = 2.2, .window = 65536,
				.seed = 1, .gen = 2 };
}

int zp_synth_check(const zp_synth_params *p)
{
	uint64_t rows = (uint64_t)p->n_constraints + p->n_public + 1;
	if (p->n_constraints < 1 || rows > ((uint64_t)1 << 27))
		return zp_err_set(ZP_ERANGE, "synthetic circuit: %u constraints + %u public inputs + 1 must be in "
				  "[2, 2^27] (the largest proving domain)", p->n_constraints, p->n_public);
	if (!(p->bool_share >= 0 && p->bool_share <= 1) || !(p->free_share > 0 && p->free_share <= 1))
		return zp_err_set(ZP_ERANGE, "synthetic circuit: bool share %g must be in [0, 1], free share %g in (0, 1]",
				  p->bool_share, p->free_share);
	if (!(p->nnz_a >= 0 && p->nnz_a < MAXT) || !(p->nnz_b >= 0 && p->nnz_b < MAXT) ||
	    !(p->nnz_c >= 1 && p->nnz_c < MAXT))
		return zp_err_set(ZP_ERANGE, "synthetic circuit: non-zeros per row A %g, B %g must be in [0, %d), C %g in [1, %d)",
				  p->nnz_a, p->nnz_b, MAXT, p->nnz_c, MAXT);
	if (p->window < 1)
		return zp_err_set(ZP_ERANGE, "synthetic circuit: window must be >= 1");
	if (p->gen != 1 && p->gen != 2)
		return zp_err_set(ZP_ERANGE, "synthetic circuit: gen=%u (the construction: 1 or 2)", p->gen);
	return 0;
}

uint32_t zp_synth_n_vars(const zp_synth_params *p)
{
	return 1 + p->n_public + p->n_constraints;
}

/* ---- text form ---- */
int zp_synth_describe(char *buf, size_t len, const zp_synth_params *p)
{
	int n = snprintf(buf, len, "synth:n=%u,pub=%u,bool=%.17g,free=%.17g,a=%.17g,b=%.17g,c=%.17g,win=%u,seed=%" PRIu64
			 ",gen=%u", p->n_constraints, p->n_public, p->bool_share, p->free_share, p->nnz_a, p->nnz_b,
			 p->nnz_c, p->window, p->seed, p->gen);
	return n < 0 || (size_t)n >= len ? zp_err_set(ZP_ERANGE, "synthetic circuit description too long") : n;
}

int zp_synth_parse(zp_synth_params *p, const char *s)
{
	zp_synth_params_porep(p, 0);
	if (strncmp(s, "synth:", 6))
		return zp_err_set(ZP_EFORMAT, "synthetic circuit '%s': expected 'synth:key=value,...'", s);
	char *dup = strdup(s + 6), *save = NULL;
	if (!dup)
		return -ENOMEM;
	int rc = 0;
	for (char *kv = strtok_r(dup, ",", &save); kv && !rc; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '='), *end = NULL;
		if (!eq) {
			rc = zp_err_set(ZP_EFORMAT, "synthetic circuit: '%s' is not key=value", kv);
			break;
		}
		*eq++ = 0;
		double d = strtod(eq, &end);
		unsigned long long u = strtoull(eq, NULL, 0);
		if (end == eq || *end)
			rc = zp_err_set(ZP_EFORMAT, "synthetic circuit: %s=%s is not a number", kv, eq);
		else if (!strcmp(kv, "n"))
			p->n_constraints = (uint32_t)(d < 4294967296.0 ? d : 0);
		else if (!strcmp(kv, "pub"))
			p->n_public = (uint32_t)u;
		else if (!strcmp(kv, "bool"))
			p->bool_share = d;
		else if (!strcmp(kv, "free"))
			p->free_share = d;
		else if (!strcmp(kv, "a"))
			p->nnz_a = d;
		else if (!strcmp(kv, "b"))
			p->nnz_b = d;
		else if (!strcmp(kv, "c"))
			p->nnz_c = d;
		else if (!strcmp(kv, "win"))
			p->window = (uint32_t)u;
		else if (!strcmp(kv, "seed"))
			p->seed = u;
		else if (!strcmp(kv, "gen"))
			p->gen = (uint32_t)u;
		else
			rc = zp_err_set(ZP_EFORMAT, "synthetic circuit: unknown parameter '%s' (n, pub, bool, free, a, b, "
					"c, win, seed, gen)", kv);
	}
	free(dup);
	return rc ? rc : zp_synth_check(p);
}

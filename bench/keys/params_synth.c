/* params_synth.c — synthetic .params files (params_synth.h): a pool of valid points, repeated. */
#include "params_synth.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "par.h"
#include "serialize.h"
#include "zp_err.h"

#define G1B 96u
#define G2B 192u
#define HEAD (3u * G1B + 3u * G2B)  /* alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2 */

void zp_params_info_layout(zp_params_info *c)
{
	uint32_t *n[6] = { &c->n_ic, &c->n_h, &c->n_l, &c->n_a, &c->n_b1, &c->n_b2 };
	uint64_t *o[6] = { &c->off_ic, &c->off_h, &c->off_l, &c->off_a, &c->off_b1, &c->off_b2 };
	uint64_t cur = HEAD;
	for (int i = 0; i < 6; i++) {
		*o[i] = cur + 4;
		cur = *o[i] + (uint64_t)*n[i] * (i == 5 ? G2B : G1B);
	}
	c->file_bytes = cur;
	c->domain = (uint64_t)c->n_h + 1;
}
void zp_params_counts_porep(zp_params_info *c, unsigned log)
{
	uint64_t dom = (uint64_t)1 << log;
	memset(c, 0, sizeof *c);
	c->n_ic = 329;
	c->n_h = (uint32_t)(dom - 1);
	c->n_l = (uint32_t)(dom / 1000 * 971);
	c->n_a = c->n_ic + c->n_l;
	c->n_b1 = c->n_b2 = c->n_a / 4;
	zp_params_info_layout(c);
}

struct pool_ctx { uint8_t *g1, *g2; uint64_t seed; };

static void pool_task(void *vctx, size_t i, int worker)
{
	(void)worker;
	struct pool_ctx *x = vctx;
	zp_rng g;
	zp_rng_seed(&g, x->seed * 1000003u + i);
	zp_fr k;
	zp_fr_random(&k, &g);
	zp_g1_jac j1;
	zp_g1_affine a1;
	zp_g1_jac_from_affine(&j1, &ZP_G1_GEN);
	zp_g1_jac_mul(&j1, &j1, &k);
	zp_g1_jac_to_affine(&a1, &j1);
	zp_g1_to_uncompressed(x->g1 + i * G1B, &a1);
	zp_g2_jac j2;
	zp_g2_affine a2;
	zp_g2_jac_from_affine(&j2, &ZP_G2_GEN);
	zp_g2_jac_mul(&j2, &j2, &k);
	zp_g2_jac_to_affine(&a2, &j2);
	zp_g2_to_uncompressed(x->g2 + i * G2B, &a2);
}

void zp_params_synth_pool(uint8_t *g1, uint8_t *g2, unsigned n, uint64_t seed)
{
	struct pool_ctx x = { g1, g2, seed };
	zp_par_for(n, pool_task, &x);
}

void zp_params_synth_off_subgroup(zp_rng *g, int g2, uint8_t *out)
{
	for (;;) {
		uint8_t c[G2B / 2];
		for (unsigned i = 0; i < (g2 ? G2B : G1B) / 2; i++)
			c[i] = (uint8_t)zp_rng_next(g);
		c[0] = (uint8_t)((c[0] & 0x0f) | ZP_SER_FLAG_COMPRESSED); /* < q for the top coordinate */
		if (g2) {
			c[48] &= 0x0f;
			zp_g2_affine p;
			if (zp_g2_from_compressed(&p, c, ZP_SER_NO_SUBGROUP) || zp_g2_affine_in_subgroup(&p))
				continue;
			zp_g2_to_uncompressed(out, &p);
		} else {
			zp_g1_affine p;
			if (zp_g1_from_compressed(&p, c, ZP_SER_NO_SUBGROUP) || zp_g1_affine_in_subgroup(&p))
				continue;
			zp_g1_to_uncompressed(out, &p);
		}
		return;
	}
}

/* n points of one group cycled from the pool, through a write buffer. */
static int write_points(FILE *f, const uint8_t *pool, unsigned np, uint64_t n, unsigned el, uint8_t *buf, size_t cap)
{
	uint8_t cnt[4] = { (uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n };
	if (fwrite(cnt, 1, 4, f) != 4)
		return -EIO;
	uint64_t per = cap / el, i = 0, at = 0;
	while (i < n) {
		uint64_t m = n - i < per ? n - i : per;
		for (uint64_t j = 0; j < m; j++, at = (at + 1) % np)
			memcpy(buf + j * el, pool + at * el, el);
		if (fwrite(buf, el, m, f) != m)
			return -EIO;
		i += m;
	}
	return 0;
}

int zp_params_write_synthetic(const char *path, const zp_params_info *c, unsigned pool, uint64_t seed)
{
	pool = pool ? pool : 1024;
	size_t cap = (size_t)64 << 20;
	struct { uint8_t *g1, *g2; } x = { malloc((size_t)pool * G1B), malloc((size_t)pool * G2B) };
	uint8_t *buf = malloc(cap);
	FILE *f = fopen(path, "wbx");
	int rc = 0;
	if (!x.g1 || !x.g2 || !buf)
		rc = zp_err_set(-ENOMEM, "%s: point pool", path);
	else if (!f)
		rc = zp_err_set(-errno, "%s: %s", path, strerror(errno));
	if (!rc) {
		zp_params_synth_pool(x.g1, x.g2, pool, seed);
		/* fixed: alpha_g1, beta_g1 (G1), beta_g2, gamma_g2 (G2), delta_g1 (G1), delta_g2 (G2) */
		const uint8_t *fx[6] = { x.g1, x.g1 + G1B, x.g2, x.g2 + G2B, x.g1 + 2 * G1B, x.g2 + 2 * G2B };
		const unsigned fl[6] = { G1B, G1B, G2B, G2B, G1B, G2B };
		for (int i = 0; i < 6 && !rc; i++)
			rc = fwrite(fx[i], 1, fl[i], f) == fl[i] ? 0 : -EIO;
		const uint32_t n[6] = { c->n_ic, c->n_h, c->n_l, c->n_a, c->n_b1, c->n_b2 };
		for (int i = 0; i < 6 && !rc; i++)
			rc = i == 5 ? write_points(f, x.g2, pool, n[i], G2B, buf, cap) : write_points(f, x.g1, pool, n[i], G1B, buf, cap);
		if (rc)
			rc = zp_err_set(rc, "%s: write: %s", path, strerror(errno));
	}
	if (f && fclose(f) && !rc)
		rc = zp_err_set(-errno, "%s: close: %s", path, strerror(errno));
	if (rc && f)
		unlink(path);
	free(x.g1);
	free(x.g2);
	free(buf);
	return rc;
}

/*
 * keystore.c — keys in key regions (keystore.h): the section table, copying a key in, the views out.
 */
#include "keystore.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <xxhash.h>

#include "par.h"

#include "zp_err.h"

enum { S_META, S_IC, S_A, S_B1, S_B2, S_C, S_H, S_N };
static const char *const sect_name[S_N] = { "meta", "ic", "a", "b1", "b2", "c", "h" };

static size_t el_of(const zp_curve *cv, int s) { return s == S_B2 ? cv->g2_bytes : cv->g1_bytes; }

/* meta.curve: 0 for BLS12-381 (so its regions are as before curves), the curve's id otherwise */
static uint32_t curve_word(const zp_curve *cv) { return cv->id == ZP_CURVE_BLS12_381 ? 0 : (uint32_t)cv->id; }
static const zp_curve *meta_curve(const struct zp_keystore_meta *m)
{
	return m->curve == 0 ? &zp_curve_bls12_381 : zp_curve_by_id(m->curve);
}

/* The six fixed points from SRC to DST (a zkey's or meta's members of one curve). */
#define FIXED(DST, SRC)                                                                      \
	do {                                                                                 \
		(DST)->alpha1 = (SRC)->alpha1, (DST)->beta1 = (SRC)->beta1, (DST)->delta1 = (SRC)->delta1; \
		(DST)->beta2 = (SRC)->beta2, (DST)->gamma2 = (SRC)->gamma2, (DST)->delta2 = (SRC)->delta2; \
	} while (0)

/* Counts and fixed points of src into m. */
static void meta_of(struct zp_keystore_meta *m, const zp_g16_key *src)
{
	const zp_zkey *z = src->zkey;
	memset(m, 0, sizeof *m);
	m->version = ZP_KEYSTORE_VERSION;
	m->n_vars = z->n_vars, m->n_public = z->n_public, m->domain_size = z->domain_size, m->log_domain = z->log_domain;
	m->n_constraints = z->circuit.n_constraints;
	memcpy(m->fingerprint, z->circuit.fingerprint, 16);
	m->h_mode = (uint32_t)src->h_mode;
	m->roots = src->roots, m->compact = src->compact, m->n_a = src->n_a, m->n_b = src->n_b;
	m->curve = curve_word(zp_curve_of(z->curve));
	if (zp_zkey_is_bn254(z))
		FIXED(&m->bn, &z->bn);
	else
		FIXED(m, z);
	uint64_t nv = z->n_vars, naux = nv > z->n_public + 1u ? nv - z->n_public - 1 : 0;
	uint64_t na = src->compact ? src->n_a : nv, nb = src->compact ? src->n_b : nv;
	const uint64_t n[6] = { z->n_public + 1u, na, nb, nb, naux, z->domain_size };
	memcpy(m->n, n, sizeof n);
}

/* k's views from its region's meta and sections; ZP_EFORMAT when they do not agree. */
static int views(zp_keystore_key *k)
{
	uint64_t len;
	const struct zp_keystore_meta *m = zp_keyregion_sect(&k->reg, "meta", &len);
	if (!m || len != sizeof *m || m->version != ZP_KEYSTORE_VERSION || m->h_mode > ZP_H_COEFF)
		return zp_err_set(ZP_EFORMAT, "key region %s: no key of this build's layout", k->reg.name);
	/* the curve, recorded in the region header and in meta: both must name the same one */
	const char *hc = zp_keyregion_hdr(&k->reg)->curve;
	const zp_curve *cv = meta_curve(m), *hcv = zp_curve_by_name(hc);
	if (!cv || !hcv || cv != hcv)
		return zp_err_set(ZP_EFORMAT, "key region %s: its header says curve \"%.16s\", its meta curve %u (%s): not a key of "
				  "one known curve", k->reg.name, hc, m->curve, cv ? cv->name : "unknown");
	if (cv->id != ZP_CURVE_BLS12_381 && (m->compact || m->h_mode != ZP_H_SNARKJS))
		return zp_err_set(ZP_EFORMAT, "key region %s: a %s key with a compact or coefficient-H layout", k->reg.name,
				  cv->name);
	const void *p[S_N];
	for (int s = S_IC; s < S_N; s++) {
		p[s] = zp_keyregion_sect(&k->reg, sect_name[s], &len);
		if (!p[s] || len != m->n[s - 1] * el_of(cv, s))
			return zp_err_set(ZP_EFORMAT, "key region %s: section %s: %llu bytes, meta says %llu points", k->reg.name,
					  sect_name[s], (unsigned long long)len, (unsigned long long)m->n[s - 1]);
	}
	zp_zkey *z = &k->zk;
	memset(z, 0, sizeof *z);
	z->n_vars = m->n_vars, z->n_public = m->n_public, z->domain_size = m->domain_size, z->log_domain = m->log_domain;
	/* read-only views: the backends only read the key's points */
	if (cv->id == ZP_CURVE_BN254) {
		z->curve = cv;
		FIXED(&z->bn, &m->bn);
		z->bn.ic = (zp_bn254_g1_affine *)p[S_IC];
		z->bn.a = (zp_bn254_g1_affine *)p[S_A];
		z->bn.b1 = (zp_bn254_g1_affine *)p[S_B1];
		z->bn.b2 = (zp_bn254_g2_affine *)p[S_B2];
		z->bn.c = (zp_bn254_g1_affine *)p[S_C];
		z->bn.h = (zp_bn254_g1_affine *)p[S_H];
	} else {
		z->curve = cv;
		FIXED(z, m);
		z->ic = (zp_g1_affine *)p[S_IC];
		z->a = (zp_g1_affine *)p[S_A];
		z->b1 = (zp_g1_affine *)p[S_B1];
		z->b2 = (zp_g2_affine *)p[S_B2];
		z->c = (zp_g1_affine *)p[S_C];
	}
	z->circuit.curve = cv;
	z->circuit.n_vars = m->n_vars, z->circuit.n_public = m->n_public, z->circuit.n_constraints = m->n_constraints;
	z->circuit.domain_size = m->domain_size, z->circuit.log_domain = m->log_domain;
	memcpy(z->circuit.fingerprint, m->fingerprint, 16);
	memset(&k->gk, 0, sizeof k->gk);
	k->gk.zkey = z;
	k->gk.h_mode = (zp_h_mode)m->h_mode;
	k->gk.roots = m->roots;
	k->gk.compact = m->compact != 0;
	k->gk.n_a = m->n_a, k->gk.n_b = m->n_b;
	if (k->gk.h_mode == ZP_H_COEFF)
		k->gk.h_coeff = (zp_g1_affine *)p[S_H];
	else if (cv->id != ZP_CURVE_BN254)
		z->h = (zp_g1_affine *)p[S_H];
	return 0;
}

/* A new region for a key of meta m (the previous one of that name removed), writable. */
static int create(zp_keystore_key *k, const char *name, const char *hdir, const uint8_t ident[16], const char *format,
		  const char *key, const struct zp_keystore_meta *m)
{
	const zp_curve *cv = meta_curve(m);
	if (!cv)
		return zp_err_set(ZP_ERANGE, "key region %s: curve %u", name, m->curve);
	struct zp_keyregion_params rp = { .name = name, .hugetlbfs_dir = hdir, .key = key, .format = format,
					  .curve = cv->name, .n_sections = S_N };
	memcpy(rp.ident, ident, 16);
	for (int s = 0; s < S_N; s++) {
		rp.sect[s].name = sect_name[s];
		rp.sect[s].bytes = s == S_META ? sizeof *m : m->n[s - 1] * el_of(cv, s);
	}
	memset(k, 0, sizeof *k);
	/* another gpud of the group may have made it meanwhile, or be making it: leave those; a stale or
	 * half-written one (its creator dead) goes */
	zp_keyregion probe;
	bool alive = false;
	int rc = zp_keyregion_attach(&probe, name, hdir, ident, &alive);
	if (rc == 0) {
		zp_keyregion_close(&probe);
		return zp_err_set(-EEXIST, "key region %s: made meanwhile by another process", name);
	}
	if (rc == ZP_ETRUNC && alive)
		return zp_err_set(-EBUSY, "key region %s: another process is writing it", name);
	if (rc != -ENOENT)
		zp_keyregion_remove(name, hdir);
	rc = zp_keyregion_create(&k->reg, &rp);
	if (!rc)
		memcpy(zp_keyregion_wsect(&k->reg, S_META), m, sizeof *m);
	return rc;
}

/* Seal and make the views; on failure the region goes. */
static int finish(zp_keystore_key *k, const char *name, const char *hdir, int rc)
{
	if (!rc)
		rc = zp_keyregion_seal(&k->reg);
	if (!rc)
		rc = views(k);
	if (rc) {
		zp_keyregion_close(&k->reg);
		zp_keyregion_remove(name, hdir);
	}
	return rc;
}

int zp_keystore_put(zp_keystore_key *k, const char *name, const char *hdir, const uint8_t ident[16],
		    const char *format, const char *key, const zp_g16_key *src)
{
	const zp_zkey *z = src->zkey;
	const zp_curve *cv = zp_curve_of(z->curve);
	const void *from[S_N] = { NULL, z->ic, z->a, z->b1, z->b2, z->c, src->h_mode == ZP_H_COEFF ? src->h_coeff : z->h };
	if (zp_zkey_is_bn254(z)) {
		const void *bn[S_N] = { NULL, z->bn.ic, z->bn.a, z->bn.b1, z->bn.b2, z->bn.c, z->bn.h };
		if (src->h_mode != ZP_H_SNARKJS || src->compact)
			return zp_err_set(-EINVAL, "key %s: a %s key with a coefficient H or compact layout", key, cv->name);
		memcpy(from, bn, sizeof from);
	}
	if (src->dev_points)
		return zp_err_set(-EINVAL, "key %s: its points are in device memory, not host memory", key);
	for (int s = S_IC; s < S_N; s++)
		if (!from[s])
			return zp_err_set(-EINVAL, "key %s: no host copy of its %s points", key, sect_name[s]);
	struct zp_keystore_meta m;
	meta_of(&m, src);
	int rc = create(k, name, hdir, ident, format, key, &m);
	if (rc)
		return rc;
	for (int s = S_IC; s < S_N; s++)
		memcpy(zp_keyregion_wsect(&k->reg, (unsigned)s), from[s], m.n[s - 1] * el_of(cv, s));
	return finish(k, name, hdir, 0);
}

/* bellperson's .params as the compact key zp_params_load makes (params.h), straight into the region. */
int zp_keystore_params(zp_keystore_key *k, const char *name, const char *hdir, const uint8_t ident[16], const char *key,
		       const char *path, const zp_params_load_opts *opts, zp_params_load_stats *stats)
{
	zp_params_info in;
	int rc = zp_params_scan(path, &in);
	if (rc)
		return rc;
	uint64_t nv = (uint64_t)in.n_ic + in.n_l;
	if (nv > UINT32_MAX || in.domain > ((uint64_t)1 << 31))
		return zp_err_set(ZP_ERANGE, "%s: %llu wires, domain %llu: too large", path, (unsigned long long)nv,
				  (unsigned long long)in.domain);
	struct zp_keystore_meta m = { .version = ZP_KEYSTORE_VERSION, .n_vars = (uint32_t)nv, .n_public = in.n_ic - 1,
				      .domain_size = (uint32_t)in.domain, .h_mode = ZP_H_COEFF, .roots = 7, .compact = 1,
				      .n_a = in.n_a, .n_b = in.n_b1 };
	while ((1ull << m.log_domain) < in.domain)
		m.log_domain++;
	const uint64_t n[6] = { in.n_ic, in.n_a, in.n_b1, in.n_b2, in.n_l, in.domain }; /* h: + the top one, at infinity */
	memcpy(m.n, n, sizeof n);
	if ((rc = create(k, name, hdir, ident, "params", key, &m)))
		return rc;
	zp_params_dst d = { zp_keyregion_wsect(&k->reg, S_IC), zp_keyregion_wsect(&k->reg, S_H), zp_keyregion_wsect(&k->reg, S_C),
			    zp_keyregion_wsect(&k->reg, S_A), zp_keyregion_wsect(&k->reg, S_B1),
			    zp_keyregion_wsect(&k->reg, S_B2) };
	zp_zkey fx;
	rc = zp_params_load_into(path, &in, &d, &fx, opts, stats);
	if (!rc) { /* the fixed points, now checked, into meta (sections are zeroed: h's last is infinity) */
		struct zp_keystore_meta *w = zp_keyregion_wsect(&k->reg, S_META);
		w->alpha1 = fx.alpha1, w->beta1 = fx.beta1, w->delta1 = fx.delta1;
		w->beta2 = fx.beta2, w->gamma2 = fx.gamma2, w->delta2 = fx.delta2;
	}
	return finish(k, name, hdir, rc);
}

/* A key whose points are elsewhere (device memory): its region with meta filled, to be written by the
 * caller through zp_keystore_wsect and sealed with zp_keystore_seal. */
int zp_keystore_begin(zp_keystore_key *k, const char *name, const char *hdir, const uint8_t ident[16],
		      const char *format, const char *key, const zp_g16_key *src)
{
	struct zp_keystore_meta m;
	meta_of(&m, src);
	return create(k, name, hdir, ident, format, key, &m);
}

void *zp_keystore_wsect(zp_keystore_key *k, const char *sect, uint64_t *bytes)
{
	for (unsigned s = S_IC; s < S_N; s++)
		if (!strcmp(sect, sect_name[s])) {
			if (bytes)
				*bytes = zp_keyregion_hdr(&k->reg)->sect[s].bytes;
			return zp_keyregion_wsect(&k->reg, s);
		}
	return NULL;
}

int zp_keystore_seal(zp_keystore_key *k, const char *name, const char *hdir, int rc)
{
	return finish(k, name, hdir, rc);
}

int zp_keystore_get(zp_keystore_key *k, const char *name, const char *hdir, const uint8_t ident[16])
{
	memset(k, 0, sizeof *k);
	int rc = zp_keyregion_attach(&k->reg, name, hdir, ident, NULL);
	if (rc)
		return rc;
	if ((rc = views(k)))
		zp_keyregion_close(&k->reg);
	return rc;
}

int zp_keystore_drop(const char *name, const char *hdir)
{
	zp_keyregion r;
	bool alive = false;
	static const uint8_t none[16];
	int rc = zp_keyregion_attach(&r, name, hdir, none, &alive);
	if (rc == 0 || rc == ZP_EMISMATCH)
		zp_keyregion_close(&r);
	if (rc == ZP_ETRUNC && alive)
		return zp_err_set(-EBUSY, "key region %s: its creator is still writing it", name);
	return zp_keyregion_remove(name, hdir);
}

void zp_keystore_close(zp_keystore_key *k)
{
	zp_keyregion_close(&k->reg);
	memset(&k->zk, 0, sizeof k->zk);
	memset(&k->gk, 0, sizeof k->gk);
}

/* ---- split bases ---- */
void zp_keystore_split_init(zp_keystore_split *s, const char *name, const char *hdir, const uint8_t base[16])
{
	memset(s, 0, sizeof *s);
	s->reg.fd = -1;
	snprintf(s->name, sizeof s->name, "%s", name);
	s->hdir = hdir;
	memcpy(s->base, base, 16);
}

void zp_keystore_split_base(const zp_keystore_key *k, uint8_t base[16])
{
	const struct zp_kreg_hdr *h = zp_keyregion_hdr(&k->reg);
	XXH3_state_t *st = XXH3_createState();
	XXH3_128bits_reset(st);
	XXH3_128bits_update(st, "zkpipe split bases of key region v1", 35);
	XXH3_128bits_update(st, h, offsetof(struct zp_kreg_hdr, hdr_xxh) + sizeof h->hdr_xxh);
	XXH3_128bits_update(st, k->zk.circuit.fingerprint, 16);
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(st));
	XXH3_freeState(st);
	memcpy(base, c.digest, 16);
}

static void split_ident(const zp_keystore_split *s, const zp_g16_split_arr *set, unsigned n, uint8_t id[16])
{
	XXH3_state_t *st = XXH3_createState();
	XXH3_128bits_reset(st);
	XXH3_128bits_update(st, s->base, 16);
	for (unsigned i = 0; i < n; i++) {
		struct { char name[16]; uint64_t points; uint32_t parts, pt; } a;
		memset(&a, 0, sizeof a);
		strncpy(a.name, set[i].name, sizeof a.name - 1);
		a.points = set[i].points, a.parts = set[i].parts, a.pt = set[i].pt_bytes;
		XXH3_128bits_update(st, &a, sizeof a);
	}
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(st));
	XXH3_freeState(st);
	memcpy(id, c.digest, 16);
}

static uint64_t split_bytes(const zp_g16_split_arr *a)
{
	return a->parts > 1 ? (uint64_t)(a->parts - 1) * a->points * a->pt_bytes : 0;
}

int zp_keystore_split_get(zp_keystore_split *s, const zp_g16_split_arr *set, unsigned n, const void **host)
{
	uint8_t id[16];
	bool alive = false;
	split_ident(s, set, n, id);
	zp_keystore_split_close(s);
	int rc = zp_keyregion_attach(&s->reg, s->name, s->hdir, id, &alive);
	if (rc == 0) {
		const struct zp_kreg_hdr *h = zp_keyregion_hdr(&s->reg);
		for (unsigned i = 0; !rc && i < n; i++) {
			uint64_t len = 0;
			host[i] = zp_keyregion_sect(&s->reg, set[i].name, &len);
			if (!host[i] || len != split_bytes(&set[i]))
				rc = zp_err_set(ZP_EFORMAT, "split region %s: section %s: %llu bytes, the set says %llu", s->name,
						set[i].name, (unsigned long long)len, (unsigned long long)split_bytes(&set[i]));
		}
		if (!rc && h->n_sections != n)
			rc = zp_err_set(ZP_EFORMAT, "split region %s: %u sections for a set of %u", s->name, h->n_sections, n);
		if (!rc) {
			s->hits++;
			s->bytes = s->reg.size;
			return 0;
		}
		zp_keyregion_close(&s->reg);
	}
	if (rc != -ENOENT && !(rc == ZP_ETRUNC && alive))
		zp_keyregion_remove(s->name, s->hdir); /* stale (another key, set or key region), damaged or half-written */
	return -ENOENT;
}

struct fault { uint8_t *p; uint64_t len; };

static void fault_task(void *vx, size_t i, int w)
{
	(void)w;
	struct fault *f = vx;
	uint64_t lo = (uint64_t)i << 21, m = f->len - lo < (1u << 21) ? f->len - lo : (1u << 21);
#ifdef MADV_POPULATE_WRITE
	if (madvise(f->p + lo, m, MADV_POPULATE_WRITE) == 0)
		return;
#endif
	memset(f->p + lo, 0, m);
}

int zp_keystore_split_begin(zp_keystore_split *s, const zp_g16_split_arr *set, unsigned n, void **host)
{
	struct zp_keyregion_params rp = { .name = s->name, .hugetlbfs_dir = s->hdir, .key = "split bases",
					  .format = "split", .curve = "", .n_sections = n };
	zp_keyregion probe;
	bool alive = false;
	if (n > ZP_KREG_MAX_SECT)
		return zp_err_set(ZP_ERANGE, "split region %s: %u arrays", s->name, n);
	split_ident(s, set, n, rp.ident);
	for (unsigned i = 0; i < n; i++)
		rp.sect[i].name = set[i].name, rp.sect[i].bytes = split_bytes(&set[i]);
	zp_keystore_split_close(s);
	int rc = zp_keyregion_attach(&probe, s->name, s->hdir, rp.ident, &alive);
	if (rc == 0)
		zp_keyregion_close(&probe);
	if (rc == ZP_ETRUNC && alive)
		return zp_err_set(-EBUSY, "split region %s: another process is writing it", s->name);
	if (rc != -ENOENT)
		zp_keyregion_remove(s->name, s->hdir);
	if ((rc = zp_keyregion_create(&s->reg, &rp)))
		return rc;
	s->writing = true;
	for (unsigned i = 0; i < n; i++) { /* fault the pages in on every core: the copy into them is then a DMA */
		struct fault f = { zp_keyregion_wsect(&s->reg, i), rp.sect[i].bytes };
		size_t np = (size_t)((f.len + (1u << 21) - 1) >> 21);
		if (f.len >= ((uint64_t)64 << 20))
			zp_par_for(np, fault_task, &f);
		else
			for (size_t j = 0; j < np; j++)
				fault_task(&f, j, 0);
		host[i] = f.p;
	}
	return 0;
}

int zp_keystore_split_end(zp_keystore_split *s, int rc)
{
	if (!s->writing)
		return rc;
	s->writing = false;
	if (!rc)
		rc = zp_keyregion_seal(&s->reg);
	if (!rc)
		s->kept++, s->bytes = s->reg.size;
	zp_keyregion_close(&s->reg);
	if (rc)
		zp_keyregion_remove(s->name, s->hdir);
	return rc;
}

void zp_keystore_split_close(zp_keystore_split *s)
{
	if (s->writing)
		zp_keystore_split_end(s, -ECANCELED);
	zp_keyregion_close(&s->reg);
}

static int op_get(void *ctx, const zp_g16_split_arr *set, unsigned n, const void **host)
{
	return zp_keystore_split_get(ctx, set, n, host);
}
static int op_begin(void *ctx, const zp_g16_split_arr *set, unsigned n, void **host)
{
	return zp_keystore_split_begin(ctx, set, n, host);
}
static int op_end(void *ctx, int rc)
{
	return zp_keystore_split_end(ctx, rc);
}

void zp_keystore_split_store(zp_keystore_split *s, zp_g16_split_store *ops)
{
	*ops = (zp_g16_split_store){ .ctx = s, .get = op_get, .begin = op_begin, .end = op_end };
}

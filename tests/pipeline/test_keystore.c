/*
 * test_keystore — keys of both curves in key regions (gpud/keystore.h):
 *  - a BN254 and a BLS12-381 snarkjs key put into regions and got back by a fresh attach: the region
 *    records the curve (header and meta; BLS12-381 as before curves: meta.curve 0), the views are the
 *    key's curve's members, every point byte-equal to the key's, and a proof from the region's key equals
 *    the file key's for the same r, s and verifies;
 *  - regions that do not hold one curve's key are refused, never read: the header names another curve than
 *    meta, an unknown curve, a BN254 meta with BLS12-381-sized sections; after a refusal the key is
 *    dropped and put again (what gpud does) and then gets back right.
 * Usage: test_keystore EXAMPLES_DIR (examples/: chain/ is BLS12-381, chain-bn254/ BN254).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "g16_json.h"
#include "groth16.h"
#include "keystore.h"
#include "wtns.h"
#include "zkey.h"
#include "zp_err.h"

static int fails;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "%s:%d: FAIL %s [%s]: ", __FILE__, __LINE__, #c, zp_err_msg()); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); fails++; } } while (0)
#define REQUIRE(c, ...) do { if (!(c)) { CHECK(c, __VA_ARGS__); exit(1); } } while (0)

static char base[64];

/* the points of zkey a and b (one curve) equal, array by array */
static int same_points(const zp_zkey *a, const zp_zkey *b)
{
	const zp_curve *cv = zp_curve_of(a->curve);
	size_t g1 = cv->g1_bytes, g2 = cv->g2_bytes, nv = a->n_vars, np = a->n_public, n = a->domain_size;
	bool bn = zp_zkey_is_bn254(a);
#define ARR(z, m) (bn ? (const void *)(z)->bn.m : (const void *)(z)->m)
#define FIX(z, m) (bn ? (const void *)&(z)->bn.m : (const void *)&(z)->m)
	if (zp_curve_of(b->curve) != cv || b->n_vars != a->n_vars || b->domain_size != a->domain_size)
		return 0;
	return !memcmp(FIX(a, alpha1), FIX(b, alpha1), g1) && !memcmp(FIX(a, beta1), FIX(b, beta1), g1) &&
	       !memcmp(FIX(a, delta1), FIX(b, delta1), g1) && !memcmp(FIX(a, beta2), FIX(b, beta2), g2) &&
	       !memcmp(FIX(a, gamma2), FIX(b, gamma2), g2) && !memcmp(FIX(a, delta2), FIX(b, delta2), g2) &&
	       !memcmp(ARR(a, ic), ARR(b, ic), (np + 1) * g1) && !memcmp(ARR(a, a), ARR(b, a), nv * g1) &&
	       !memcmp(ARR(a, b1), ARR(b, b1), nv * g1) && !memcmp(ARR(a, b2), ARR(b, b2), nv * g2) &&
	       !memcmp(ARR(a, c), ARR(b, c), (nv - np - 1) * g1) && !memcmp(ARR(a, h), ARR(b, h), n * g1);
#undef ARR
#undef FIX
}

/* proof of witness w with key gk, fixed r, s; its JSON text (malloc'ed) */
static char *prove(const zp_g16_key *gk, const zp_zkey *z, const zp_wtns *w)
{
	const zp_curve *cv = zp_curve_of(z->curve);
	zp_fr r, s;
	REQUIRE(!cv->fr_from_dec(&r, "12345") && !cv->fr_from_dec(&s, "67890"), "r, s");
	zp_g16_prove_opts o = { .r = &r, .s = &s, .skip_check = true };
	zp_g16_proof p;
	int rc = zp_g16_prove(&p, gk, &z->circuit, w->w, w->n, &o);
	CHECK(rc == 0, "prove (%s)", cv->name);
	if (rc)
		return NULL;
	zp_g16_vk vk;
	REQUIRE(!zp_zkey_vk(&vk, z), "vk");
	CHECK(zp_g16_verify(&vk, &p, w->w + 1, z->n_public) == 0, "the region key's proof verifies (%s)", cv->name);
	zp_g16_vk_free(&vk);
	return zp_g16_proof_dumps(&p);
}

static void one_curve(const char *dir, const char *tag, const zp_curve *want)
{
	char path[512], name[128];
	zp_zkey z;
	zp_wtns w;
	zp_g16_key gk;
	snprintf(path, sizeof path, "%s/chain.zkey", dir);
	REQUIRE(!zp_zkey_read(&z, path), "%s", path);
	REQUIRE(zp_curve_of(z.curve) == want, "%s is %s", path, want->name);
	snprintf(path, sizeof path, "%s/w0.wtns", dir);
	REQUIRE(!zp_wtns_read(&w, path), "%s", path);
	REQUIRE(!zp_g16_key_init(&gk, &z, ZP_H_SNARKJS), "key init");
	/* the zkey's circuit holds A and B only: the region's views hold counts and the fingerprint */
	snprintf(name, sizeof name, "%s.key.%s", base, tag);
	uint8_t id[16] = { 7, (uint8_t)want->id };
	zp_keystore_drop(name, NULL);
	zp_keystore_key k, k2;
	int rc = zp_keystore_put(&k, name, NULL, id, "zkey", tag, &gk);
	REQUIRE(rc == 0, "put %s", want->name);
	const struct zp_kreg_hdr *h = zp_keyregion_hdr(&k.reg);
	CHECK(!strcmp(h->curve, want->name), "header curve %s, want %s", h->curve, want->name);
	const struct zp_keystore_meta *m = zp_keyregion_sect(&k.reg, "meta", NULL);
	CHECK(m && m->curve == (want->id == ZP_CURVE_BLS12_381 ? 0u : (uint32_t)want->id), "meta curve %u", m ? m->curve : 99);
	CHECK(same_points(&z, &k.zk), "put's views = the key (%s)", want->name);
	zp_keystore_close(&k);

	/* a fresh attach, as a restarted gpud */
	REQUIRE(zp_keystore_get(&k2, name, NULL, id) == 0, "get %s", want->name);
	CHECK(zp_curve_of(k2.zk.curve) == want && zp_curve_of(k2.zk.circuit.curve) == want, "get: curve %s",
	      zp_curve_of(k2.zk.curve)->name);
	CHECK(same_points(&z, &k2.zk), "get's views = the key (%s)", want->name);
	if (want->id == ZP_CURVE_BN254)
		CHECK(!k2.zk.a && !k2.zk.h && k2.zk.bn.a && k2.zk.bn.h, "BN254 views bind the bn members only");
	CHECK(!memcmp(k2.zk.circuit.fingerprint, z.circuit.fingerprint, 16), "fingerprint");
	/* the same proof from the file's key and the region's */
	zp_zkey rz = k2.zk;                 /* the region's views; its circuit: the zkey's A and B for the H step */
	rz.circuit = z.circuit;
	zp_g16_key rk = k2.gk;
	rk.zkey = &rz;
	char *p1 = prove(&gk, &z, &w), *p2 = prove(&rk, &rz, &w);
	CHECK(p1 && p2 && !strcmp(p1, p2), "%s: the region key's proof = the file key's", want->name);
	free(p1);
	free(p2);
	zp_keystore_close(&k2);
	CHECK(zp_keystore_drop(name, NULL) == 0, "drop");
	zp_g16_key_free(&gk);
	zp_wtns_free(&w);
	zp_zkey_free(&z);
}

/* A region made by hand: meta m, header curve hc, sections of g1/g2 bytes per point. */
static int forge(const char *name, const uint8_t id[16], const struct zp_keystore_meta *m, const char *hc, size_t g1,
		 size_t g2)
{
	static const char *sn[] = { "meta", "ic", "a", "b1", "b2", "c", "h" };
	struct zp_keyregion_params rp = { .name = name, .key = "forged", .format = "zkey", .curve = hc, .n_sections = 7 };
	memcpy(rp.ident, id, 16);
	for (int s = 0; s < 7; s++) {
		rp.sect[s].name = sn[s];
		rp.sect[s].bytes = s == 0 ? sizeof *m : m->n[s - 1] * (s == 4 ? g2 : g1);
	}
	zp_keyregion r;
	zp_keyregion_remove(name, NULL);
	int rc = zp_keyregion_create(&r, &rp);
	if (rc)
		return rc;
	memcpy(zp_keyregion_wsect(&r, 0), m, sizeof *m);
	rc = zp_keyregion_seal(&r);
	zp_keyregion_close(&r);
	return rc;
}

static void wrong_curves(const char *bndir)
{
	char path[512], name[128];
	zp_zkey z;
	zp_g16_key gk;
	snprintf(path, sizeof path, "%s/chain.zkey", bndir);
	REQUIRE(!zp_zkey_read(&z, path) && !zp_g16_key_init(&gk, &z, ZP_H_SNARKJS), "%s", path);
	snprintf(name, sizeof name, "%s.key.forged", base);
	uint8_t id[16] = { 3, 1, 4 };
	zp_keystore_key k;
	/* a BN254 key's meta, as put writes it */
	REQUIRE(zp_keystore_put(&k, name, NULL, id, "zkey", "forged", &gk) == 0, "put");
	struct zp_keystore_meta m = *(const struct zp_keystore_meta *)zp_keyregion_sect(&k.reg, "meta", NULL);
	zp_keystore_close(&k);
	const struct { const char *why, *hc; uint32_t curve; size_t g1, g2; } bad[] = {
		{ "header bls12-381, meta bn254", "bls12-381", 2, 64, 128 },
		{ "header bn254, meta bls12-381 (0)", "bn254", 0, 64, 128 },
		{ "header bls12-381, meta bls12-381, BN254-sized sections", "bls12-381", 0, 64, 128 },
		{ "header bn254, meta bn254, BLS12-381-sized sections", "bn254", 2, 96, 192 },
		{ "an unknown curve", "secp256k1", 2, 64, 128 },
		{ "an unknown meta curve", "bn254", 9, 64, 128 },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct zp_keystore_meta f = m;
		f.curve = bad[i].curve;
		REQUIRE(forge(name, id, &f, bad[i].hc, bad[i].g1, bad[i].g2) == 0, "forge %s", bad[i].why);
		int rc = zp_keystore_get(&k, name, NULL, id);
		CHECK(rc == ZP_EFORMAT, "%s: get gave %d, want ZP_EFORMAT", bad[i].why, rc);
		if (!rc)
			zp_keystore_close(&k);
		/* gpud then drops it and keeps the key afresh */
		CHECK(zp_keystore_drop(name, NULL) == 0, "%s: drop", bad[i].why);
		CHECK(zp_keystore_put(&k, name, NULL, id, "zkey", "forged", &gk) == 0, "%s: put again", bad[i].why);
		zp_keystore_close(&k);
		CHECK(zp_keystore_get(&k, name, NULL, id) == 0 && same_points(&z, &k.zk), "%s: rebuilt region", bad[i].why);
		zp_keystore_close(&k);
	}
	zp_keystore_drop(name, NULL);
	zp_g16_key_free(&gk);
	zp_zkey_free(&z);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_keystore EXAMPLES_DIR\n");
		return 2;
	}
	char d[512];
	snprintf(base, sizeof base, "tks%d", (int)getpid());
	snprintf(d, sizeof d, "%s/chain-bn254", argv[1]);
	one_curve(d, "bn", &zp_curve_bn254);
	wrong_curves(d);
	snprintf(d, sizeof d, "%s/chain", argv[1]);
	one_curve(d, "bls", &zp_curve_bls12_381);
	if (fails)
		fprintf(stderr, "%d failures\n", fails);
	else
		printf("ok: keys of both curves in key regions, wrong-curve regions refused and rebuilt\n");
	return fails != 0;
}

#include "g16_json.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zp_err.h"
#include "zp_file.h"

/* ---- points of either curve, through the curve's table ----
 * Affine structs are x ‖ y, G2's coordinates c0 ‖ c1, each fp_bytes (curve.h); infinity is all zero. */
static bool all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint8_t acc = 0;
	for (size_t i = 0; i < n; i++)
		acc |= b[i];
	return !acc;
}

static const void *coord(const zp_curve *cv, const void *p, int i)
{
	return (const uint8_t *)p + (size_t)i * cv->fp_bytes;
}

/* ---- writing ---- */
static json_t *fp_str(const zp_curve *cv, const void *a)
{
	char buf[128];
	cv->fp_to_dec(buf, sizeof(buf), a);
	return json_string(buf);
}

static json_t *g1_json(const zp_curve *cv, const void *p)
{
	if (all_zero(p, cv->g1_bytes))
		return json_pack("[sss]", "0", "1", "0");
	return json_pack("[oos]", fp_str(cv, coord(cv, p, 0)), fp_str(cv, coord(cv, p, 1)), "1");
}

static json_t *g2_json(const zp_curve *cv, const void *p)
{
	if (all_zero(p, cv->g2_bytes))
		return json_pack("[[ss][ss][ss]]", "0", "0", "1", "0", "0", "0");
	return json_pack("[[oo][oo][ss]]", fp_str(cv, coord(cv, p, 0)), fp_str(cv, coord(cv, p, 1)),
			 fp_str(cv, coord(cv, p, 2)), fp_str(cv, coord(cv, p, 3)), "1", "0");
}

static int dump(json_t *j, const char *path)
{
	if (!j)
		return zp_err_set(-ENOMEM, "%s: building JSON", path);
	/* the atomic write (common/zp_file.h): a reader never sees half a file */
	char *txt = json_dumps(j, JSON_INDENT(1));
	json_decref(j);
	if (!txt)
		return zp_err_set(-ENOMEM, "%s: building JSON", path);
	zp_file_write_opts o = { .mode = 0644 };
	int rc = zp_file_write_atomic(path, txt, strlen(txt), &o);
	free(txt);
	return rc;
}

/* The proof's points and curve (BN254's are p->bn's: groth16.h) */
struct proof_pts { const zp_curve *cv; void *a, *b, *c; };

static struct proof_pts proof_pts(const zp_g16_proof *p)
{
	const zp_curve *cv = zp_curve_of(p->curve);
	zp_g16_proof *q = (zp_g16_proof *)p;
	if (cv->id == ZP_CURVE_BN254)
		return (struct proof_pts){ cv, &q->bn.a, &q->bn.b, &q->bn.c };
	return (struct proof_pts){ cv, &q->a, &q->b, &q->c };
}

static json_t *proof_json(const zp_g16_proof *p)
{
	struct proof_pts t = proof_pts(p);
	return json_pack("{s:o,s:o,s:o,s:s,s:s}", "pi_a", g1_json(t.cv, t.a), "pi_b", g2_json(t.cv, t.b), "pi_c",
			 g1_json(t.cv, t.c), "protocol", "groth16", "curve", t.cv->snarkjs_name);
}

static json_t *public_json(const zp_curve *cv, const zp_fr *pub, uint32_t n)
{
	json_t *a = json_array();
	for (uint32_t i = 0; a && i < n; i++) {
		char buf[96];
		cv->fr_to_dec(buf, sizeof(buf), &pub[i]);
		json_array_append_new(a, json_string(buf));
	}
	return a;
}

/* The text the file writers write (callers that place the file themselves: gpud). */
static char *dumps(json_t *j)
{
	char *s = j ? json_dumps(j, JSON_INDENT(1)) : NULL;
	json_decref(j);
	return s;
}

char *zp_g16_proof_dumps(const zp_g16_proof *p) { return dumps(proof_json(p)); }
char *zp_g16_public_dumps(const zp_fr *pub, uint32_t n) { return dumps(public_json(&zp_curve_bls12_381, pub, n)); }
char *zp_g16_public_dumps_curve(const zp_curve *cv, const zp_fr *pub, uint32_t n)
{
	return dumps(public_json(zp_curve_of(cv), pub, n));
}

int zp_g16_proof_write_json(const char *path, const zp_g16_proof *p) { return dump(proof_json(p), path); }

int zp_g16_public_write_json(const char *path, const zp_fr *pub, uint32_t n)
{
	return dump(public_json(&zp_curve_bls12_381, pub, n), path);
}

int zp_g16_public_write_json_curve(const char *path, const zp_curve *cv, const zp_fr *pub, uint32_t n)
{
	return dump(public_json(zp_curve_of(cv), pub, n), path);
}

/* the vk's points and curve */
struct vk_pts { const zp_curve *cv; void *alpha1, *beta2, *gamma2, *delta2, *ic; };

static struct vk_pts vk_pts(zp_g16_vk *vk)
{
	const zp_curve *cv = zp_curve_of(vk->curve);
	if (cv->id == ZP_CURVE_BN254)
		return (struct vk_pts){ cv, &vk->bn.alpha1, &vk->bn.beta2, &vk->bn.gamma2, &vk->bn.delta2, vk->bn.ic };
	return (struct vk_pts){ cv, &vk->alpha1, &vk->beta2, &vk->gamma2, &vk->delta2, vk->ic };
}

int zp_g16_vk_write_json(const char *path, const zp_g16_vk *vk)
{
	struct vk_pts t = vk_pts((zp_g16_vk *)vk);
	json_t *ic = json_array();
	for (uint32_t i = 0; ic && i <= vk->n_public; i++)
		json_array_append_new(ic, g1_json(t.cv, (const uint8_t *)t.ic + (size_t)i * t.cv->g1_bytes));
	return dump(json_pack("{s:s,s:s,s:i,s:o,s:o,s:o,s:o,s:o}", "protocol", "groth16", "curve", t.cv->snarkjs_name,
			      "nPublic", (int)vk->n_public, "vk_alpha_1", g1_json(t.cv, t.alpha1), "vk_beta_2",
			      g2_json(t.cv, t.beta2), "vk_gamma_2", g2_json(t.cv, t.gamma2), "vk_delta_2",
			      g2_json(t.cv, t.delta2), "IC", ic),
		    path);
}

/* snarkjs's soliditycalldata: 0x-prefixed hex of at least 64 digits, G2 coordinates as (c1, c0) —
 * the order of the EVM's pairing precompile (EIP-197). */
static void hex256(char *out, size_t n, const char *dec)
{
	/* decimal -> hex by repeated division on a byte array (values < 2^384) */
	uint8_t be[48] = { 0 };
	for (const char *d = dec; *d; d++) {
		unsigned carry = (unsigned)(*d - '0');
		for (int i = 47; i >= 0; i--) {
			unsigned v = be[i] * 10u + carry;
			be[i] = (uint8_t)v;
			carry = v >> 8;
		}
	}
	char digits[97];
	for (int i = 0; i < 48; i++)
		snprintf(digits + 2 * i, 3, "%02x", be[i]);
	int first = 0;   /* as JavaScript's toString(16) padded to 64: no leading zeros beyond those */
	while (first < 96 - 64 && digits[first] == '0')
		first++;
	snprintf(out, n, "\"0x%s\"", digits + first);
}

/* a growing string; s NULL once out of memory */
struct sbuf { char *s; size_t len, cap; };

static void sb_add(struct sbuf *b, const char *t)
{
	size_t l = strlen(t);
	if (b->s && b->len + l + 1 > b->cap) {
		char *n = realloc(b->s, b->cap * 2 + l + 1);
		if (!n) {
			free(b->s);
			b->s = NULL;
			return;
		}
		b->s = n;
		b->cap = b->cap * 2 + l + 1;
	}
	if (b->s) {
		memcpy(b->s + b->len, t, l + 1);
		b->len += l;
	}
}

static void sb_hex(struct sbuf *b, const char *dec, const char *sep)
{
	char hex[112];
	hex256(hex, sizeof hex, dec);
	sb_add(b, hex);
	sb_add(b, sep);
}

static void sb_fp(struct sbuf *b, const zp_curve *cv, const void *p, int i, const char *sep)
{
	char dec[128];
	cv->fp_to_dec(dec, sizeof dec, coord(cv, p, i));
	sb_hex(b, dec, sep);
}

char *zp_g16_calldata(const zp_g16_proof *p, const zp_fr *pub, uint32_t n)
{
	struct proof_pts t = proof_pts(p);
	const zp_curve *cv = t.cv;
	struct sbuf b = { malloc(1024), 0, 1024 };
	if (!b.s)
		return NULL;
	b.s[0] = 0;
	/* infinity as snarkjs's JSON has it: (0, 1) in G1, ((0, 0), (1, 0)) in G2 */
	uint8_t one[48] = { 0 }, a[96] = { 0 }, c[96] = { 0 }, bb[192] = { 0 };
	cv->fp_from_dec(one, "1");
	memcpy(a, t.a, cv->g1_bytes);
	memcpy(c, t.c, cv->g1_bytes);
	memcpy(bb, t.b, cv->g2_bytes);
	if (all_zero(a, cv->g1_bytes))
		memcpy(a + cv->fp_bytes, one, cv->fp_bytes);
	if (all_zero(c, cv->g1_bytes))
		memcpy(c + cv->fp_bytes, one, cv->fp_bytes);
	if (all_zero(bb, cv->g2_bytes))
		memcpy(bb + 2 * cv->fp_bytes, one, cv->fp_bytes);
	sb_add(&b, "[");
	sb_fp(&b, cv, a, 0, ", ");
	sb_fp(&b, cv, a, 1, "],[[");
	sb_fp(&b, cv, bb, 1, ", ");
	sb_fp(&b, cv, bb, 0, "],[");
	sb_fp(&b, cv, bb, 3, ", ");
	sb_fp(&b, cv, bb, 2, "]],[");
	sb_fp(&b, cv, c, 0, ", ");
	sb_fp(&b, cv, c, 1, "],[");
	for (uint32_t i = 0; i < n; i++) {
		char dec[96];
		cv->fr_to_dec(dec, sizeof dec, &pub[i]);
		sb_hex(&b, dec, i + 1 < n ? "," : "");
	}
	sb_add(&b, "]");
	return b.s;
}

/* ---- reading ---- */
/* From the file path, or from text when it is not NULL (path then names it in messages). */
static int load(json_t **j, const char *path, const char *text)
{
	json_error_t e;
	char *buf = NULL;
	int rc;
	/* bounded, a regular file only (a FIFO named instead never blocks); a missing file is not
	 * "line -1: unable to open" */
	if (!text && (rc = zp_file_read(AT_FDCWD, path, 0, ZP_FILE_JSON_MAX, &buf, NULL)))
		return rc;
	*j = json_loads(text ? text : buf, 0, &e);
	free(buf);
	if (!*j && e.line > 0)
		return zp_err_set(ZP_EFORMAT, "%s: line %d: %s", path, e.line, e.text);
	if (!*j)
		return zp_err_set(ZP_EFORMAT, "%s: %s", path, e.text);
	return 0;
}

static int get_fp(const zp_curve *cv, void *r, json_t *s, const char *path, const char *field)
{
	if (!json_is_string(s))
		return zp_err_set(ZP_EFORMAT, "%s: %s: expected a decimal string", path, field);
	int rc = cv->fp_from_dec(r, json_string_value(s));
	if (rc)
		return zp_err_set(rc, "%s: %s: not a decimal integer < q (%s)", path, field, cv->name);
	return 0;
}

static int is_str(json_t *s, const char *v) { return json_is_string(s) && strcmp(json_string_value(s), v) == 0; }

static int get_g1(const zp_curve *cv, void *p, json_t *a, const char *path, const char *field)
{
	int rc;
	if (!json_is_array(a) || json_array_size(a) != 3)
		return zp_err_set(ZP_EFORMAT, "%s: %s: expected [x, y, z]", path, field);
	json_t *z = json_array_get(a, 2);
	if (is_str(z, "0")) {
		if (!is_str(json_array_get(a, 0), "0") || !is_str(json_array_get(a, 1), "1"))
			return zp_err_set(ZP_EFORMAT, "%s: %s: z = 0 but not [\"0\",\"1\",\"0\"]", path, field);
		memset(p, 0, cv->g1_bytes);
		return 0;
	}
	if (!is_str(z, "1"))
		return zp_err_set(ZP_EFORMAT, "%s: %s: z must be \"1\" (affine) or \"0\" (infinity)", path, field);
	if ((rc = get_fp(cv, (void *)coord(cv, p, 0), json_array_get(a, 0), path, field)) ||
	    (rc = get_fp(cv, (void *)coord(cv, p, 1), json_array_get(a, 1), path, field)))
		return rc;
	if ((rc = cv->g1_check(p)))
		return zp_err_set(rc, "%s: %s", path, field);
	return 0;
}

/* [c0, c1] into r (2 coordinates) */
static int get_fp2(const zp_curve *cv, void *r, json_t *a, const char *path, const char *field)
{
	int rc;
	if (!json_is_array(a) || json_array_size(a) != 2)
		return zp_err_set(ZP_EFORMAT, "%s: %s: expected [c0, c1]", path, field);
	if ((rc = get_fp(cv, r, json_array_get(a, 0), path, field)) ||
	    (rc = get_fp(cv, (void *)coord(cv, r, 1), json_array_get(a, 1), path, field)))
		return rc;
	return 0;
}

static int get_g2(const zp_curve *cv, void *p, json_t *a, const char *path, const char *field)
{
	int rc;
	uint8_t z[96], one[96] = { 0 };
	if (!json_is_array(a) || json_array_size(a) != 3)
		return zp_err_set(ZP_EFORMAT, "%s: %s: expected [[x0,x1],[y0,y1],[z0,z1]]", path, field);
	if ((rc = get_fp2(cv, z, json_array_get(a, 2), path, field)))
		return rc;
	if (all_zero(z, 2 * cv->fp_bytes)) {
		memset(p, 0, cv->g2_bytes);
		return 0;
	}
	cv->fp_from_dec(one, "1");
	if (memcmp(z, one, 2 * cv->fp_bytes))
		return zp_err_set(ZP_EFORMAT, "%s: %s: z must be [\"1\",\"0\"] (affine) or zero (infinity)", path, field);
	if ((rc = get_fp2(cv, p, json_array_get(a, 0), path, field)) ||
	    (rc = get_fp2(cv, (void *)coord(cv, p, 2), json_array_get(a, 1), path, field)))
		return rc;
	if ((rc = cv->g2_check(p)))
		return zp_err_set(rc, "%s: %s", path, field);
	return 0;
}

/* protocol groth16 (when present) and the curve: "bls12381" or "bn128" (snarkjs's names; "bn254" accepted
 * too); absent: dflt (files from before curves: NULL = BLS12-381; a proof read against a key: its curve). */
static int read_curve(json_t *j, const char *path, const zp_curve **cv, const zp_curve *dflt)
{
	json_t *proto = json_object_get(j, "protocol"), *curve = json_object_get(j, "curve");
	if (proto && !is_str(proto, "groth16"))
		return zp_err_set(ZP_EFORMAT, "%s: protocol is not \"groth16\"", path);
	*cv = zp_curve_of(dflt);
	if (!curve)
		return 0;
	if (!json_is_string(curve) || !(*cv = zp_curve_by_name(json_string_value(curve))))
		return zp_err_set(ZP_EMISMATCH, "%s: curve is %s, expected \"bls12381\" or \"bn128\"", path,
				  json_is_string(curve) ? json_string_value(curve) : "not a string");
	return 0;
}

static int proof_read(zp_g16_proof *p, const char *path, const char *text, const zp_curve *dflt)
{
	json_t *j;
	int rc = load(&j, path, text);
	if (rc)
		return rc;
	if (!json_is_object(j)) {
		rc = zp_err_set(ZP_EFORMAT, "%s: expected a JSON object", path);
		goto out;
	}
	memset(p, 0, sizeof(*p));
	if ((rc = read_curve(j, path, &p->curve, dflt)))
		goto out;
	struct proof_pts t = proof_pts(p);
	if ((rc = get_g1(t.cv, t.a, json_object_get(j, "pi_a"), path, "pi_a")) ||
	    (rc = get_g2(t.cv, t.b, json_object_get(j, "pi_b"), path, "pi_b")) ||
	    (rc = get_g1(t.cv, t.c, json_object_get(j, "pi_c"), path, "pi_c")))
		goto out;
out:
	json_decref(j);
	return rc;
}

static int public_read(const zp_curve *cv, zp_fr **pub, uint32_t *n, const char *path, const char *text)
{
	json_t *j;
	*pub = NULL;
	*n = 0;
	int rc = load(&j, path, text);
	if (rc)
		return rc;
	if (!json_is_array(j)) {
		rc = zp_err_set(ZP_EFORMAT, "%s: expected an array of decimal strings", path);
		goto out;
	}
	size_t k = json_array_size(j);
	*pub = malloc((k ? k : 1) * sizeof(zp_fr));
	if (!*pub) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < k; i++) {
		json_t *s = json_array_get(j, i);
		if (!json_is_string(s)) {
			rc = zp_err_set(ZP_EFORMAT, "%s: element %zu: expected a decimal string", path, i);
			goto out;
		}
		if ((rc = cv->fr_from_dec(&(*pub)[i], json_string_value(s)))) {
			rc = zp_err_set(rc, "%s: element %zu: not a decimal integer < r (%s)", path, i, cv->name);
			goto out;
		}
	}
	*n = (uint32_t)k;
out:
	if (rc) {
		free(*pub);
		*pub = NULL;
	}
	json_decref(j);
	return rc;
}

static int vk_read(zp_g16_vk *vk, const char *path, const char *text)
{
	json_t *j;
	memset(vk, 0, sizeof(*vk));
	int rc = load(&j, path, text);
	if (rc)
		return rc;
	json_t *ic = json_object_get(j, "IC"), *np = json_object_get(j, "nPublic");
	if ((rc = read_curve(j, path, &vk->curve, NULL)))
		goto out;
	if (!json_is_integer(np) || json_integer_value(np) < 0 || json_integer_value(np) > (1 << 28)) {
		rc = zp_err_set(ZP_EFORMAT, "%s: nPublic: expected a non-negative integer", path);
		goto out;
	}
	vk->n_public = (uint32_t)json_integer_value(np);
	if (!json_is_array(ic) || json_array_size(ic) != (size_t)vk->n_public + 1) {
		rc = zp_err_set(ZP_EMISMATCH, "%s: IC: expected nPublic + 1 = %u points", path, vk->n_public + 1);
		goto out;
	}
	struct vk_pts t = vk_pts(vk);
	if ((rc = get_g1(t.cv, t.alpha1, json_object_get(j, "vk_alpha_1"), path, "vk_alpha_1")) ||
	    (rc = get_g2(t.cv, t.beta2, json_object_get(j, "vk_beta_2"), path, "vk_beta_2")) ||
	    (rc = get_g2(t.cv, t.gamma2, json_object_get(j, "vk_gamma_2"), path, "vk_gamma_2")) ||
	    (rc = get_g2(t.cv, t.delta2, json_object_get(j, "vk_delta_2"), path, "vk_delta_2")))
		goto out;
	uint8_t *icp = malloc(((size_t)vk->n_public + 1) * t.cv->g1_bytes);
	if (!icp) {
		rc = -ENOMEM;
		goto out;
	}
	if (t.cv->id == ZP_CURVE_BN254)
		vk->bn.ic = (zp_bn254_g1_affine *)icp;
	else
		vk->ic = (zp_g1_affine *)icp;
	for (uint32_t i = 0; i <= vk->n_public; i++) {
		char f[32];
		snprintf(f, sizeof(f), "IC[%u]", i);
		if ((rc = get_g1(t.cv, icp + (size_t)i * t.cv->g1_bytes, json_array_get(ic, i), path, f)))
			goto out;
	}
out:
	if (rc)
		zp_g16_vk_free(vk);
	json_decref(j);
	return rc;
}

int zp_g16_proof_read_json(zp_g16_proof *p, const char *path) { return proof_read(p, path, NULL, NULL); }
int zp_g16_proof_read_json_curve(const zp_curve *cv, zp_g16_proof *p, const char *path)
{
	return proof_read(p, path, NULL, cv);
}
int zp_g16_public_read_json(zp_fr **pub, uint32_t *n, const char *path)
{
	return public_read(&zp_curve_bls12_381, pub, n, path, NULL);
}
int zp_g16_public_read_json_curve(const zp_curve *cv, zp_fr **pub, uint32_t *n, const char *path)
{
	return public_read(zp_curve_of(cv), pub, n, path, NULL);
}
int zp_g16_vk_read_json(zp_g16_vk *vk, const char *path) { return vk_read(vk, path, NULL); }
int zp_g16_proof_loads(zp_g16_proof *p, const char *text, const char *name) { return proof_read(p, name, text, NULL); }
int zp_g16_proof_loads_curve(const zp_curve *cv, zp_g16_proof *p, const char *text, const char *name)
{
	return proof_read(p, name, text, cv);
}
int zp_g16_public_loads(zp_fr **pub, uint32_t *n, const char *text, const char *name)
{
	return public_read(&zp_curve_bls12_381, pub, n, name, text);
}
int zp_g16_public_loads_curve(const zp_curve *cv, zp_fr **pub, uint32_t *n, const char *text, const char *name)
{
	return public_read(zp_curve_of(cv), pub, n, name, text);
}
int zp_g16_vk_loads(zp_g16_vk *vk, const char *text, const char *name) { return vk_read(vk, name, text); }

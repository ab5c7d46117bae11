#include "g16_json.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zp_err.h"

/* ---- writing ---- */
static json_t *fp_str(const zp_fp *a)
{
	char buf[128];
	zp_fp_to_dec(buf, sizeof(buf), a);
	return json_string(buf);
}

static json_t *g1_json(const zp_g1_affine *p)
{
	if (zp_g1_affine_is_inf(p))
		return json_pack("[sss]", "0", "1", "0");
	return json_pack("[oos]", fp_str(&p->x), fp_str(&p->y), "1");
}

static json_t *fp2_json(const zp_fp2 *a)
{
	return json_pack("[oo]", fp_str(&a->c0), fp_str(&a->c1));
}

static json_t *g2_json(const zp_g2_affine *p)
{
	if (zp_g2_affine_is_inf(p))
		return json_pack("[[ss][ss][ss]]", "0", "0", "1", "0", "0", "0");
	return json_pack("[oo[ss]]", fp2_json(&p->x), fp2_json(&p->y), "1", "0");
}

static int dump(json_t *j, const char *path)
{
	if (!j)
		return zp_err_set(-ENOMEM, "%s: building JSON", path);
	/* write beside the target and rename: a reader never sees half a file */
	char tmp[4096];
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp)) {
		json_decref(j);
		return zp_err_set(-ENAMETOOLONG, "%s", path);
	}
	int rc = json_dump_file(j, tmp, JSON_INDENT(1));
	json_decref(j);
	if (rc || rename(tmp, path) != 0) {
		int e = errno ? -errno : -EIO;
		unlink(tmp);
		return zp_err_set(e, "%s: cannot write", path);
	}
	return 0;
}

static json_t *proof_json(const zp_g16_proof *p)
{
	return json_pack("{s:o,s:o,s:o,s:s,s:s}", "pi_a", g1_json(&p->a), "pi_b", g2_json(&p->b), "pi_c",
			 g1_json(&p->c), "protocol", "groth16", "curve", "bls12381");
}

static json_t *public_json(const zp_fr *pub, uint32_t n)
{
	json_t *a = json_array();
	for (uint32_t i = 0; a && i < n; i++) {
		char buf[96];
		zp_fr_to_dec(buf, sizeof(buf), &pub[i]);
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
char *zp_g16_public_dumps(const zp_fr *pub, uint32_t n) { return dumps(public_json(pub, n)); }

int zp_g16_proof_write_json(const char *path, const zp_g16_proof *p) { return dump(proof_json(p), path); }

int zp_g16_public_write_json(const char *path, const zp_fr *pub, uint32_t n)
{
	return dump(public_json(pub, n), path);
}

int zp_g16_vk_write_json(const char *path, const zp_g16_vk *vk)
{
	json_t *ic = json_array();
	for (uint32_t i = 0; ic && i <= vk->n_public; i++)
		json_array_append_new(ic, g1_json(&vk->ic[i]));
	return dump(json_pack("{s:s,s:s,s:i,s:o,s:o,s:o,s:o,s:o}", "protocol", "groth16", "curve", "bls12381",
			      "nPublic", (int)vk->n_public, "vk_alpha_1", g1_json(&vk->alpha1), "vk_beta_2",
			      g2_json(&vk->beta2), "vk_gamma_2", g2_json(&vk->gamma2), "vk_delta_2",
			      g2_json(&vk->delta2), "IC", ic),
		    path);
}

/* ---- reading ---- */
/* From the file path, or from text when it is not NULL (path then names it in messages). */
static int load(json_t **j, const char *path, const char *text)
{
	json_error_t e;
	*j = text ? json_loads(text, 0, &e) : json_load_file(path, 0, &e);
	if (!*j)
		return zp_err_set(ZP_EFORMAT, "%s: line %d: %s", path, e.line, e.text);
	return 0;
}

static int get_fp(zp_fp *r, json_t *s, const char *path, const char *field)
{
	if (!json_is_string(s))
		return zp_err_set(ZP_EFORMAT, "%s: %s: expected a decimal string", path, field);
	int rc = zp_fp_from_dec(r, json_string_value(s));
	if (rc)
		return zp_err_set(rc, "%s: %s: not a decimal integer < q", path, field);
	return 0;
}

static int is_str(json_t *s, const char *v) { return json_is_string(s) && strcmp(json_string_value(s), v) == 0; }

static int get_g1(zp_g1_affine *p, json_t *a, const char *path, const char *field)
{
	int rc;
	if (!json_is_array(a) || json_array_size(a) != 3)
		return zp_err_set(ZP_EFORMAT, "%s: %s: expected [x, y, z]", path, field);
	json_t *z = json_array_get(a, 2);
	if (is_str(z, "0")) {
		if (!is_str(json_array_get(a, 0), "0") || !is_str(json_array_get(a, 1), "1"))
			return zp_err_set(ZP_EFORMAT, "%s: %s: z = 0 but not [\"0\",\"1\",\"0\"]", path, field);
		memset(p, 0, sizeof(*p));
		return 0;
	}
	if (!is_str(z, "1"))
		return zp_err_set(ZP_EFORMAT, "%s: %s: z must be \"1\" (affine) or \"0\" (infinity)", path, field);
	if ((rc = get_fp(&p->x, json_array_get(a, 0), path, field)) ||
	    (rc = get_fp(&p->y, json_array_get(a, 1), path, field)))
		return rc;
	if ((rc = zp_g1_affine_check(p)))
		return zp_err_set(rc, "%s: %s", path, field);
	return 0;
}

static int get_fp2(zp_fp2 *r, json_t *a, const char *path, const char *field)
{
	int rc;
	if (!json_is_array(a) || json_array_size(a) != 2)
		return zp_err_set(ZP_EFORMAT, "%s: %s: expected [c0, c1]", path, field);
	if ((rc = get_fp(&r->c0, json_array_get(a, 0), path, field)) ||
	    (rc = get_fp(&r->c1, json_array_get(a, 1), path, field)))
		return rc;
	return 0;
}

static int get_g2(zp_g2_affine *p, json_t *a, const char *path, const char *field)
{
	int rc;
	zp_fp2 z;
	if (!json_is_array(a) || json_array_size(a) != 3)
		return zp_err_set(ZP_EFORMAT, "%s: %s: expected [[x0,x1],[y0,y1],[z0,z1]]", path, field);
	if ((rc = get_fp2(&z, json_array_get(a, 2), path, field)))
		return rc;
	if (zp_fp2_is_zero(&z)) {
		memset(p, 0, sizeof(*p));
		return 0;
	}
	if (!zp_fp2_eq(&z, &ZP_FP2_ONE))
		return zp_err_set(ZP_EFORMAT, "%s: %s: z must be [\"1\",\"0\"] (affine) or zero (infinity)", path, field);
	if ((rc = get_fp2(&p->x, json_array_get(a, 0), path, field)) ||
	    (rc = get_fp2(&p->y, json_array_get(a, 1), path, field)))
		return rc;
	if ((rc = zp_g2_affine_check(p)))
		return zp_err_set(rc, "%s: %s", path, field);
	return 0;
}

static int check_curve(json_t *j, const char *path)
{
	json_t *proto = json_object_get(j, "protocol"), *curve = json_object_get(j, "curve");
	if (proto && !is_str(proto, "groth16"))
		return zp_err_set(ZP_EFORMAT, "%s: protocol is not \"groth16\"", path);
	if (curve && !is_str(curve, "bls12381"))
		return zp_err_set(ZP_EMISMATCH, "%s: curve is %s, expected \"bls12381\"", path,
				  json_is_string(curve) ? json_string_value(curve) : "not a string");
	return 0;
}

static int proof_read(zp_g16_proof *p, const char *path, const char *text)
{
	json_t *j;
	int rc = load(&j, path, text);
	if (rc)
		return rc;
	if (!json_is_object(j)) {
		rc = zp_err_set(ZP_EFORMAT, "%s: expected a JSON object", path);
		goto out;
	}
	if ((rc = check_curve(j, path)) || (rc = get_g1(&p->a, json_object_get(j, "pi_a"), path, "pi_a")) ||
	    (rc = get_g2(&p->b, json_object_get(j, "pi_b"), path, "pi_b")) ||
	    (rc = get_g1(&p->c, json_object_get(j, "pi_c"), path, "pi_c")))
		goto out;
out:
	json_decref(j);
	return rc;
}

static int public_read(zp_fr **pub, uint32_t *n, const char *path, const char *text)
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
		if ((rc = zp_fr_from_dec(&(*pub)[i], json_string_value(s)))) {
			rc = zp_err_set(rc, "%s: element %zu: not a decimal integer < r", path, i);
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
	if ((rc = check_curve(j, path)))
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
	if ((rc = get_g1(&vk->alpha1, json_object_get(j, "vk_alpha_1"), path, "vk_alpha_1")) ||
	    (rc = get_g2(&vk->beta2, json_object_get(j, "vk_beta_2"), path, "vk_beta_2")) ||
	    (rc = get_g2(&vk->gamma2, json_object_get(j, "vk_gamma_2"), path, "vk_gamma_2")) ||
	    (rc = get_g2(&vk->delta2, json_object_get(j, "vk_delta_2"), path, "vk_delta_2")))
		goto out;
	vk->ic = malloc(((size_t)vk->n_public + 1) * sizeof(zp_g1_affine));
	if (!vk->ic) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i <= vk->n_public; i++) {
		char f[32];
		snprintf(f, sizeof(f), "IC[%u]", i);
		if ((rc = get_g1(&vk->ic[i], json_array_get(ic, i), path, f)))
			goto out;
	}
out:
	if (rc)
		zp_g16_vk_free(vk);
	json_decref(j);
	return rc;
}

int zp_g16_proof_read_json(zp_g16_proof *p, const char *path) { return proof_read(p, path, NULL); }
int zp_g16_public_read_json(zp_fr **pub, uint32_t *n, const char *path) { return public_read(pub, n, path, NULL); }
int zp_g16_vk_read_json(zp_g16_vk *vk, const char *path) { return vk_read(vk, path, NULL); }
int zp_g16_proof_loads(zp_g16_proof *p, const char *text, const char *name) { return proof_read(p, name, text); }
int zp_g16_public_loads(zp_fr **pub, uint32_t *n, const char *text, const char *name)
{
	return public_read(pub, n, name, text);
}
int zp_g16_vk_loads(zp_g16_vk *vk, const char *text, const char *name) { return vk_read(vk, name, text); }

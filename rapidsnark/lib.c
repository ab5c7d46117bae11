/*
 * lib.c — libzkpipe-rapidsnark: rapidsnark's prover.h / verifier.h over zkpipe's CPU Groth16 prover.
 *
 * Only the functions of prover.h and verifier.h are exported (libzkpipe-rapidsnark.map; everything else
 * is built with hidden visibility), so the library can sit beside libzkpipe or rapidsnark's own in one
 * process without symbol clashes. Every entry point turns zkpipe's int codes and thread-local messages
 * into rapidsnark's return codes and error_msg texts; the JSON texts are zkpipe's snarkjs writers
 * re-dumped the way rapidsnark's nlohmann::json dump() prints (compact, keys sorted, no "curve").
 */
#include "prover.h"
#include "verifier.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binfile.h"
#include "g16_json.h"
#include "groth16.h"
#include "wtns.h"
#include "zkey.h"
#include "zp_err.h"

#define EXPORT __attribute__((visibility("default")))

/* rapidsnark's fixed sizes: the proof buffer, and 82 bytes a public signal + 4 */
#define RS_PROOF_SIZE 810ULL
/* The longest proof text + NUL: 95 fixed characters and 8 coordinates of at most 115 decimal digits
 * (BLS12-381's q). What a short buffer is told to grow to for a BLS12-381 key, so that the retry always
 * fits although each proof's length differs (r, s are fresh); BN254's longest (712) is under 810. */
#define RS_PROOF_MAX_BLS12_381 (95ULL + 8 * 115 + 1)
#define RS_PUBLIC_PER_SIGNAL 82ULL
#define RS_PUBLIC_EXTRA 4ULL

typedef struct {
	pthread_mutex_t lock;   /* one proof at a time per zp_g16_prover (groth16.h) */
	zp_zkey zk;
	zp_g16_key key;
	zp_g16_prover pr;
} rs_prover;

static void msg(char *buf, unsigned long long max, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void msg(char *buf, unsigned long long max, const char *fmt, ...)
{
	if (!buf || max == 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, max > (unsigned long long)SIZE_MAX ? SIZE_MAX : (size_t)max, fmt, ap);
	va_end(ap);
}

/* The message of a zkpipe failure: its context text, else the code's name. */
static void msg_rc(char *buf, unsigned long long max, int rc)
{
	msg(buf, max, "%s", zp_err_text(rc));
}

static int public_size_of(const zp_zkey *k, unsigned long long *public_size)
{
	*public_size = (unsigned long long)k->n_public * RS_PUBLIC_PER_SIGNAL + RS_PUBLIC_EXTRA;
	return PROVER_OK;
}

EXPORT int groth16_public_size_for_zkey_buf(const void *zkey_buffer, unsigned long long zkey_size,
					    unsigned long long *public_size, char *error_msg,
					    unsigned long long error_msg_maxsize)
{
	zp_zkey k;
	if (!zkey_buffer || !public_size) {
		msg(error_msg, error_msg_maxsize, "%s", !zkey_buffer ? "Null zkey buffer" : "Null public size");
		return PROVER_ERROR;
	}
	int rc = zp_zkey_probe_buf(&k, zkey_buffer, (size_t)zkey_size, "zkey");
	if (rc) {
		msg_rc(error_msg, error_msg_maxsize, rc);
		return PROVER_ERROR;
	}
	return public_size_of(&k, public_size);
}

EXPORT int groth16_public_size_for_zkey_file(const char *zkey_fname, unsigned long long *public_size,
					     char *error_msg, unsigned long long error_msg_maxsize)
{
	zp_zkey k;
	if (!zkey_fname || !public_size) {
		msg(error_msg, error_msg_maxsize, "%s", !zkey_fname ? "Null zkey file name" : "Null public size");
		return PROVER_ERROR;
	}
	int rc = zp_zkey_probe(&k, zkey_fname);
	if (rc) {
		msg_rc(error_msg, error_msg_maxsize, rc);
		return PROVER_ERROR;
	}
	return public_size_of(&k, public_size);
}

EXPORT void groth16_proof_size(unsigned long long *proof_size)
{
	if (proof_size)
		*proof_size = RS_PROOF_SIZE;
}

static int prover_new(rs_prover **out, const void *data, size_t len, const char *name)
{
	rs_prover *p = calloc(1, sizeof(*p));
	int rc;
	if (!p)
		return zp_err_set(-ENOMEM, "prover object");
	if ((rc = zp_zkey_parse(&p->zk, data, len, name)))
		goto err_free;
	if ((rc = zp_g16_key_init(&p->key, &p->zk, ZP_H_SNARKJS)))
		goto err_zk;
	if ((rc = zp_g16_prover_init(&p->pr, &p->key, NULL)))
		goto err_key;
	pthread_mutex_init(&p->lock, NULL);
	*out = p;
	return 0;
err_key:
	zp_g16_key_free(&p->key);
err_zk:
	zp_zkey_free(&p->zk);
err_free:
	free(p);
	return rc;
}

EXPORT int groth16_prover_create(void **prover_object, const void *zkey_buffer, unsigned long long zkey_size,
				 char *error_msg, unsigned long long error_msg_maxsize)
{
	if (!prover_object || !zkey_buffer) {
		msg(error_msg, error_msg_maxsize, "%s", !prover_object ? "Null prover object" : "Null zkey buffer");
		return PROVER_ERROR;
	}
	if (zkey_size > SIZE_MAX) {
		msg(error_msg, error_msg_maxsize, "zkey: %llu bytes does not fit in memory", zkey_size);
		return PROVER_ERROR;
	}
	int rc = prover_new((rs_prover **)prover_object, zkey_buffer, (size_t)zkey_size, "zkey");
	if (rc) {
		msg_rc(error_msg, error_msg_maxsize, rc);
		return PROVER_ERROR;
	}
	return PROVER_OK;
}

EXPORT int groth16_prover_create_zkey_file(void **prover_object, const char *zkey_file_path, char *error_msg,
					   unsigned long long error_msg_maxsize)
{
	zp_bin_map m;
	if (!prover_object || !zkey_file_path) {
		msg(error_msg, error_msg_maxsize, "%s", !prover_object ? "Null prover object" : "Null zkey file name");
		return PROVER_ERROR;
	}
	int rc = zp_bin_map_file(&m, zkey_file_path);
	if (!rc) {
		/* the key is copied out of the mapping (zp_zkey_parse): unmap at once */
		rc = prover_new((rs_prover **)prover_object, m.data, m.len, zkey_file_path);
		zp_bin_unmap(&m);
	}
	if (rc) {
		msg_rc(error_msg, error_msg_maxsize, rc);
		return PROVER_ERROR;
	}
	return PROVER_OK;
}

EXPORT void groth16_prover_destroy(void *prover_object)
{
	rs_prover *p = prover_object;
	if (!p)
		return;
	zp_g16_prover_free(&p->pr);
	zp_g16_key_free(&p->key);
	zp_zkey_free(&p->zk);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

/* zkpipe's snarkjs text re-dumped as rapidsnark prints it: compact, keys sorted, without the "curve"
 * member snarkjs adds (rapidsnark's proofs carry none). NULL when out of memory. */
static char *rs_dumps(char *snarkjs_text)
{
	json_t *j = snarkjs_text ? json_loads(snarkjs_text, 0, NULL) : NULL;
	free(snarkjs_text);
	if (!j)
		return NULL;
	if (json_is_object(j))
		json_object_del(j, "curve");
	char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	json_decref(j);
	return s;
}

static bool rs_is_bn254(const rs_prover *p)
{
	return zp_zkey_is_bn254(&p->zk);
}

/* The witness checks rapidsnark makes, with its code for a count that differs from the key's. The curve
 * is checked first: a witness of the other curve is a wrong input, not a wrong length. */
static int read_witness(zp_wtns *w, const rs_prover *p, const void *buf, unsigned long long len,
			char *error_msg, unsigned long long max)
{
	int rc = len > SIZE_MAX ? zp_err_set(ZP_ERANGE, "wtns: %llu bytes", len)
				: zp_wtns_parse(w, buf, (size_t)len, "wtns");
	if (rc) {
		msg_rc(error_msg, max, rc);
		return PROVER_ERROR;
	}
	const zp_curve *kc = zp_curve_of(p->zk.curve), *wc = zp_curve_of(w->curve);
	if (kc != wc) {
		msg(error_msg, max, "wtns: a %s witness, the zkey is a %s key: the curves differ", wc->name, kc->name);
		zp_wtns_free(w);
		return PROVER_ERROR;
	}
	if (w->n != p->zk.n_vars) {
		msg(error_msg, max, "Invalid witness length. Circuit: %u, witness: %u", p->zk.n_vars, w->n);
		zp_wtns_free(w);
		return PROVER_INVALID_WITNESS_LENGTH;
	}
	return PROVER_OK;
}

/* Copy text to a caller's buffer of *size bytes; *size = its length. */
static void put(char *dst, unsigned long long *size, const char *text, size_t len)
{
	memcpy(dst, text, len);
	dst[len] = '\0';
	*size = len;
}

static int deliver(const rs_prover *p, char *proof_text, char *public_text, char *proof_buffer,
		   unsigned long long *proof_size, char *public_buffer, unsigned long long *public_size,
		   char *error_msg, unsigned long long max)
{
	if (!proof_text || !public_text) {
		msg(error_msg, max, "out of memory writing the proof's JSON");
		return PROVER_ERROR;
	}
	size_t lp = strlen(proof_text), lu = strlen(public_text);
	unsigned long long need_p = lp + 1ULL, need_u = lu + 1ULL;
	if (*proof_size < need_p || *public_size < need_u) {
		if (!rs_is_bn254(p))   /* rapidsnark reports this proof's size: exact for BN254 */
			need_p = RS_PROOF_MAX_BLS12_381;
		msg(error_msg, max, "Buffer insufficient for generated proof. Required - proof: %llu (provided: %llu), "
		    "public: %llu (provided: %llu)", need_p, *proof_size, need_u, *public_size);
		*proof_size = need_p;
		*public_size = need_u;
		return PROVER_ERROR_SHORT_BUFFER;
	}
	put(proof_buffer, proof_size, proof_text, lp);
	put(public_buffer, public_size, public_text, lu);
	return PROVER_OK;
}

/* rapidsnark's argument checks, in its order. */
static const char *null_arg(const void *prover, const void *wtns, const char *pb, const unsigned long long *ps,
			    const char *ub, const unsigned long long *us)
{
	return !prover ? "Null prover object" : !wtns ? "Null witness buffer" : !pb ? "Null proof buffer"
	     : !ps ? "Null proof size" : !ub ? "Null public buffer" : !us ? "Null public size" : NULL;
}

EXPORT int groth16_prover_prove(void *prover_object, const void *wtns_buffer, unsigned long long wtns_size,
				char *proof_buffer, unsigned long long *proof_size, char *public_buffer,
				unsigned long long *public_size, char *error_msg, unsigned long long error_msg_maxsize)
{
	rs_prover *p = prover_object;
	zp_wtns w;
	zp_g16_proof proof;
	const char *null = null_arg(p, wtns_buffer, proof_buffer, proof_size, public_buffer, public_size);
	if (null) {
		msg(error_msg, error_msg_maxsize, "%s", null);
		return PROVER_ERROR;
	}
	int ret = read_witness(&w, p, wtns_buffer, wtns_size, error_msg, error_msg_maxsize);
	if (ret != PROVER_OK)
		return ret;
	pthread_mutex_lock(&p->lock);
	int rc = zp_g16_prover_prove(&p->pr, &proof, &p->zk.circuit, w.w, w.n, NULL);
	pthread_mutex_unlock(&p->lock);
	if (rc) {
		msg_rc(error_msg, error_msg_maxsize, rc);
		ret = PROVER_ERROR;
	} else {
		char *tp = rs_dumps(zp_g16_proof_dumps(&proof));
		char *tu = rs_dumps(zp_g16_public_dumps_curve(p->zk.curve, w.w + 1, p->zk.n_public));
		ret = deliver(p, tp, tu, proof_buffer, proof_size, public_buffer, public_size, error_msg,
			      error_msg_maxsize);
		free(tp);
		free(tu);
	}
	zp_wtns_free(&w);
	return ret;
}

/* The one-shot calls: prove with p (made for this one proof; made is how making it went), then destroy it. */
static int prove_once(int made, void *p, const void *wtns_buffer, unsigned long long wtns_size, char *proof_buffer,
		      unsigned long long *proof_size, char *public_buffer, unsigned long long *public_size,
		      char *error_msg, unsigned long long error_msg_maxsize)
{
	if (made != PROVER_OK)
		return made;
	int ret = groth16_prover_prove(p, wtns_buffer, wtns_size, proof_buffer, proof_size, public_buffer, public_size,
				       error_msg, error_msg_maxsize);
	groth16_prover_destroy(p);
	return ret;
}

EXPORT int groth16_prover(const void *zkey_buffer, unsigned long long zkey_size, const void *wtns_buffer,
			  unsigned long long wtns_size, char *proof_buffer, unsigned long long *proof_size,
			  char *public_buffer, unsigned long long *public_size, char *error_msg,
			  unsigned long long error_msg_maxsize)
{
	void *p = NULL;
	int made = groth16_prover_create(&p, zkey_buffer, zkey_size, error_msg, error_msg_maxsize);
	return prove_once(made, p, wtns_buffer, wtns_size, proof_buffer, proof_size, public_buffer, public_size,
			  error_msg, error_msg_maxsize);
}

EXPORT int groth16_prover_zkey_file(const char *zkey_file_path, const void *wtns_buffer,
				    unsigned long long wtns_size, char *proof_buffer, unsigned long long *proof_size,
				    char *public_buffer, unsigned long long *public_size, char *error_msg,
				    unsigned long long error_msg_maxsize)
{
	void *p = NULL;
	int made = groth16_prover_create_zkey_file(&p, zkey_file_path, error_msg, error_msg_maxsize);
	return prove_once(made, p, wtns_buffer, wtns_size, proof_buffer, proof_size, public_buffer, public_size,
			  error_msg, error_msg_maxsize);
}

/* ---- verifier.h ---- */

/* A point off its curve or outside its group is a proof that does not verify, not an unreadable one. */
static int verify_code(int rc)
{
	if (rc == 0)
		return VERIFIER_VALID_PROOF;
	return rc == ZP_EVERIFY || rc == ZP_EINVAL_POINT || rc == ZP_ESUBGROUP ? VERIFIER_INVALID_PROOF
									       : VERIFIER_ERROR;
}

/* rapidsnark's proofs carry no "curve": zp_g16_proof_loads_curve gives them the verification key's. A proof
 * that names another curve keeps it and is refused by zp_g16_verify (ZP_EMISMATCH naming both). */
static int proof_loads(zp_g16_proof *pf, const char *text, const zp_curve *cv)
{
	return zp_g16_proof_loads_curve(cv, pf, text, "proof");
}

EXPORT int groth16_verify(const char *proof, const char *inputs, const char *verification_key, char *error_msg,
			  unsigned long error_msg_maxsize)
{
	zp_g16_proof pf;
	zp_g16_vk vk;
	zp_fr *pub = NULL;
	uint32_t n = 0;
	int rc;
	if (!proof || !inputs || !verification_key) {
		msg(error_msg, error_msg_maxsize, "Null %s", !proof ? "proof" : !inputs ? "inputs" : "verification key");
		return VERIFIER_ERROR;
	}
	if ((rc = zp_g16_vk_loads(&vk, verification_key, "verification key"))) {
		msg_rc(error_msg, error_msg_maxsize, rc);
		return VERIFIER_ERROR;   /* a key with a bad point is unusable, not a failed proof */
	}
	if ((rc = proof_loads(&pf, proof, vk.curve)) ||
	    (rc = zp_g16_public_loads_curve(vk.curve, &pub, &n, inputs, "inputs")))
		goto out_vk;
	if (n == 0 || n != vk.n_public)
		rc = zp_err_set(ZP_EMISMATCH, "inputs: %u public inputs, the verification key has %u", n, vk.n_public);
	else
		rc = zp_g16_verify(&vk, &pf, pub, n);
	free(pub);
out_vk:
	zp_g16_vk_free(&vk);
	if (rc && rc != ZP_EVERIFY)
		msg_rc(error_msg, error_msg_maxsize, rc);
	return verify_code(rc);
}

/* fp8.c — eight Fp elements in the IFMA form (fp8.h): pack, unpack, one product over zp_v8_mul. */
#include "fp8.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include "fp_ifma_impl.h"

static zp_fp TO_R416, FROM_R416;   /* Montgomery forms of 2^32 and 2^-32 */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init(void)
{
	zp_fp_from_u64(&TO_R416, 1ull << 32);
	zp_fp_inv(&FROM_R416, &TO_R416);
}

static void from52(uint64_t out[ZP_FP_LIMBS], const uint64_t in[8])
{
	memset(out, 0, ZP_FP_LIMBS * sizeof(uint64_t));
	for (int k = 0; k < 8; k++) {
		unsigned bit = 52u * (unsigned)k, w = bit / 64, s = bit % 64;
		if (w < ZP_FP_LIMBS) out[w] |= in[k] << s;
		if (s > 12 && w + 1 < ZP_FP_LIMBS) out[w + 1] |= in[k] >> (64 - s);
	}
}
/* v < 2q (8 limbs of 52 bits) -> v mod q */
static void reduce52(uint64_t v[8])
{
	uint64_t d[8], borrow = 0;
	for (int k = 0; k < 8; k++) {
		uint64_t t = v[k] - ZP_Q52[k] - borrow;
		borrow = t >> 63;
		d[k] = t & ZP_MASK52;
	}
	if (!borrow) memcpy(v, d, sizeof d);
}

void zp_fp8_pack(zp_fp8 *r, const zp_fp a[8])
{
	pthread_once(&once, init);
	for (int lane = 0; lane < 8; lane++) {
		zp_fp t;
		uint64_t l[8];
		zp_fp_mul(&t, &a[lane], &TO_R416);   /* raw limbs now a·2^416 mod q */
		zp_to52(l, 8, t.l, ZP_FP_LIMBS);
		for (int k = 0; k < 8; k++) r->l[k][lane] = l[k];
	}
}

void zp_fp8_unpack(zp_fp a[8], const zp_fp8 *r)
{
	pthread_once(&once, init);
	for (int lane = 0; lane < 8; lane++) {
		uint64_t l[8];
		zp_fp t;
		for (int k = 0; k < 8; k++) l[k] = r->l[k][lane];
		reduce52(l);
		from52(t.l, l);
		zp_fp_mul(&a[lane], &t, &FROM_R416);
	}
}

IFMA_FN void zp_fp8_mul(zp_fp8 *r, const zp_fp8 *a, const zp_fp8 *b)
{
	__m512i A[8], B[8], R[8];
	for (int k = 0; k < 8; k++) {
		A[k] = _mm512_load_si512((const void *)a->l[k]);
		B[k] = _mm512_load_si512((const void *)b->l[k]);
	}
	zp_v8_mul(R, A, B);
	for (int k = 0; k < 8; k++) _mm512_store_si512((void *)r->l[k], R[k]);
}
#else /* no IFMA form here: callers check zp_fp_ifma_available() first */
void zp_fp8_pack(zp_fp8 *r, const zp_fp a[8]) { (void)r; (void)a; abort(); }
void zp_fp8_unpack(zp_fp a[8], const zp_fp8 *r) { (void)a; (void)r; abort(); }
void zp_fp8_mul(zp_fp8 *r, const zp_fp8 *a, const zp_fp8 *b) { (void)r; (void)a; (void)b; abort(); }
#endif

/*
 * field_impl.h — internal to common/: fast inline Fp/Fr arithmetic for hot loops
 * (MSM buckets, NTT butterflies). Not a public header; field.h is the API.
 *
 * Two implementations of Montgomery multiplication exist on x86-64:
 *   portable  field.c's CIOS on unsigned __int128 (zp_fp_mul_portable);
 *   adx       the same CIOS in inline assembly with MULX and two carry chains
 *             (ADCX on CF, ADOX on OF), needing the BMI2 and ADX extensions.
 * field_x86.c sets zp_field_adx once at program start from CPUID (and from
 * ZP_FIELD_PORTABLE=1 in the environment, which forces the portable path).
 * Before that constructor runs the flag is false, which is always correct.
 *
 * Dispatch: zp_fp_mul_fast() tests the flag and inlines the asm; in a hot loop
 * the branch is perfectly predicted, so it costs nothing measurable, and the
 * assembler accepts MULX/ADX whatever -march says (it is the CPU that must have
 * them, hence the flag). Both paths give bit-identical, fully reduced results.
 *
 * Both moduli leave their top bit clear with room to spare (q < 2^381, r < 2^255),
 * so the CIOS "no final carry" variant applies: after each row the running value
 * is < 2p and fits n words plus one, and a single conditional subtraction at the
 * end reduces it.
 */
#ifndef ZP_FIELD_IMPL_H
#define ZP_FIELD_IMPL_H

#include "field.h"
#include "fp2.h"
#include "bn254.h"

#include <stdbool.h>
#include <stdint.h>

#define ZP_FINLINE static inline __attribute__((always_inline))

/* field.c's portable versions, reachable whatever the dispatch says (tests). */
void zp_fp_mul_portable(zp_fp *r, const zp_fp *a, const zp_fp *b);
void zp_fr_mul_portable(zp_fr *r, const zp_fr *a, const zp_fr *b);
void zp_bn254_fp_mul_portable(zp_bn254_fp *r, const zp_bn254_fp *a, const zp_bn254_fp *b);
void zp_bn254_fr_mul_portable(zp_bn254_fr *r, const zp_bn254_fr *a, const zp_bn254_fr *b);

/* true when the MULX/ADX path is in use; written once before main() (field_x86.c). */
extern bool zp_field_adx;
/* Force a path (tests, benchmarks): false = portable; true = adx if the CPU has it.
 * Returns the resulting state. Not thread-safe against concurrent arithmetic. */
bool zp_field_set_adx(bool on);
/* True if the CPU supports BMI2 and ADX (independent of the current setting). */
bool zp_field_cpu_has_adx(void);

/* ---- conditional subtraction of the modulus: r = t >= p ? t - p : t ---- */
ZP_FINLINE void zp_reduce6(uint64_t r[6], const uint64_t t[6], const uint64_t p[6])
{
	unsigned __int128 d;
	uint64_t s[6], borrow = 0;
	for (int i = 0; i < 6; i++) {
		d = (unsigned __int128)t[i] - p[i] - borrow;
		s[i] = (uint64_t)d;
		borrow = (uint64_t)(d >> 64) & 1;
	}
	uint64_t keep = (uint64_t)0 - borrow;    /* all-ones if t < p */
	for (int i = 0; i < 6; i++)
		r[i] = (t[i] & keep) | (s[i] & ~keep);
}

ZP_FINLINE void zp_fp_add_fast(zp_fp *r, const zp_fp *a, const zp_fp *b)
{
	uint64_t t[6], c = 0;
	for (int i = 0; i < 6; i++) {
		unsigned __int128 s = (unsigned __int128)a->l[i] + b->l[i] + c;
		t[i] = (uint64_t)s;
		c = (uint64_t)(s >> 64);
	}
	zp_reduce6(r->l, t, ZP_FP_MODULUS);   /* a + b < 2q < 2^384: no carry out */
}

ZP_FINLINE void zp_fp_sub_fast(zp_fp *r, const zp_fp *a, const zp_fp *b)
{
	uint64_t t[6], borrow = 0;
	for (int i = 0; i < 6; i++) {
		unsigned __int128 d = (unsigned __int128)a->l[i] - b->l[i] - borrow;
		t[i] = (uint64_t)d;
		borrow = (uint64_t)(d >> 64) & 1;
	}
	uint64_t mask = (uint64_t)0 - borrow, c = 0;
	for (int i = 0; i < 6; i++) {
		unsigned __int128 s = (unsigned __int128)t[i] + (ZP_FP_MODULUS[i] & mask) + c;
		r->l[i] = (uint64_t)s;
		c = (uint64_t)(s >> 64);
	}
}

/* The MULX/ADX asm below needs 14 general registers besides rsp. AddressSanitizer builds keep
 * the frame pointer (meson adds -fno-omit-frame-pointer) and more: gcc rejects the asm
 * ("impossible constraints"), clang too ("requires more registers than available"). Those
 * builds take the portable multiplication, as does any build with -DZP_FIELD_NO_ASM; the
 * run-time flag then stays false (zp_field_cpu_has_adx() = false), which also turns off ntt.c's
 * MULX path. */
#if !defined(ZP_FIELD_NO_ASM) && defined(__SANITIZE_ADDRESS__)
#define ZP_FIELD_NO_ASM 1 /* gcc */
#endif
#if !defined(ZP_FIELD_NO_ASM) && defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ZP_FIELD_NO_ASM 1 /* clang */
#endif
#endif

#if defined(__x86_64__) && !defined(ZP_FIELD_NO_ASM)
#define ZP_FIELD_HAVE_ASM 1
#include <x86intrin.h> /* _subborrow_u64: gcc and clang alike */

/* Modulus words then -p^-1 mod 2^64, the layout the asm reads. */
extern const uint64_t zp_fp_asm_consts[7];
extern const uint64_t zp_fr_asm_consts[5];

/*
 * One CIOS row for limb OFF of b, on running value T0..T(n-1) (n words) with Z a
 * register holding 0 that becomes the top word. Flags: xor clears CF and OF.
 */
#define ZP_ASM_MULADD(OFF, T0, T1) \
	"mulxq " OFF "(%[a]), %[lo], %[hi]\n\tadcxq %[lo], " T0 "\n\tadoxq %[hi], " T1 "\n\t"
#define ZP_ASM_REDADD(OFF, T0, T1) \
	"mulxq " OFF "(%[q]), %[lo], %[hi]\n\tadcxq %[lo], " T0 "\n\tadoxq %[hi], " T1 "\n\t"
/* Reduction step on T0..T6 (7 words); leaves T0 = 0 (it becomes the next Z). */
#define ZP_ASM_RED6(T0, T1, T2, T3, T4, T5, T6) \
	"movq " T0 ", %%rdx\n\tmulxq 48(%[q]), %%rdx, %[hi]\n\t" \
	"xorl %k[lo], %k[lo]\n\t" \
	ZP_ASM_REDADD("0", T0, T1) ZP_ASM_REDADD("8", T1, T2) ZP_ASM_REDADD("16", T2, T3) \
	ZP_ASM_REDADD("24", T3, T4) ZP_ASM_REDADD("32", T4, T5) ZP_ASM_REDADD("40", T5, T6) \
	"movq $0, %[lo]\n\tadcxq %[lo], " T6 "\n\t"
/* Multiply row i >= 1: T0..T5 += a * b[i], top word into Z (which is 0). */
#define ZP_ASM_ROW6(OFF, T0, T1, T2, T3, T4, T5, Z) \
	"movq " OFF "(%[b]), %%rdx\n\txorl %k[lo], %k[lo]\n\t" \
	ZP_ASM_MULADD("0", T0, T1) ZP_ASM_MULADD("8", T1, T2) ZP_ASM_MULADD("16", T2, T3) \
	ZP_ASM_MULADD("24", T3, T4) ZP_ASM_MULADD("32", T4, T5) ZP_ASM_MULADD("40", T5, Z) \
	"movq $0, %[lo]\n\tadcxq %[lo], " Z "\n\t"

#define R0 "%[r0]"
#define R1 "%[r1]"
#define R2 "%[r2]"
#define R3 "%[r3]"
#define R4 "%[r4]"
#define R5 "%[r5]"
#define R6 "%[r6]"
/* Row 0 of a product, its first four words (both the 6-word and the 4-word products): a[0..3]·b[0]
 * into R0..R4, the carry into R4 pending (the caller's next adcq takes it) */
#define ZP_ASM_ROW0_4 \
	"movq 0(%[b]), %%rdx\n\t" \
	"mulxq 0(%[a]), " R0 ", " R1 "\n\t" \
	"mulxq 8(%[a]), %[lo], " R2 "\n\taddq %[lo], " R1 "\n\t" \
	"mulxq 16(%[a]), %[lo], " R3 "\n\tadcq %[lo], " R2 "\n\t" \
	"mulxq 24(%[a]), %[lo], " R4 "\n\tadcq %[lo], " R3 "\n\t"

/* r = a*b/2^384 mod q, inputs fully reduced. Needs BMI2+ADX at run time. The final
 * conditional subtraction is an SBB chain and selects (an __int128 loop compiles to about
 * twice the instructions). */
ZP_FINLINE void zp_fp_mul_adx(zp_fp *r, const zp_fp *a, const zp_fp *b)
{
	uint64_t r0, r1, r2, r3, r4, r5, r6, lo, hi, dx;
	__asm__(
		/* row 0: plain product a * b[0] into R0..R6 */
		ZP_ASM_ROW0_4
		"mulxq 32(%[a]), %[lo], " R5 "\n\tadcq %[lo], " R4 "\n\t"
		"mulxq 40(%[a]), %[lo], " R6 "\n\tadcq %[lo], " R5 "\n\t"
		"adcq $0, " R6 "\n\t"
		ZP_ASM_RED6(R0, R1, R2, R3, R4, R5, R6)
		ZP_ASM_ROW6("8", R1, R2, R3, R4, R5, R6, R0)
		ZP_ASM_RED6(R1, R2, R3, R4, R5, R6, R0)
		ZP_ASM_ROW6("16", R2, R3, R4, R5, R6, R0, R1)
		ZP_ASM_RED6(R2, R3, R4, R5, R6, R0, R1)
		ZP_ASM_ROW6("24", R3, R4, R5, R6, R0, R1, R2)
		ZP_ASM_RED6(R3, R4, R5, R6, R0, R1, R2)
		ZP_ASM_ROW6("32", R4, R5, R6, R0, R1, R2, R3)
		ZP_ASM_RED6(R4, R5, R6, R0, R1, R2, R3)
		ZP_ASM_ROW6("40", R5, R6, R0, R1, R2, R3, R4)
		ZP_ASM_RED6(R5, R6, R0, R1, R2, R3, R4)
		: [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3),
		  [r4] "=&r"(r4), [r5] "=&r"(r5), [r6] "=&r"(r6), [lo] "=&r"(lo),
		  [hi] "=&r"(hi), "=&d"(dx)
		: [a] "r"(a->l), [b] "r"(b->l), [q] "r"(zp_fp_asm_consts),
		  "m"(*(const uint64_t(*)[6])a->l), "m"(*(const uint64_t(*)[6])b->l),
		  "m"(*(const uint64_t(*)[7])zp_fp_asm_consts)
		: "cc");
	(void)r5; (void)lo; (void)hi; (void)dx;
	unsigned long long t[6] = { r6, r0, r1, r2, r3, r4 }, u[6];
	unsigned char br = 0;
	for (int i = 0; i < 6; i++)
		br = _subborrow_u64(br, t[i], ZP_FP_MODULUS[i], &u[i]);
	for (int i = 0; i < 6; i++)
		r->l[i] = br ? t[i] : u[i];
}

/* 4-limb Fr version: same scheme, rows of 4. */
#define ZP_ASM_RED4(T0, T1, T2, T3, T4) \
	"movq " T0 ", %%rdx\n\tmulxq 32(%[q]), %%rdx, %[hi]\n\t" \
	"xorl %k[lo], %k[lo]\n\t" \
	ZP_ASM_REDADD("0", T0, T1) ZP_ASM_REDADD("8", T1, T2) ZP_ASM_REDADD("16", T2, T3) \
	ZP_ASM_REDADD("24", T3, T4) \
	"movq $0, %[lo]\n\tadcxq %[lo], " T4 "\n\t"
#define ZP_ASM_ROW4(OFF, T0, T1, T2, T3, Z) \
	"movq " OFF "(%[b]), %%rdx\n\txorl %k[lo], %k[lo]\n\t" \
	ZP_ASM_MULADD("0", T0, T1) ZP_ASM_MULADD("8", T1, T2) ZP_ASM_MULADD("16", T2, T3) \
	ZP_ASM_MULADD("24", T3, Z) \
	"movq $0, %[lo]\n\tadcxq %[lo], " Z "\n\t"

/* r = a*b/2^256 mod m for any 4-limb modulus m < 2^255 - 2^64 (BLS12-381's Fr, BN254's Fp and Fr):
 * pc = m's four words then -m^-1 mod 2^64 (the *_asm_consts layout). Needs BMI2+ADX at run time. */
ZP_FINLINE void zp_mont4_mul_adx(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *pc)
{
	uint64_t r0, r1, r2, r3, r4, lo, hi, dx;
	__asm__(
		ZP_ASM_ROW0_4
		"adcq $0, " R4 "\n\t"
		ZP_ASM_RED4(R0, R1, R2, R3, R4)
		ZP_ASM_ROW4("8", R1, R2, R3, R4, R0)
		ZP_ASM_RED4(R1, R2, R3, R4, R0)
		ZP_ASM_ROW4("16", R2, R3, R4, R0, R1)
		ZP_ASM_RED4(R2, R3, R4, R0, R1)
		ZP_ASM_ROW4("24", R3, R4, R0, R1, R2)
		ZP_ASM_RED4(R3, R4, R0, R1, R2)
		: [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3),
		  [r4] "=&r"(r4), [lo] "=&r"(lo), [hi] "=&r"(hi), "=&d"(dx)
		: [a] "r"(a), [b] "r"(b), [q] "r"(pc),
		  "m"(*(const uint64_t(*)[4])a), "m"(*(const uint64_t(*)[4])b),
		  "m"(*(const uint64_t(*)[5])pc)
		: "cc");
	(void)r3; (void)lo; (void)hi; (void)dx;
	uint64_t t[4] = { r4, r0, r1, r2 }, s[4], borrow = 0;
	for (int i = 0; i < 4; i++) {
		unsigned __int128 d = (unsigned __int128)t[i] - pc[i] - borrow;
		s[i] = (uint64_t)d;
		borrow = (uint64_t)(d >> 64) & 1;
	}
	uint64_t keep = (uint64_t)0 - borrow;
	for (int i = 0; i < 4; i++)
		r[i] = (t[i] & keep) | (s[i] & ~keep);
}

ZP_FINLINE void zp_fr_mul_adx(zp_fr *r, const zp_fr *a, const zp_fr *b)
{
	zp_mont4_mul_adx(r->l, a->l, b->l, zp_fr_asm_consts);
}

#undef R0
#undef R1
#undef R2
#undef R3
#undef R4
#undef R5
#undef R6

ZP_FINLINE void zp_fp_mul_fast(zp_fp *r, const zp_fp *a, const zp_fp *b)
{
	if (__builtin_expect(zp_field_adx, 1))
		zp_fp_mul_adx(r, a, b);
	else
		zp_fp_mul_portable(r, a, b);
}

ZP_FINLINE void zp_fr_mul_fast(zp_fr *r, const zp_fr *a, const zp_fr *b)
{
	if (__builtin_expect(zp_field_adx, 1))
		zp_fr_mul_adx(r, a, b);
	else
		zp_fr_mul_portable(r, a, b);
}

/* BN254 (bn254.h): both fields on the same 4-limb code, their own constants. */
extern const uint64_t zp_bn254_fp_asm_consts[5];
extern const uint64_t zp_bn254_fr_asm_consts[5];
ZP_FINLINE void zp_bn254_fp_mul_fast(zp_bn254_fp *r, const zp_bn254_fp *a, const zp_bn254_fp *b)
{
	if (__builtin_expect(zp_field_adx, 1))
		zp_mont4_mul_adx(r->l, a->l, b->l, zp_bn254_fp_asm_consts);
	else
		zp_bn254_fp_mul_portable(r, a, b);
}
ZP_FINLINE void zp_bn254_fr_mul_fast(zp_bn254_fr *r, const zp_bn254_fr *a, const zp_bn254_fr *b)
{
	if (__builtin_expect(zp_field_adx, 1))
		zp_mont4_mul_adx(r->l, a->l, b->l, zp_bn254_fr_asm_consts);
	else
		zp_bn254_fr_mul_portable(r, a, b);
}

#else /* !__x86_64__ or ZP_FIELD_NO_ASM */
#define ZP_FIELD_HAVE_ASM 0
ZP_FINLINE void zp_bn254_fp_mul_fast(zp_bn254_fp *r, const zp_bn254_fp *a, const zp_bn254_fp *b) { zp_bn254_fp_mul_portable(r, a, b); }
ZP_FINLINE void zp_bn254_fr_mul_fast(zp_bn254_fr *r, const zp_bn254_fr *a, const zp_bn254_fr *b) { zp_bn254_fr_mul_portable(r, a, b); }
ZP_FINLINE void zp_fp_mul_fast(zp_fp *r, const zp_fp *a, const zp_fp *b) { zp_fp_mul_portable(r, a, b); }
ZP_FINLINE void zp_fr_mul_fast(zp_fr *r, const zp_fr *a, const zp_fr *b) { zp_fr_mul_portable(r, a, b); }
#endif

ZP_FINLINE void zp_fp_sqr_fast(zp_fp *r, const zp_fp *a) { zp_fp_mul_fast(r, a, a); }
/* Historical names used by msm.c: the same functions. */
#define zp_fp_mulc zp_fp_mul_fast
#define zp_fp_sqrc zp_fp_sqr_fast

/*
 * Add and subtract written with the carry intrinsics (plain ADC/SBB chains, any
 * x86-64): same results as zp_fp_add_fast/zp_fp_sub_fast, about 2-3× fewer cycles
 * than the __int128 loops. zp_fp_addc/zp_fp_subc pick them where available.
 */
#if defined(__x86_64__)
#include <immintrin.h>
ZP_FINLINE void zp_fp_addc(zp_fp *r, const zp_fp *a, const zp_fp *b)
{
	unsigned long long t[6], s[6];
	unsigned char c = 0, br = 0;
	for (int i = 0; i < 6; i++)
		c = _addcarry_u64(c, a->l[i], b->l[i], &t[i]);
	for (int i = 0; i < 6; i++)
		br = _subborrow_u64(br, t[i], ZP_FP_MODULUS[i], &s[i]);
	/* a + b < 2q < 2^384, so c = 0; t < q iff the subtraction borrowed */
	for (int i = 0; i < 6; i++)
		r->l[i] = br ? t[i] : s[i];
	(void)c;
}
ZP_FINLINE void zp_fp_subc(zp_fp *r, const zp_fp *a, const zp_fp *b)
{
	unsigned long long t[6], m[6];
	unsigned char br = 0, c = 0;
	for (int i = 0; i < 6; i++)
		br = _subborrow_u64(br, a->l[i], b->l[i], &t[i]);
	uint64_t mask = (uint64_t)0 - br;
	for (int i = 0; i < 6; i++)
		m[i] = ZP_FP_MODULUS[i] & mask;
	for (int i = 0; i < 6; i++)
		c = _addcarry_u64(c, t[i], m[i], (unsigned long long *)&r->l[i]);
}
/* The same for a 4-limb modulus m < 2^255 (a + b never carries out): BN254's MSM and tower. */
ZP_FINLINE void zp_mod4_addc(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m)
{
	unsigned long long t[4], s[4];
	unsigned char c = 0, br = 0;
	for (int i = 0; i < 4; i++)
		c = _addcarry_u64(c, a[i], b[i], &t[i]);
	for (int i = 0; i < 4; i++)
		br = _subborrow_u64(br, t[i], m[i], &s[i]);
	for (int i = 0; i < 4; i++)
		r[i] = br ? t[i] : s[i];
	(void)c;
}
ZP_FINLINE void zp_mod4_subc(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m)
{
	unsigned long long t[4], k[4];
	unsigned char br = 0, c = 0;
	for (int i = 0; i < 4; i++)
		br = _subborrow_u64(br, a[i], b[i], &t[i]);
	uint64_t mask = (uint64_t)0 - br;
	for (int i = 0; i < 4; i++)
		k[i] = m[i] & mask;
	for (int i = 0; i < 4; i++)
		c = _addcarry_u64(c, t[i], k[i], (unsigned long long *)&r[i]);
}
#else
ZP_FINLINE void zp_mod4_addc(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m)
{
	unsigned __int128 s; uint64_t t[4], d[4], c = 0, br = 0;
	for (int i = 0; i < 4; i++) { s = (unsigned __int128)a[i] + b[i] + c; t[i] = (uint64_t)s; c = (uint64_t)(s >> 64); }
	for (int i = 0; i < 4; i++) { s = (unsigned __int128)t[i] - m[i] - br; d[i] = (uint64_t)s; br = (uint64_t)(s >> 64) & 1; }
	for (int i = 0; i < 4; i++) r[i] = br ? t[i] : d[i];
}
ZP_FINLINE void zp_mod4_subc(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m)
{
	unsigned __int128 s; uint64_t t[4], br = 0, c = 0;
	for (int i = 0; i < 4; i++) { s = (unsigned __int128)a[i] - b[i] - br; t[i] = (uint64_t)s; br = (uint64_t)(s >> 64) & 1; }
	for (int i = 0; i < 4; i++) { s = (unsigned __int128)t[i] + (m[i] & (0 - br)) + c; r[i] = (uint64_t)s; c = (uint64_t)(s >> 64); }
}
#endif
#if defined(__x86_64__)
#else
ZP_FINLINE void zp_fp_addc(zp_fp *r, const zp_fp *a, const zp_fp *b) { zp_fp_add_fast(r, a, b); }
ZP_FINLINE void zp_fp_subc(zp_fp *r, const zp_fp *a, const zp_fp *b) { zp_fp_sub_fast(r, a, b); }
#endif

#endif

/*
 * host_field.cuh — a CPU field with the interface cuda/'s point formulas use (zero, one, is_zero, ==, +, -,
 * *, sqr, dbl, neg), for the emulation tests that run those formulas on the host (ec_emul.cu,
 * subgroup_emul.cu). NAME the type, T the CPU type, P its functions' prefix, SQR the square it uses.
 */
#ifndef ZP_TESTS_HOST_FIELD_CUH
#define ZP_TESTS_HOST_FIELD_CUH

#define HOST_FIELD(NAME, T, P, ZERO, ONE, SQR)                                                               \
	struct NAME {                                                                                        \
		T v;                                                                                         \
		static NAME zero() { NAME r; r.v = ZERO; return r; }                                          \
		static NAME one() { NAME r; r.v = ONE; return r; }                                            \
		bool is_zero() const { return P##_is_zero(&v); }                                              \
		bool operator==(const NAME &b) const { return P##_eq(&v, &b.v); }                              \
		friend NAME operator+(const NAME &a, const NAME &b) { NAME r; P##_add(&r.v, &a.v, &b.v); return r; } \
		friend NAME operator-(const NAME &a, const NAME &b) { NAME r; P##_sub(&r.v, &a.v, &b.v); return r; } \
		friend NAME operator*(const NAME &a, const NAME &b) { NAME r; P##_mul(&r.v, &a.v, &b.v); return r; } \
		NAME sqr() const { NAME r; SQR(&r.v, &v); return r; }                                         \
		NAME dbl() const { NAME r; P##_dbl(&r.v, &v); return r; }                                     \
		NAME neg() const { NAME r; P##_neg(&r.v, &v); return r; }                                     \
	};

#endif

/* Group laws of G1 and G2 on fresh random points: commutativity, associativity,
 * identity and inverses, doubling vs addition across coordinate systems, mixed vs
 * full addition, XYZZ vs Jacobian, scalar multiplication identities, batch to affine. */
#include "ec_test.h"

#define T_G g1
#define T_RANDOM ec_test_g1_random
#define T_ON_CURVE ec_test_g1_on_curve
#include "test_ec_laws.tmpl.h"
#undef T_G
#undef T_RANDOM
#undef T_ON_CURVE

#define T_G g2
#define T_RANDOM ec_test_g2_random
#define T_ON_CURVE ec_test_g2_on_curve
#include "test_ec_laws.tmpl.h"
#undef T_G
#undef T_RANDOM
#undef T_ON_CURVE

int main(int argc, char **argv)
{
	zp_rng g;
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 0x1a3e5;
	zp_rng_seed(&g, seed);
	laws_g1(&g, 20);
	laws_g2(&g, 10);
	return ec_test_result("ec_laws");
}

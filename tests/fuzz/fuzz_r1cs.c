/* libFuzzer target: zp_r1cs_parse on arbitrary bytes must return an error or a valid
 * structure — never crash, leak or read out of bounds (run with ASan/UBSan: run.sh). */
#include <stddef.h>
#include <stdint.h>

#include "r1cs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	zp_r1cs x;
	if (zp_r1cs_parse(&x, data, size, "fuzz.r1cs") == 0)
		zp_r1cs_free(&x);
	return 0;
}

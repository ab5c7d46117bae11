/* libFuzzer target: zp_zkey_parse on arbitrary bytes must return an error or a valid
 * structure — never crash, leak or read out of bounds (run with ASan/UBSan: run.sh). */
#include <stddef.h>
#include <stdint.h>

#include "zkey.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	zp_zkey x;
	if (zp_zkey_parse(&x, data, size, "fuzz.zkey") == 0)
		zp_zkey_free(&x);
	return 0;
}

/* libFuzzer target: zp_wtns_parse on arbitrary bytes must return an error or a valid
 * structure — never crash, leak or read out of bounds (run with ASan/UBSan: run.sh). */
#include <stddef.h>
#include <stdint.h>

#include "wtns.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	zp_wtns x;
	if (zp_wtns_parse(&x, data, size, "fuzz.wtns") == 0)
		zp_wtns_free(&x);
	return 0;
}

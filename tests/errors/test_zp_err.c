/* common/zp_err.c: context messages are never doubled or cut without saying so.
 *   - a message wrapped in context by passing zp_err_msg() to zp_err_set (the CUDA backend's kalloc does)
 *     reads "<context>: <inner>": the inner text once, not a garbled copy of the context;
 *   - the ": <strerror>" tail is not added to a text that ends with it already;
 *   - zp_err_wrap (moved here from pipeline/sys.c) prefixes once: a message that starts with the prefix
 *     already keeps one;
 *   - a message longer than the buffer ends in "...", and the buffer holds a 2^27 key's chain whole. */
#include <errno.h>
#include <string.h>

#include "../common/zp_test.h"
#include "zp_err.h"

static int count(const char *s, const char *what)
{
	int n = 0;
	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

int main(void)
{
	/* the chain of the issue: cuda/keep.cu's error, wrapped by backend_cuda.c's kalloc with zp_err_msg() */
	zp_err_set(-ENOMEM, "kept device memory: %s: %s (%d)", "cuMemCreate", "out of memory", 2);
	CHECK(!strcmp(zp_err_msg(), "kept device memory: cuMemCreate: out of memory (2): Cannot allocate memory"), "inner: %s",
	      zp_err_msg());
	zp_err_set(-ENOMEM, "CUDA backend: %s (%zu bytes, kept on the device): %s", "the key kept on the device",
		   (size_t)12508831584ull, zp_err_msg());
	const char *want = "CUDA backend: the key kept on the device (12508831584 bytes, kept on the device): kept device memory: "
			   "cuMemCreate: out of memory (2): Cannot allocate memory";
	CHECK(!strcmp(zp_err_msg(), want), "wrapped with zp_err_msg() as an argument:\n  got  %s\n  want %s", zp_err_msg(), want);
	CHECK(count(zp_err_msg(), "CUDA backend") == 1 && count(zp_err_msg(), "Cannot allocate memory") == 1,
	      "doubled: %s", zp_err_msg());

	/* zp_err_wrap: once, whatever the depth */
	zp_err_clear();
	zp_err_wrap(-ENOMEM, "key %s", "porep");
	CHECK(!strcmp(zp_err_msg(), "key porep: Cannot allocate memory"), "wrap with no message: %s", zp_err_msg());
	zp_err_set(ZP_ERANGE, "plan: needs %d GiB, the card has %d", 30, 24);
	zp_err_wrap(ZP_ERANGE, "CUDA backend");
	zp_err_wrap(ZP_ERANGE, "CUDA backend");
	zp_err_wrap(ZP_ERANGE, "key %s", "porep");
	zp_err_wrap(ZP_ERANGE, "key %s", "porep");
	want = "key porep: CUDA backend: plan: needs 30 GiB, the card has 24: parameter out of range";
	CHECK(!strcmp(zp_err_msg(), want), "wrap:\n  got  %s\n  want %s", zp_err_msg(), want);
	zp_err_set(ZP_ERANGE, "CUDA backendX: y");
	zp_err_wrap(ZP_ERANGE, "CUDA backend");
	CHECK(!strcmp(zp_err_msg(), "CUDA backend: CUDA backendX: y: parameter out of range"), "a longer word is no prefix: %s",
	      zp_err_msg());

	/* too long: cut, and said to be */
	char big[3000];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = 0;
	zp_err_set(-EIO, "%s", big);
	size_t n = strlen(zp_err_msg());
	CHECK(n == ZP_ERR_MSG_MAX - 1 && !strcmp(zp_err_msg() + n - 3, "..."), "cut: %zu bytes, ends %s", n, zp_err_msg() + n - 8);
	zp_err_set(-EIO, "%s", zp_err_msg());
	CHECK(strlen(zp_err_msg()) == ZP_ERR_MSG_MAX - 1, "re-set of a full message: %zu", strlen(zp_err_msg()));

	/* zp_err_text: the message when one is set, else the code's name; never NULL */
	zp_err_clear();
	CHECK(!strcmp(zp_err_text(-ENOENT), zp_strerror(-ENOENT)), "no message: %s", zp_err_text(-ENOENT));
	CHECK(!strcmp(zp_err_text(ZP_EFORMAT), zp_strerror(ZP_EFORMAT)), "no message: %s", zp_err_text(ZP_EFORMAT));
	zp_err_set(ZP_EFORMAT, "k.zkey: section 2");
	CHECK(!strcmp(zp_err_text(ZP_EFORMAT), zp_err_msg()) && strstr(zp_err_text(-EIO), "k.zkey: section 2"),
	      "with a message: %s", zp_err_text(ZP_EFORMAT));
	CHECK(zp_err_text(12345) != NULL, "an unknown code");
	return zp_test_done("zp_err", NULL);
}

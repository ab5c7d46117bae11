/* libFuzzer target: the snarkjs JSON readers (proof.json, public.json, verification_key.json)
 * on arbitrary bytes (given to them as a file through a memfd) — errors, never crashes. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "g16_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz.json", 0);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	zp_g16_proof p;
	zp_g16_vk vk;
	zp_fr *pub;
	uint32_t n;
	zp_g16_proof_read_json(&p, path);
	if (zp_g16_public_read_json(&pub, &n, path) == 0)
		free(pub);
	if (zp_g16_vk_read_json(&vk, path) == 0)
		zp_g16_vk_free(&vk);
	close(fd);
	return 0;
}

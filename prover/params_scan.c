/*
 * params_scan.c — a .params file's count fields alone (params.h): what the Filecoin client library
 * checks in the caller's process before copying a partition, and what gpud sizes a key by. Kept
 * apart from params.c (the decoder) so the client library links only this and common/.
 */
#include "params.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zp_err.h"

/* Point sizes in a .params file: uncompressed zcash encoding. */
#define G1B 96u
#define G2B 192u

int zp_params_scan(const char *path, zp_params_info *in)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return zp_err_set(-errno, "key not found: %s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st)) {
		int e = -errno;
		close(fd);
		return zp_err_set(e, "%s", path);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return zp_err_set(-EISDIR, "%s: not a regular file", path);
	}
	uint64_t size = (uint64_t)st.st_size, cur = 3 * G1B + 3 * G2B;
	static const char *const names[6] = { "IC", "h", "l", "a", "b_g1", "b_g2" };
	uint32_t *counts[6] = { &in->n_ic, &in->n_h, &in->n_l, &in->n_a, &in->n_b1, &in->n_b2 };
	uint64_t *offs[6] = { &in->off_ic, &in->off_h, &in->off_l, &in->off_a, &in->off_b1, &in->off_b2 };
	int rc = 0;
	for (int i = 0; i < 6 && !rc; i++) {
		uint8_t b[4];
		if (cur + 4 > size || pread(fd, b, 4, (off_t)cur) != 4) {
			rc = zp_err_set(ZP_ETRUNC, "%s: not a .params file: it ends (%" PRIu64 " bytes) before the %s count",
					path, size, names[i]);
			break;
		}
		*counts[i] = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
		cur += 4;
		*offs[i] = cur;
		cur += (uint64_t)*counts[i] * (i == 5 ? G2B : G1B);
	}
	close(fd);
	if (rc)
		return rc;
	if (cur != size)
		return zp_err_set(cur > size ? ZP_ETRUNC : ZP_EFORMAT,
				  "%s: not a .params file (or damaged): its counts make %" PRIu64 " bytes, the file has %" PRIu64,
				  path, cur, size);
	in->file_bytes = size;
	in->domain = (uint64_t)in->n_h + 1;
	if (in->n_ic < 1 || in->n_h < 1 || (in->domain & (in->domain - 1)) || in->n_b1 != in->n_b2)
		return zp_err_set(ZP_EFORMAT, "%s: not a bellperson key: IC %u, h %u (domain − 1), b_g1 %u, b_g2 %u", path,
				  in->n_ic, in->n_h, in->n_b1, in->n_b2);
	return 0;
}

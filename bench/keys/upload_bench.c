/*
 * upload_bench — a key region's bytes to the GPU, each way cuda/upload.c has (zp_cuda_upload: WHOLE =
 * register then copy, PIN = register piece i+1 while piece i goes up, RING = memcpy through pinned bounce
 * buffers), on a hugetlbfs key region of GIB GiB filled with a pattern (the backing a restarted gpud reads).
 *   upload_bench GIB [REPS]     prints one table: way, piece size, threads, streams, median s, GB/s, and the
 *                               pinning / unpinning time where there is one; every run's device bytes are
 *                               checked against the region at 256 random places (a wrong copy fails).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keyregion.h"
#include "par.h"
#include "zp_cuda.h"
#include "zp_err.h"

static uint64_t pat(uint64_t i) { return i * 0x9e3779b97f4a7c15ull ^ (i >> 7); }

struct fill { uint64_t *p; size_t words; };

static void fill_task(void *vx, size_t i, int w)
{
	(void)w;
	struct fill *f = vx;
	size_t per = (size_t)1 << 18, lo = i * per, hi = lo + per < f->words ? lo + per : f->words;
	for (size_t k = lo; k < hi; k++)
		f->p[k] = pat(k);
}

static int verify(const uint8_t *d, const uint64_t *h, size_t words)
{
	uint64_t buf[512], x = 88172645463325252ull;
	for (int r = 0; r < 256; r++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t at = words > 512 ? (size_t)(x % (words - 512)) : 0, n = words < 512 ? words : 512;
		if (zp_cuda_copy_to_host(buf, d + at * 8, n * 8, NULL))
			return -1;
		if (memcmp(buf, h + at, n * 8))
			return 1;
	}
	return 0;
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: upload_bench GIB [REPS]\n");
		return 2;
	}
	size_t bytes = (size_t)(atof(argv[1]) * 1073741824.0) & ~(size_t)4095;
	int reps = argc > 2 ? atoi(argv[2]) : 3;
	char desc[160];
	if (zp_cuda_probe("upload_bench", desc, sizeof desc)) {
		fprintf(stderr, "%s: skipped\n", zp_err_msg());
		return 77;
	}
	struct zp_keyregion_params rp = { .name = "upload-bench", .key = "bench", .format = "bench", .curve = "none",
					  .n_sections = 1 };
	rp.sect[0].name = "data";
	rp.sect[0].bytes = bytes;
	zp_keyregion r;
	zp_keyregion_remove(rp.name, NULL);
	if (zp_keyregion_create(&r, &rp)) {
		fprintf(stderr, "upload_bench: %s\n", zp_err_msg());
		return 1;
	}
	uint64_t *h = zp_keyregion_wsect(&r, 0);
	struct fill f = { h, bytes / 8 };
	zp_par_for((f.words + (1u << 18) - 1) >> 18, fill_task, &f);
	zp_keyregion_seal(&r);
	void *d;
	if (zp_cuda_alloc(&d, bytes, "upload_bench", "the copy")) {
		fprintf(stderr, "upload_bench: %s\n", zp_err_msg());
		return 1;
	}
	printf("# %s; %.1f GiB key region on %s, %d CPUs\n", desc, bytes / 1073741824.0, zp_backing_name(r.backing),
	       zp_par_threads());
	/* as a key is: a few arrays (A, B1, B2, C, H in a region are 2 MiB aligned sections) */
	zp_cuda_up_seg seg[5];
	size_t part = (bytes / 5) & ~(((size_t)2 << 20) - 1);
	for (int i = 0; i < 5; i++) {
		seg[i].d = (char *)d + i * part;
		seg[i].h = (const char *)h + i * part;
		seg[i].len = i == 4 ? bytes - 4 * part : part;
	}
	const zp_cuda_up_opts runs[] = {
		{ .how = ZP_CUDA_UP_WHOLE },
		{ .how = ZP_CUDA_UP_PIN, .chunk = (size_t)256 << 20, .threads = 1, .streams = 4 },  /* the default */
		{ .how = ZP_CUDA_UP_PIN, .chunk = (size_t)256 << 20, .threads = 1, .streams = 4, .roll = 1 },
		{ .how = ZP_CUDA_UP_PIN, .chunk = (size_t)256 << 20, .threads = 4, .streams = 4 },
		{ .how = ZP_CUDA_UP_PIN, .chunk = (size_t)256 << 20, .threads = 4, .streams = 4, .roll = 1 }, /* the former default */
		{ .how = ZP_CUDA_UP_PIN, .chunk = (size_t)64 << 20, .threads = 1, .streams = 4 },
		{ .how = ZP_CUDA_UP_PIN, .chunk = (size_t)1 << 30, .threads = 1, .streams = 4 },
		{ .how = ZP_CUDA_UP_PIN, .chunk = (size_t)1 << 30, .threads = 2, .streams = 4, .roll = 1 },
		{ .how = ZP_CUDA_UP_RING, .chunk = (size_t)64 << 20, .threads = 8 },
	};

	int bad = 0;
	printf("\n| way | piece | threads | streams | unregister | s (median of %d) | GB/s | pinning s | unpinning s |\n", reps);
	printf("|---|---:|---:|---:|---|---:|---:|---:|---:|\n");
	for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
		double t[16], pin = 0, unpin = 0;
		zp_cuda_up_stats st = { 0 };
		int n = reps < 16 ? reps : 16;
		for (int i = 0; i < n; i++) {
			zp_cuda_zero(d, bytes, NULL);
			zp_cuda_device_sync();
			if (zp_cuda_upload(seg, 5, &runs[k], &st)) {
				fprintf(stderr, "upload_bench: %s: %s\n", zp_cuda_upload_name(runs[k].how), zp_err_msg());
				return 1;
			}
			t[i] = st.secs;
			pin += st.pin_s / n;
			unpin += st.unpin_s / n;
			int v = verify(d, h, bytes / 8);
			if (v) {
				fprintf(stderr, "upload_bench: %s: the device bytes differ from the region's\n",
					zp_cuda_upload_name(runs[k].how));
				bad = 1;
			}
		}
		qsort(t, (size_t)n, sizeof t[0], cmpd);
		printf("| %s | %zu MiB | %u | %u | %s | %.3f | %.1f | %.3f | %.3f |\n", zp_cuda_upload_name(st.how), st.chunk >> 20,
		       st.threads, st.streams, st.how != ZP_CUDA_UP_PIN ? "-" : runs[k].roll ? "as each lands" : "at the end",
		       t[n / 2], bytes / t[n / 2] / 1e9, pin, unpin);
		fflush(stdout);
	}
	zp_cuda_free(d);
	zp_keyregion_close(&r);
	zp_keyregion_remove(rp.name, NULL);
	printf("%s\n", bad ? "FAIL" : "PASS (every copy checked)");
	return bad;
}

/*
 * params_bench — a synthetic .params written and loaded the way gpud loads one (prover/params_load.h)
 * into a key region (shm/keyregion.h: hugetlbfs when the pool has the pages, else /dev/shm).
 *
 *   params_bench write FILE LOG                 PoRep-shaped counts for domain 2^LOG (zp_params_counts_porep)
 *   params_bench load FILE [--io auto|buffered|direct] [--no-subgroup] [--malloc] [--threads N] [--gpu|--cpu]
 *       one line: "load <secs> s <GB/s> GB/s io=<buffered|direct> threads=<n> backing=<kind> idle=<s> points=<n>
 *       checks=<gpu|cpu>"; a bad point: exit 1 with the loader's message ("FILE: VEC point I: why")
 *   params_bench plant FILE KIND VEC I          a bad point planted in place: KIND flags|coord|curve|subgroup|zero,
 *       VEC 1..5 (h, l, a, b_g1, b_g2), point I (tests: the GPU and the CPU must name the same point)
 * bench/keys/run.sh drives it (warm, cold, against a raw sequential read) and writes the table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xxhash.h>

#include "keyregion.h"
#include "params_load.h"
#include "params_synth.h"
#include "par.h"
#include "progress.h"
#include "serialize.h"
#include "zp_err.h"

static int usage(void)
{
	fprintf(stderr, "usage: params_bench write FILE LOG | params_bench load FILE [--io auto|buffered|direct] "
			"[--no-subgroup] [--malloc] [--threads N] [--gpu|--cpu] | params_bench plant FILE KIND VEC I\n");
	return 2;
}

static int do_write(const char *path, unsigned log)
{
	zp_params_info c;
	zp_params_counts_porep(&c, log);
	if (zp_params_write_synthetic(path, &c, 4096, 1)) {
		fprintf(stderr, "params_bench: %s\n", zp_err_msg());
		return 1;
	}
	printf("wrote %s: %llu bytes (IC %u, h %u, l %u, a %u, b %u)\n", path, (unsigned long long)c.file_bytes, c.n_ic,
	       c.n_h, c.n_l, c.n_a, c.n_b1);
	return 0;
}

static int do_plant(const char *path, const char *kind, unsigned vec, uint64_t idx)
{
	zp_params_info c;
	if (zp_params_scan(path, &c) || vec < 1 || vec > 5) {
		fprintf(stderr, "params_bench: %s\n", vec < 1 || vec > 5 ? "VEC: 1..5" : zp_err_msg());
		return 1;
	}
	const uint64_t off[6] = { c.off_ic, c.off_h, c.off_l, c.off_a, c.off_b1, c.off_b2 };
	const uint64_t n[6] = { c.n_ic, c.n_h, c.n_l, c.n_a, c.n_b1, c.n_b2 };
	unsigned el = vec == 5 ? 192 : 96;
	if (idx >= n[vec])
		return fprintf(stderr, "params_bench: point %llu of %llu\n", (unsigned long long)idx, (unsigned long long)n[vec]), 1;
	uint8_t p[192];
	FILE *f = fopen(path, "r+b");
	if (!f || fseeko(f, (off_t)(off[vec] + idx * el), SEEK_SET) || fread(p, 1, el, f) != el)
		return perror(path), 1;
	if (!strcmp(kind, "flags"))
		p[0] |= ZP_SER_FLAG_COMPRESSED;
	else if (!strcmp(kind, "coord"))
		memset(p + el / 2, 0xff, 48);
	else if (!strcmp(kind, "curve"))
		p[el - 1] ^= 1;
	else if (!strcmp(kind, "zero"))
		memset(p, 0, el);
	else if (!strcmp(kind, "subgroup")) {
		zp_rng g;
		zp_rng_seed(&g, 4242);
		zp_params_synth_off_subgroup(&g, vec == 5, p);
	} else
		return usage();
	if (fseeko(f, (off_t)(off[vec] + idx * el), SEEK_SET) || fwrite(p, 1, el, f) != el || fclose(f))
		return perror(path), 1;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "write"))
		return do_write(argv[2], (unsigned)atoi(argv[3]));
	if (argc == 6 && !strcmp(argv[1], "plant"))
		return do_plant(argv[2], argv[3], (unsigned)atoi(argv[4]), strtoull(argv[5], NULL, 0));
	if (argc < 3 || strcmp(argv[1], "load"))
		return usage();
	zp_params_load_opts o = { 0 };
	int use_malloc = 0;
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--io") && i + 1 < argc) {
			const char *m = argv[++i];
			o.io = !strcmp(m, "direct") ? ZP_PARAMS_IO_DIRECT : !strcmp(m, "buffered") ? ZP_PARAMS_IO_BUFFERED : ZP_PARAMS_IO_AUTO;
		} else if (!strcmp(argv[i], "--no-subgroup")) {
			o.no_subgroup = true;
		} else if (!strcmp(argv[i], "--malloc")) {
			use_malloc = 1;
		} else if (!strcmp(argv[i], "--gpu")) {
			o.dev = ZP_PARAMS_DEV_GPU;
		} else if (!strcmp(argv[i], "--cpu")) {
			o.dev = ZP_PARAMS_DEV_CPU;
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			o.threads = (unsigned)atoi(argv[++i]);
		} else {
			return usage();
		}
	}
	zp_progress_begin("params_bench", 2, NULL);
	zp_params_info c;
	if (zp_params_scan(argv[2], &c)) {
		fprintf(stderr, "params_bench: %s\n", zp_err_msg());
		return 1;
	}
	const uint64_t n[6] = { c.n_ic, c.n_h, c.n_l, c.n_a, c.n_b1, c.n_b2 };
	const char *nm[6] = { "ic", "h", "l", "a", "b1", "b2" };
	void *p[6];
	zp_keyregion r = { .fd = -1 };
	char name[64];
	snprintf(name, sizeof name, "params-bench-%d.key.k", (int)getpid());
	const char *backing = "malloc";
	if (use_malloc) {
		for (int i = 0; i < 6; i++) {
			size_t len = n[i] * (i == 5 ? 192 : 96);
			p[i] = malloc(len ? len : 1);
			madvise(p[i], len, MADV_HUGEPAGE);
		}
	} else {
		struct zp_keyregion_params rp = { .name = name, .n_sections = 6, .key = "bench", .format = "params" };
		for (int i = 0; i < 6; i++)
			rp.sect[i].name = nm[i], rp.sect[i].bytes = n[i] * (i == 5 ? 192 : 96);
		if (zp_keyregion_create(&r, &rp)) {
			fprintf(stderr, "params_bench: %s\n", zp_err_msg());
			return 1;
		}
		for (int i = 0; i < 6; i++)
			p[i] = zp_keyregion_wsect(&r, (unsigned)i);
		backing = zp_backing_name(r.backing);
	}
	zp_params_dst d = { p[0], p[1], p[2], p[3], p[4], p[5] };
	zp_zkey fixed;
	zp_params_load_stats st;
	int rc = zp_params_load_into(argv[2], &c, &d, &fixed, &o, &st);
	zp_progress_end(NULL);
	uint64_t hash = 0; /* of every decoded point, in file order: the GPU's and the CPU's must agree */
	if (!rc) {
		XXH3_state_t *hs = XXH3_createState();
		XXH3_64bits_reset(hs);
		for (int i = 0; i < 6; i++)
			XXH3_64bits_update(hs, p[i], n[i] * (i == 5 ? 192 : 96));
		hash = XXH3_64bits_digest(hs);
		XXH3_freeState(hs);
	}
	if (!use_malloc) {
		zp_keyregion_close(&r);
		zp_keyregion_remove(name, NULL);
	}
	if (rc) {
		fprintf(stderr, "params_bench: %s\n", zp_err_msg());
		return 1;
	}
	printf("load %.3f s %.3f GB/s io=%s threads=%u backing=%s idle=%.3f points=%llu checks=%s hash=%016llx%s\n", st.secs,
	       st.bytes / st.secs / 1e9, st.direct ? "direct" : "buffered", st.threads, backing, st.reader_idle_s,
	       (unsigned long long)st.points, st.gpu ? "gpu" : "cpu", (unsigned long long)hash,
	       o.no_subgroup ? " no-subgroup" : "");
	return 0;
}

/*
 * ssc2_shim.c — a libzkpipe-supraseal.so.0 that forwards every call of supraseal-c2's C ABI to the
 * supraseal-c2 library named by ZP_SSC2_LIB (built beside the project, never in the repository), so a
 * program linked against libzkpipe-supraseal — rust/supraseal-c2/examples/porep_stream, through the
 * crate's split API as cuzk drives it — runs unchanged on supraseal-c2 with the same inputs, on the same
 * card, in the same run (bench/supraseal/crate_porep.sh, SSC2=). For measurement only.
 *
 * Why not a symlink: the crate's binaries reference the symbols at version ZKPIPE_SUPRASEAL_0 and
 * supraseal-c2's library defines them without versions, which the loader refuses for the library it
 * was linked against; this shim carries the version (libzkpipe-supraseal.map) and resolves the peer's
 * unversioned symbols with dlsym. The types are zkpipe-supraseal.h's: the same ABI as supraseal-c2's.
 *
 * Build (scripts/gpu-bundles.sh): cc -O2 -shared -fPIC -Isupraseal -Wl,-soname,libzkpipe-supraseal.so.0
 *   -Wl,--version-script,supraseal/libzkpipe-supraseal.map -o DIR/libzkpipe-supraseal.so.0 ssc2_shim.c -ldl
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ss_stats.h"
#include "zkpipe-supraseal.h"

/* the peer's entry point `name`, or the process ends naming what is missing (a measurement cannot go on) */
static void *peer(const char *name)
{
	static void *lib;
	const char *path = getenv("ZP_SSC2_LIB");
	if (!lib && (!path || !(lib = dlopen(path, RTLD_NOW | RTLD_LOCAL)))) {
		fprintf(stderr, "ssc2_shim: ZP_SSC2_LIB=%s: %s\n", path ? path : "(unset)", path ? dlerror() : "names no library");
		exit(70);
	}
	void *f = dlsym(lib, name);
	if (!f) {
		fprintf(stderr, "ssc2_shim: %s does not export %s\n", path, name);
		exit(70);
	}
	return f;
}

/* each forwarder looks its target up once */
#define FWD(ret, name, params, args)                                 \
	ret name params                                                  \
	{                                                                \
		static ret(*f) params;                                       \
		if (!f)                                                      \
			*(void **)&f = peer(#name);                              \
		return f args;                                               \
	}

FWD(zkpipe_ss_error, create_SRS, (zkpipe_ss_srs * ret, const char *srs_path, bool cache), (ret, srs_path, cache))
FWD(void, evict_SRS, (const zkpipe_ss_srs *srs), (srs))
FWD(void, drop_SRS, (zkpipe_ss_srs * srs), (srs))
FWD(zkpipe_ss_srs, clone_SRS, (const zkpipe_ss_srs *srs), (srs))
FWD(zkpipe_ss_error, generate_groth16_proofs_c,
    (const zkpipe_ss_assignment provers[], size_t n, const zkpipe_ss_fr r_s[], const zkpipe_ss_fr s_s[],
     zkpipe_ss_proof proofs[], const zkpipe_ss_srs *srs, void *gpu_mtx, int gpu_index),
    (provers, n, r_s, s_s, proofs, srs, gpu_mtx, gpu_index))
FWD(void *, create_gpu_mutex, (void), ())
FWD(void, destroy_gpu_mutex, (void *mtx), (mtx))
FWD(zkpipe_ss_error, generate_groth16_proofs_start_c,
    (const zkpipe_ss_assignment provers[], size_t n, const zkpipe_ss_fr r_s[], const zkpipe_ss_fr s_s[],
     const zkpipe_ss_srs *srs, void *gpu_mtx, int gpu_index, void **pending_out),
    (provers, n, r_s, s_s, srs, gpu_mtx, gpu_index, pending_out))
FWD(zkpipe_ss_error, finalize_groth16_proof_c, (void *pending, zkpipe_ss_proof proofs[]), (pending, proofs))
FWD(void, destroy_pending_proof, (void *pending), (pending))

/* the stats call is zkpipe's own: the peer has none (a caller that asks gets zeros) */
void zkpipe_supraseal_stats(struct zkpipe_ss_stats *out) { memset(out, 0, sizeof *out); }

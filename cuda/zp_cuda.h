/*
 * zp_cuda.h — zkpipe's CUDA backend: field arithmetic, NTT over Fr and MSM over G1/G2 on one GPU, for
 * BLS12-381 (the typed zp_cuda_* calls below) and BN254 (zp_cuda_curve_bn254, the table at the end, which
 * also serves BLS12-381: zp_cuda_curve_bls12_381). Plain C; everything CUDA stays behind this boundary
 * (streams pass as void *).
 *
 * Encodings are the CPU library's (common/field.h): zp_fr / zp_fp in Montgomery form, little-endian
 * limbs. An affine point is x‖y (G2: x.c0‖x.c1‖y.c0‖y.c1), the .zkey layout; all-zero is infinity.
 * Results come back as Jacobian points (x = X/Z^2, y = Y/Z^3; Z = 0 is infinity).
 *
 * Memory: nothing is allocated behind the caller's back. The NTT context owns its twiddle table
 * (created once per device), MSM calls take a caller-owned device scratch buffer of
 * zp_cuda_msm_scratch_size() bytes. Pointers named d_* are device memory.
 *
 * Threads: one context per device per thread at a time; calls are asynchronous on the given
 * stream except where they return a result to the host (MSM), which synchronizes the stream.
 * Errors: 0 or a negative zp_err code; ZP_ECUDA carries "expr at file:line: CUDA's message" in
 * zp_err_msg(). The bucket MSM is data-dependent in time and memory access: never feed it secrets.
 */
#ifndef ZP_CUDA_H
#define ZP_CUDA_H

#include <stddef.h>
#include <stdint.h>
#include "field.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct { zp_fp x, y; } zp_cuda_g1_aff;
typedef struct { zp_fp x[2], y[2]; } zp_cuda_g2_aff;
typedef struct { zp_fp x, y, z; } zp_cuda_g1_jac;
typedef struct { zp_fp x[2], y[2], z[2]; } zp_cuda_g2_jac;

/* Select the device for this thread; fills a one-line description if desc != NULL. */
int zp_cuda_init(int device, char *desc, size_t desc_len);

/* ---- runtime (cuda/runtime.c): the CUDA runtime calls the prover and setup make, behind C types ----
 * Streams and events are void *. Every call returns 0 or a zp_err code (ZP_ECUDA with "expr at file:line:
 * CUDA's message", -ENODEV for no device, -ENOMEM for device memory) unless it says otherwise. */
/* The device this process uses: ZP_CUDA_DEVICE (common/knobs.h, parsed once; default 0), checked
 * against the number of devices; -ENODEV "no CUDA GPU (or no NVIDIA driver)" or "ZP_CUDA_DEVICE=n but
 * m CUDA device(s)" (a value that is not a number: -ENODEV too, naming it). */
int zp_cuda_device(int *dev);
/* How many CUDA devices this process sees (0 without a driver). */
int zp_cuda_device_count(void);
/* zp_cuda_device + zp_cuda_init: the device is usable and current on this thread (who: the message's prefix). */
int zp_cuda_probe(const char *who, char *desc, size_t desc_len);
int zp_cuda_set_device(int dev);
int zp_cuda_device_sync(void);
int zp_cuda_stream_create(void **st);          /* non-blocking with respect to the legacy stream */
int zp_cuda_stream_create_high(void **st);     /* the same at the device's highest priority */
void zp_cuda_stream_destroy(void *st);         /* NULL: nothing */
int zp_cuda_stream_sync(void *st);
int zp_cuda_event_create(void **ev);           /* timing disabled */
void zp_cuda_event_destroy(void *ev);
int zp_cuda_event_record(void *ev, void *st);
int zp_cuda_event_create_timed(void **ev);     /* with timing, for zp_cuda_event_ms */
int zp_cuda_event_ms(float *ms, void *from, void *to);   /* both recorded and complete */
int zp_cuda_event_sync(void *ev);
int zp_cuda_stream_wait(void *st, void *ev);   /* st waits for ev (no host wait) */
/* Device memory, saying on failure how much was asked for and how much is free:
 * "<who>: device memory for <what>: N bytes needed, F of T free (CUDA's message)". */
int zp_cuda_alloc(void **d, size_t bytes, const char *who, const char *what);
void zp_cuda_free(void *d);                    /* NULL: nothing */
int zp_cuda_alloc_host(void **p, size_t bytes); /* page-locked */
void zp_cuda_free_host(void *p);
int zp_cuda_mem_info(size_t *free_b, size_t *total_b);
/* Copies; st NULL: synchronous. */
int zp_cuda_copy_to_dev(void *d, const void *h, size_t len, void *st);
int zp_cuda_copy_to_host(void *h, const void *d, size_t len, void *st);
int zp_cuda_copy_on_dev(void *dst, const void *src, size_t len, void *st);   /* device to device */
int zp_cuda_zero(void *d, size_t len, void *st);   /* len bytes of device memory to 0, asynchronous on st */
/* Host ranges registered for direct DMA, at most 8 at a time, process-wide (gpud's arena):
 * register fails with -EPERM under ZP_CUDA_NO_REGISTER (tests: the staging path), ZP_EFULL when 8 are
 * held; a failed registration leaves no error behind. registered: whether [p, p + len) lies in one. */
int zp_cuda_host_register(void *p, size_t len);
void zp_cuda_host_unregister(void *p);
int zp_cuda_host_registered(const void *p, size_t len);
/* Read-only page-locking of a key's host array (key streaming), outside the table above: 0 when done;
 * a refusal only makes copies slower, so it returns -1 and leaves no error behind. */
int zp_cuda_host_pin_ro(const void *p, size_t len);
/* The same, for host buffers the device may also write (the compact-key fallback's staging buffers). */
int zp_cuda_host_pin(void *p, size_t len);
void zp_cuda_host_unpin(const void *p);
/* ---- large uploads from memory that is not page-locked (upload.c; measured by bench/keys/upload_bench.c) ----
 * A list of (device dst, host src, bytes) copied host → device, the page-locking overlapped with the copies:
 *   WHOLE  each source registered whole (read-only), copied, unregistered (register, then copy)
 *   PIN    pieces of `chunk` bytes registered by `threads` pinning threads ahead of their copies (round robin
 *          over `streams` streams), all unregistered once every piece has landed — or, `roll`, each as soon
 *          as it has (less memory locked at a time, slower: unregistering takes the driver from the pinner)
 *          (default; chunk 256 MiB, 1 thread, 4 streams: the driver registers ~40 GB/s of hugetlbfs pages,
 *          ~22 of 4 KiB pages, from one thread or eight; the link carries 55 GB/s)
 *   RING   `threads` threads memcpy through two pinned bounce buffers of `chunk` bytes each (64 MiB, 8)
 * AUTO is PIN (ZP_CUDA_UPLOAD picks another for the CUDA backend's key upload). Synchronous: returns when
 * every byte has landed. A piece that cannot be registered is copied as it is (slower, never wrong).
 * Progress: zp_progress_add(bytes) as pieces land. */
enum { ZP_CUDA_UP_AUTO, ZP_CUDA_UP_WHOLE, ZP_CUDA_UP_PIN, ZP_CUDA_UP_RING };
typedef struct { void *d; const void *h; size_t len; int keep; } zp_cuda_up_seg;
typedef struct zp_cuda_up_kept zp_cuda_up_kept;
typedef struct { int how; size_t chunk; unsigned threads, streams; int roll; zp_cuda_up_kept **kept; } zp_cuda_up_opts;
typedef struct {
	double secs;               /* the whole upload */
	double pin_s, unpin_s;     /* WHOLE: registering, unregistering; PIN: the pinning threads' busy time, summed */
	double copy_s;             /* RING: the copying threads' memcpy + issue time, summed */
	size_t bytes, pieces, chunk;
	int how;
	unsigned threads, streams;
} zp_cuda_up_stats;
int zp_cuda_upload(const zp_cuda_up_seg *segs, unsigned nseg, const zp_cuda_up_opts *opts, zp_cuda_up_stats *stats);
/* opts.kept non-NULL (PIN): the pages of the segments marked keep stay registered after the upload (their
 * host memory must stay mapped and unchanged until released) and *opts.kept lists them (NULL: none kept);
 * zp_cuda_upload_release unregisters them. Unregistering 70 GiB takes ~0.7 s: a restarted gpud's key
 * region stays registered until the key goes, instead of paying it before it is ready. */
void zp_cuda_upload_release(zp_cuda_up_kept *kept);
const char *zp_cuda_upload_name(int how);

/* ---- .params points decoded and checked on the GPU (params_check.cu; BLS12-381) ----
 * n points in zcash's uncompressed big-endian encoding (G1 96 bytes, G2 192; d_in 4-byte aligned) to the
 * CPU's Montgomery affine form in d_out (infinity all zero), each with a status: the checks of
 * zp_g*_from_uncompressed (common/serialize.c) in its order — flags, coordinates below q, on the curve, in
 * the subgroup (by endomorphism; skipped with ZP_CUDA_PC_NO_SUBGROUP, benchmarks only). A bad point's output is zero.
 * Asynchronous on stream. */
enum { ZP_CUDA_PT_OK, ZP_CUDA_PT_FLAGS, ZP_CUDA_PT_COORD, ZP_CUDA_PT_CURVE, ZP_CUDA_PT_SUBGROUP };
#define ZP_CUDA_PC_NO_SUBGROUP 1u   /* flags: the curve check only (benchmarks) */
int zp_cuda_params_decode(int g2, void *d_out, uint8_t *d_status, const void *d_in, size_t n, unsigned flags,
                          void *stream);

/* Sticky-error detection after a failed call: 1 when the context is unusable for good (every later
 * call would fail the same way: gpud exits and is restarted), 0 after clearing a non-sticky error (out
 * of memory, a bad launch) so that the next proof does not trip over it. */
int zp_cuda_fatal(void);
/* Clear a pending non-sticky error (a previous proof's), so that the next launch does not report it. */
void zp_cuda_clear_error(void);

/* ---- element-wise kernels (tests; host buffers of n elements) ---- */
enum zp_cuda_op {
	ZP_CUDA_FP_ADD, ZP_CUDA_FP_SUB, ZP_CUDA_FP_MUL, ZP_CUDA_FP_SQR,
	ZP_CUDA_FR_ADD, ZP_CUDA_FR_SUB, ZP_CUDA_FR_MUL, ZP_CUDA_FR_SQR,
	ZP_CUDA_FP2_MUL, ZP_CUDA_FP2_SQR,
	ZP_CUDA_FR_FROM_MONT,          /* out = a as plain integer (4x64 LE) */
	ZP_CUDA_G1_ADD, ZP_CUDA_G1_ADD_MIXED, ZP_CUDA_G1_DBL,   /* a, b affine; out jac */
	ZP_CUDA_G2_ADD, ZP_CUDA_G2_ADD_MIXED, ZP_CUDA_G2_DBL,
};
int zp_cuda_elementwise(enum zp_cuda_op op, void *out, const void *a, const void *b, size_t n);

/* ---- NTT over Fr, natural order in and out, in place on device data ----
 * forward:  X_k = sum_j x_j (s·w^k)^j      (s = shift, 1 when shift == NULL)
 * inverse:  x_j = s^-j n^-1 sum_k X_k w^-jk (exact inverse of forward with the same shift)
 * w = omega_n of the context's root family (roots = 5: snarkjs, ZP_NTT_ROOT5; 7: bellperson and
 * Filecoin, ZP_NTT_ROOT7; common/ntt.h), n = 2^log_n <= 2^max_log: the CPU's zp_ntt_* bit for bit. */
typedef struct zp_cuda_ntt_ctx zp_cuda_ntt_ctx;
int  zp_cuda_ntt_create(zp_cuda_ntt_ctx **ctx, unsigned max_log, int roots); /* allocates the twiddles */
void zp_cuda_ntt_destroy(zp_cuda_ntt_ctx *ctx);
int  zp_cuda_ntt(zp_cuda_ntt_ctx *ctx, zp_fr *d_x, unsigned log_n, int inverse,
                 const zp_fr *shift, void *stream);

/* Groth16 H step on device-resident a, b, c (n = 2^log_n each), no host round trip.
 * BELLPERSON: a,b,c <- coset_g(iNTT(.)); h = (a·b - c)/(g^n - 1); a <- coset-iNTT_g(h): h
 *   coefficients (g = 7) in a[0..n). SNARKJS: a,b,c <- NTT_{shift w_2n}(iNTT(.)); a <- a·b - c:
 *   the H-MSM scalars on the odd 2n-th roots. b and c are clobbered in both. */
enum zp_cuda_h_mode { ZP_CUDA_H_BELLPERSON = 0, ZP_CUDA_H_SNARKJS = 1 };
int zp_cuda_groth16_h(zp_cuda_ntt_ctx *ctx, zp_fr *d_a, zp_fr *d_b, zp_fr *d_c, unsigned log_n,
                      enum zp_cuda_h_mode mode, void *stream);
/* The same H step over two device buffers (the lean input set, cuda/plan.c): part 0 transforms a and b
 * and leaves a·b in a; the caller then puts c into b; part 1 transforms it and finishes as above (h in
 * a). The same values as zp_cuda_groth16_h. */
int zp_cuda_groth16_h_part(zp_cuda_ntt_ctx *ctx, zp_fr *d_a, zp_fr *d_b, int part, unsigned log_n,
                           enum zp_cuda_h_mode mode, void *stream);

/* ---- MSM: out = sum_i s_i·P_i ----
 * d_scalars: zp_fr (Montgomery) on device; d_bases: affine on device (may stay resident across
 * calls). window = 0 picks one by n. The result is copied to *out (host) before returning. */
typedef struct {
	unsigned window;        /* bits per signed window; 0 = automatic */
	void *stream;
	unsigned pass_windows;  /* windows sorted and summed per pass (scratch ∝ n·pass_windows); 0 = all
	                           of them (fewer only where n·windows would reach 2^31) */
} zp_cuda_msm_opts;
size_t zp_cuda_msm_scratch_size(int g2, size_t n, unsigned window);
/* The scratch of an MSM run in passes of pass_windows windows (0: as zp_cuda_msm_scratch_size). */
size_t zp_cuda_msm_scratch_size_passes(int g2, size_t n, unsigned window, unsigned pass_windows);
/* How many windows an MSM of n entries has (window 0: the automatic choice); 0 if n is out of range. */
unsigned zp_cuda_msm_windows(int g2, size_t n, unsigned window);
int zp_cuda_msm_g1(zp_cuda_g1_jac *out, const zp_cuda_g1_aff *d_bases, const zp_fr *d_scalars,
                   size_t n, void *d_scratch, size_t scratch_size, const zp_cuda_msm_opts *opts);
int zp_cuda_msm_g2(zp_cuda_g2_jac *out, const zp_cuda_g2_aff *d_bases, const zp_fr *d_scalars,
                   size_t n, void *d_scratch, size_t scratch_size, const zp_cuda_msm_opts *opts);
/* G1 through the GLV endomorphism (cuda/glv.h): each scalar cut as k1 + k2·λ (128 bits each), 2n entries over
 * the n bases themselves (φ(P) = (β·x, y) applied as a base is read): the split MSM's 2-part cut with no
 * extra bases. Scratch: zp_cuda_msm_split_scratch_size(0, n, 2, window, pass_windows). zp_cuda_msm_g1
 * takes this path by itself from 2^ZP_MSM_GLV scalars (default off) when its scratch holds it. */
int zp_cuda_msm_g1_glv(zp_cuda_g1_jac *out, const zp_cuda_g1_aff *d_bases, const zp_fr *d_scalars, size_t n,
                       void *d_scratch, size_t scratch_size, const zp_cuda_msm_opts *opts);
/* The split MSM, for bases that stay resident across calls, in parts = 4 or 2: zp_cuda_msm_g*_split_bases
 * writes parts·n points d_out[j·n + i] = 2^(cb·j)·P_i (j < parts, cb = 256/parts; parts× the bases' memory;
 * asynchronous on stream; scratch of any size from zp_cuda_msm_split_bases_scratch_size(g2, 32) up, larger =
 * fewer launches), then zp_cuda_msm_g*_split computes Σ s_i·P_i over them with each scalar cut into its parts
 * chunks of cb bits: parts·n entries of (cb + 1)-bit signed digits. At 2^24 with 4 parts: 3 windows of 22
 * bits, 12n bucket entries instead of 13n and 3·2^21 buckets to sum instead of 13·2^19; 2 parts: 6 windows,
 * the same 12n entries with half the memory. Scratch: zp_cuda_msm_split_scratch_size (parts·n ≤ 2^30;
 * opts->window 0 = chosen by n; pass_windows as opts->pass_windows, 0 = all). Same result as zp_cuda_msm_g*. */
size_t zp_cuda_msm_split_bases_scratch_size(int g2, size_t n);
int zp_cuda_msm_g1_split_bases(zp_cuda_g1_aff *d_out, const zp_cuda_g1_aff *d_bases, size_t n, unsigned parts,
                               void *d_scratch, size_t scratch_size, void *stream);
int zp_cuda_msm_g2_split_bases(zp_cuda_g2_aff *d_out, const zp_cuda_g2_aff *d_bases, size_t n, unsigned parts,
                               void *d_scratch, size_t scratch_size, void *stream);
size_t zp_cuda_msm_split_scratch_size(int g2, size_t n, unsigned parts, unsigned window, unsigned pass_windows);
/* Windows of a split MSM (window 0: the automatic choice); 0 if out of range. */
unsigned zp_cuda_msm_split_windows(size_t n, unsigned parts, unsigned window);
int zp_cuda_msm_g1_split(zp_cuda_g1_jac *out, const zp_cuda_g1_aff *d_bases, const zp_fr *d_scalars, size_t n,
                         unsigned parts, void *d_scratch, size_t scratch_size, const zp_cuda_msm_opts *opts);
int zp_cuda_msm_g2_split(zp_cuda_g2_jac *out, const zp_cuda_g2_aff *d_bases, const zp_fr *d_scalars, size_t n,
                         unsigned parts, void *d_scratch, size_t scratch_size, const zp_cuda_msm_opts *opts);
/* Fast path for scalars known to be 0 or 1 (Montgomery zero / one): a plain sum of the selected
 * points, no sort. ZP_ERANGE if any scalar is something else. Scratch: the same size function. */
int zp_cuda_msm_g1_bits(zp_cuda_g1_jac *out, const zp_cuda_g1_aff *d_bases, const zp_fr *d_scalars,
                        size_t n, void *d_scratch, size_t scratch_size, void *stream);
int zp_cuda_msm_g2_bits(zp_cuda_g2_jac *out, const zp_cuda_g2_aff *d_bases, const zp_fr *d_scalars,
                        size_t n, void *d_scratch, size_t scratch_size, void *stream);

/* The chunked MSM driver (cuda/runtime.c): out (a zp_g1_jac, or zp_g2_jac when g2; common/ec.h) =
 * Σ s_i·P_i over device bases and scalars, as bucket MSMs of at most `chunk` entries each, each with as
 * many windows a pass as d_scratch holds, chunk results added on the host. What the CUDA prover's H MSM
 * and gpud's supraseal partitions use. zp_cuda_msm_passes: the windows a pass of an n-entry MSM
 * (parts > 1: a split MSM in that many parts) can take in len bytes of scratch: 0 = all of them,
 * else the most that fit; -1 if not even one. */
int zp_cuda_msm_chunked(int g2, void *out, const void *d_bases, const zp_fr *d_scalars, size_t n, size_t chunk,
                        void *d_scratch, size_t scratch_len, void *stream);
int zp_cuda_msm_passes(int g2, size_t n, unsigned parts, size_t len);
/* One bucket MSM of n entries (as many windows a pass as the scratch holds) added into acc on the host. */
int zp_cuda_msm_add(void *stream, int g2, void *acc, const void *d_bases, const zp_fr *d_scalars, size_t n,
                    void *d_scratch, size_t scratch_len);

/* ---- 0/1 split of a witness MSM (prover/backend_cuda.c) ----
 * Σ s_i·P_i = Σ_{s_i = 1} P_i + Σ_{s_i ∉ {0,1}} s_i·P_i. The first sum: zp_cuda_msm_g*_ones (the 0/1
 * kernel, every scalar other than 0 and 1 skipped, no error); scratch zp_cuda_msm_bits_scratch_size
 * (also enough for the *_bits calls). The second: zp_cuda_nonbits lists the indices i < n (< 2^31)
 * of the other scalars, ascending, in d_idx (n entries of room), their number in *count (host;
 * synchronizes the stream); temp: zp_cuda_nonbits_temp_size(n) device bytes. zp_cuda_gather then
 * packs d_out[j] = d_table[d_idx[j] − idx_off] (elem_bytes a multiple of 16: zp_fr 32, G1 96,
 * G2 192) for the general MSM on the packed arrays. Asynchronous on stream. */
int zp_cuda_msm_g1_ones(zp_cuda_g1_jac *out, const zp_cuda_g1_aff *d_bases, const zp_fr *d_scalars,
                        size_t n, void *d_scratch, size_t scratch_size, void *stream);
int zp_cuda_msm_g2_ones(zp_cuda_g2_jac *out, const zp_cuda_g2_aff *d_bases, const zp_fr *d_scalars,
                        size_t n, void *d_scratch, size_t scratch_size, void *stream);
size_t zp_cuda_msm_bits_scratch_size(int g2, size_t n);
size_t zp_cuda_nonbits_temp_size(size_t n);
int zp_cuda_nonbits(uint32_t *d_idx, size_t *count, const zp_fr *d_scalars, size_t n, void *d_tmp,
                    size_t tmp_size, void *stream);
/* The first sum as a list: zp_cuda_ones lists the indices of the scalars equal to 1 (as
 * zp_cuda_nonbits; same temp size), zp_cuda_msm_g*_sum_idx sums d_bases[d_idx[j] − idx_off] over
 * j < n (scratch: zp_cuda_msm_bits_scratch_size(g2, n)). One list serves every MSM over the same
 * scalars, and every thread adds the same number of points. Result to the host (synchronizes). */
int zp_cuda_ones(uint32_t *d_idx, size_t *count, const zp_fr *d_scalars, size_t n, void *d_tmp,
                 size_t tmp_size, void *stream);
/* A query's density: zp_cuda_nonzero_bits sets bit i of d_bits ((n + 31)/32 words) when point i (pt_bytes, a
 * multiple of 16) is not at infinity (all bytes 0); zp_cuda_filter_idx copies the entries v of d_in[0..n) whose
 * bit v − off is set to d_out, their number in *count (synchronizes the stream); temp:
 * zp_cuda_filter_temp_size(n). */
int zp_cuda_nonzero_bits(uint32_t *d_bits, const void *d_pts, size_t n, size_t pt_bytes, void *stream);
size_t zp_cuda_filter_temp_size(size_t n);
int zp_cuda_filter_idx(uint32_t *d_out, size_t *count, const uint32_t *d_in, size_t n, const uint32_t *d_bits,
                       uint32_t off, void *d_tmp, size_t tmp_size, void *stream);
int zp_cuda_msm_g1_sum_idx(zp_cuda_g1_jac *out, const zp_cuda_g1_aff *d_bases, const uint32_t *d_idx,
                           size_t n, uint32_t idx_off, void *d_scratch, size_t scratch_size, void *stream);
int zp_cuda_msm_g2_sum_idx(zp_cuda_g2_jac *out, const zp_cuda_g2_aff *d_bases, const uint32_t *d_idx,
                           size_t n, uint32_t idx_off, void *d_scratch, size_t scratch_size, void *stream);
int zp_cuda_gather(void *d_out, const void *d_table, size_t elem_bytes, const uint32_t *d_idx, size_t n,
                   uint32_t idx_off, void *stream);

/* ---- density bitmaps (supraseal partitions: gpud's A/B scalar gather) ----
 * d_bits: ceil(n/64) u64 words, bit i = bit i%64 of word i/64 (bellperson's density order); bits at
 * and past n in the last word are ignored. zp_cuda_bits_index writes the indices i < n of the set
 * bits, ascending, to d_idx (popcount entries; room for n) and their number to *d_total (device
 * memory: batch several and copy them back at once). n < 2^32; d_tmp: zp_cuda_bits_index_temp_size(n)
 * device bytes. Asynchronous on stream. zp_cuda_gather (above) then packs the selected scalars. */
size_t zp_cuda_bits_index_temp_size(size_t n);
int zp_cuda_bits_index(uint32_t *d_idx, uint32_t *d_total, const uint64_t *d_bits, size_t n, void *d_tmp,
                       size_t tmp_size, void *stream);

/* ---- test support: P_i = T[idx_i] gathered on device, for bases of known discrete log ---- */
int zp_cuda_g1_gather(zp_cuda_g1_aff *d_out, const zp_cuda_g1_aff *d_table, const uint32_t *d_idx, size_t n);
int zp_cuda_g2_gather(zp_cuda_g2_aff *d_out, const zp_cuda_g2_aff *d_table, const uint32_t *d_idx, size_t n);

/* ---- fixed-base multiplication (Groth16 setup): d_out[i] = k_i·G ----
 * d_table: G's window multiples, t[j·(2^w − 1) + d − 1] = d·2^(w·j)·G for windows j < ceil(255/w)
 * and digits d = 1..2^w − 1, affine, w = window (1..20); prover/setup.c builds it on the host.
 * d_scalars: n zp_fr (Montgomery); d_out: n affine points, infinity (k = 0) all zero: equal bit
 * for bit to the CPU's k·G (affine is unique). d_scratch: zp_cuda_fixed_base_scratch_size(g2, n)
 * bytes (XYZZ sums and batch-inversion prefixes: 240 B per G1 point, 480 B per G2 point).
 * Asynchronous on stream; not constant time in the scalars (development keys only). */
size_t zp_cuda_fixed_base_scratch_size(int g2, size_t n);
int zp_cuda_g1_fixed_base(zp_cuda_g1_aff *d_out, const zp_fr *d_scalars, size_t n, const zp_cuda_g1_aff *d_table,
                          unsigned window, void *d_scratch, size_t scratch_size, void *stream);
int zp_cuda_g2_fixed_base(zp_cuda_g2_aff *d_out, const zp_fr *d_scalars, size_t n, const zp_cuda_g2_aff *d_table,
                          unsigned window, void *d_scratch, size_t scratch_size, void *stream);
/* The same for BN254 (g2: G2), on the CPU's zp_bn254_g1_affine / zp_bn254_g2_affine layouts (64 / 128 bytes);
 * d_scalars: n BN254 Fr in Montgomery form (zp_fr containers). */
size_t zp_cuda_bn254_fixed_base_scratch_size(int g2, size_t n);
int zp_cuda_bn254_fixed_base(int g2, void *d_out, const zp_fr *d_scalars, size_t n, const void *d_table, unsigned window,
                             void *d_scratch, size_t scratch_size, void *stream);

/* ---- curves: the calls above for either curve, on untyped buffers ----
 * One table per curve, the same kernels (cuda/ff.cuh, ec.cuh templates) instantiated for its fields:
 * zp_cuda_curve_bls12_381 (whose entries are the typed functions above, the same code) and
 * zp_cuda_curve_bn254. Each entry keeps the contract of its typed counterpart; g2 selects G2.
 * Buffers: scalars fr_bytes each (Fr, Montgomery: zp_fr / zp_bn254_fr), bases affine aff_bytes[g2] each
 * (the CPU's affine structs: zp_g1_affine / zp_bn254_g1_affine, ...; all zero = infinity), results
 * Jacobian jac_bytes[g2] in the CPU's layout (zp_g1_jac / zp_bn254_g1_jac, ...). elementwise takes the
 * same ops over the curve's Fp (fp bytes = aff_bytes[0] / 2), Fr, Fp2, G1 and G2. ntt_create makes a
 * context for that curve's Fr (roots: BLS12-381 5 or 7; BN254 5 only: ω_{2^28} = 5^((r-1)/2^28), the
 * CPU's bn254_ntt.h); zp_cuda_ntt and zp_cuda_groth16_h then work on that Fr (BN254: snarkjs mode only). */
typedef struct zp_cuda_curve {
	int id;                      /* zp_curve_id (common/curve.h) */
	const char *name;            /* "bls12-381" | "bn254" */
	size_t fr_bytes, aff_bytes[2], jac_bytes[2];
	size_t (*msm_scratch)(int g2, size_t n, unsigned window, unsigned pass_windows);
	unsigned (*msm_windows)(int g2, size_t n, unsigned window);
	int (*msm)(int g2, void *out, const void *d_bases, const void *d_scalars, size_t n, void *d_scratch, size_t len,
	           const zp_cuda_msm_opts *opts);
	size_t (*split_scratch)(int g2, size_t n, unsigned parts, unsigned window, unsigned pass_windows);
	unsigned (*split_windows)(size_t n, unsigned parts, unsigned window);
	size_t (*split_bases_scratch)(int g2, size_t n);
	int (*split_bases)(int g2, void *d_out, const void *d_bases, size_t n, unsigned parts, void *d_scratch,
	                   size_t len, void *stream);
	int (*msm_split)(int g2, void *out, const void *d_bases, const void *d_scalars, size_t n, unsigned parts,
	                 void *d_scratch, size_t len, const zp_cuda_msm_opts *opts);
	size_t (*bits_scratch)(int g2, size_t n);
	int (*msm_bits)(int g2, void *out, const void *d_bases, const void *d_scalars, size_t n, void *d_scratch,
	                size_t len, void *stream);
	int (*msm_ones)(int g2, void *out, const void *d_bases, const void *d_scalars, size_t n, void *d_scratch,
	                size_t len, void *stream);
	int (*nonbits)(uint32_t *d_idx, size_t *count, const void *d_scalars, size_t n, void *d_tmp, size_t tmp_size,
	               void *stream);
	int (*ones)(uint32_t *d_idx, size_t *count, const void *d_scalars, size_t n, void *d_tmp, size_t tmp_size,
	            void *stream);
	int (*msm_sum_idx)(int g2, void *out, const void *d_bases, const uint32_t *d_idx, size_t n, uint32_t idx_off,
	                   void *d_scratch, size_t len, void *stream);
	int (*elementwise)(enum zp_cuda_op op, void *out, const void *a, const void *b, size_t n);
	int (*ntt_create)(zp_cuda_ntt_ctx **ctx, unsigned max_log, int roots);
	const struct zp_cuda_sizes *sizes;   /* the same size functions for the memory plan (zp_cuda_plan.h) */
	/* host side, the CPU's Jacobian arithmetic of the curve (common/ec.h, bn254.h): chunk sums */
	void (*jac_set_inf)(int g2, void *p);
	void (*jac_add)(int g2, void *acc, const void *b);   /* acc += b */
} zp_cuda_curve;
/* The chunked MSM driver (zp_cuda_msm_chunked, zp_cuda_msm_add, zp_cuda_msm_passes) for either curve. */
int zp_cuda_curve_msm_chunked(const zp_cuda_curve *cc, int g2, void *out, const void *d_bases, const void *d_scalars,
                              size_t n, size_t chunk, void *d_scratch, size_t scratch_len, void *stream);
int zp_cuda_curve_msm_add(const zp_cuda_curve *cc, void *stream, int g2, void *acc, const void *d_bases,
                          const void *d_scalars, size_t n, void *d_scratch, size_t scratch_len);
int zp_cuda_curve_msm_passes(const zp_cuda_curve *cc, int g2, size_t n, unsigned parts, size_t len);
extern const zp_cuda_curve zp_cuda_curve_bls12_381, zp_cuda_curve_bn254;
/* By zp_curve_id; NULL for an unknown id. */
const zp_cuda_curve *zp_cuda_curve_of(int id);

/* A proving key's point arrays in device memory (prover/setup.h zp_setup_device makes one; the
 * CUDA backend adopts it through zp_g16_key.dev_points): a, b1, b2 n_vars points, c
 * max(n_vars − n_public − 1, 1), h domain_size (the odd-root snarkjs H query). */
typedef struct {
	zp_cuda_g1_aff *a, *b1, *c, *h;
	zp_cuda_g2_aff *b2;
} zp_cuda_key_dev;
/* cudaFree every non-NULL array (on the current device) and zero *k. */
void zp_cuda_key_dev_free(zp_cuda_key_dev *k);

/* ---- kept device memory (keep.cu): allocations that outlive the process that made them ----
 * An allocation is a driver object named by a file descriptor (CUDA's virtual memory management, POSIX
 * fd handles): it lives while a mapping or an fd refers to it, in any process — one that never used
 * CUDA may hold the fd. All on the current device; sizes are rounded up to the granularity
 * (zp_cuda_dkeep_size). Errors: -ENOTSUP (driver or device without fd export), -ENOMEM, -EIO. */
size_t zp_cuda_dkeep_size(size_t bytes);
/* *d: a new allocation of zp_cuda_dkeep_size(bytes) bytes mapped read-write; *fd: its handle (the
 * caller's to close: the memory goes when the last fd and mapping are gone). */
int zp_cuda_dkeep_alloc(void **d, size_t bytes, int *fd);
/* *d: the allocation fd names (made elsewhere with exactly `bytes`, a rounded size), mapped; fd stays the caller's. */
int zp_cuda_dkeep_import(void **d, size_t bytes, int fd);
/* Unmap what alloc or import mapped (bytes: the rounded size). */
void zp_cuda_dkeep_free(void *d, size_t bytes);
/* A position-keyed 64-bit sum of the words of d (bytes a multiple of 8), on stream (NULL: the default),
 * synchronized: the same bytes at the same offsets give the same sum. */
int zp_cuda_checksum(const void *d, size_t bytes, uint64_t *sum, void *stream);
/* A key's device arrays as the CUDA backend proves from them (A, B1, B2, C, H, split bases included), each
 * a kept allocation, for the next gpud of the same GPU (zp_g16_key.dev_keep; docs/keys.md "Device-kept keys"). */
#define ZP_CUDA_DKEEP_N 5
typedef struct {
	unsigned n;                              /* 0: none, else ZP_CUDA_DKEEP_N */
	int fd[ZP_CUDA_DKEEP_N];                 /* a, b1, b2, c, h */
	uint64_t bytes[ZP_CUDA_DKEEP_N];         /* as allocated (rounded) */
	uint64_t sum[ZP_CUDA_DKEEP_N];           /* zp_cuda_checksum of each when kept */
	uint32_t hsplit, wsplit, curve;          /* the split plan they hold, the key's curve id */
	uint64_t nv, dom;                        /* the key's wires and domain */
} zp_cuda_dkeep;

#ifdef __cplusplus
}
#endif
#endif

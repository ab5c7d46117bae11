/*
 * zkpipe key — proving key files: convert between snarkjs .zkey, bellperson .params and zkpipe's
 * .zpk; show a .zpk's header (checking it whole); time its loading against a plain read.
 */
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <unistd.h>

#include "cmd_util.h"
#include "keyfile.h"
#include "par.h"
#include "progress.h"
#include "params.h"
#include "zkey.h"
#include "zp_mem.h"
#include "health.h"
#include "payload_zp.h"

static const char key_help[] =
	"usage: zkpipe key convert --from IN --to OUT [--r1cs R | --synth SPEC] [--h-mode M] [--roots F]\n"
	"       zkpipe key info KEY.zpk | KEY.zkey\n"
	"       zkpipe key bench-load KEY.zpk [--runs N]\n"
	"  Formats by extension: .zkey (snarkjs), .params (Filecoin/bellperson), .zpk (zkpipe).\n"
	"  convert: .zkey -> .zpk | .params;  .params -> .zpk (needs the circuit: --r1cs or --synth, for\n"
	"           the A/B densities);  .zpk -> .params (coefficient H) | .zkey (snarkjs H; needs the circuit).\n"
	"    --h-mode M  for .zkey -> .zpk: snarkjs (default) or coeff (derives τ^i·Z(τ)/δ; n log n work)\n"
	"    --roots F   for .params -> .zpk: the root family the .params were made with (7: bellperson,\n"
	"                the default; 5: written by zkpipe from a snarkjs-family key)\n"
	"  info: header, flags (INSECURE development key?), counts, fingerprint; checks every checksum\n"
	"        (.zpk); for a .zkey its header (curve, counts). Both: the slot size a partition needs.\n"
	"  bench-load: cold-cache load rate (io_uring, O_DIRECT and buffered) against a plain read().\n";

static int is(const char *path, const char *ext)
{
	return !strcmp(cx_ext(path), ext);
}

static int convert(const char *from, const char *to, const char *r1cs, const char *synth, zp_h_mode hm, unsigned roots)
{
	zp_pkey k = { 0 };
	zp_circuit circ = { 0 };
	zp_synth_params sp;
	int rc, have_c = 0;
	/* a large conversion takes minutes: say what it is doing on stderr (a line that updates on a
	 * terminal, a line every few seconds otherwise) */
	zp_progress_begin("zkpipe key convert", 2, NULL);
	if (r1cs || synth) {
		zp_progress_stage("reading the circuit", 0, "items");
		if ((rc = cx_circuit(&circ, r1cs, synth, &sp)))
			return cx_fail("key convert", rc);
		have_c = 1;
	}
	if (is(from, "zkey")) {
		zp_zkey z;
		if (!(rc = zp_zkey_read(&z, from))) {
			zp_progress_stage(hm == ZP_H_COEFF || is(to, "params") ? "converting (deriving the coefficient H query)"
					  : "converting to the .zpk layout", 0, "items");
			rc = zp_pkey_from_zkey(&k, &z, is(to, "params") ? ZP_H_COEFF : hm);
			zp_zkey_free(&z);
		}
	} else if (is(from, "params")) {
		rc = have_c ? zp_params_read(&k, from, &circ, roots)
			    : zp_err_set(ZP_ERANGE, "reading .params needs the circuit (--r1cs or --synth): its A/B "
				         "densities say which wires the a, b_g1, b_g2 points belong to");
	} else if (is(from, "zpk")) {
		rc = zp_pkey_load(&k, from, NULL, NULL);
	} else {
		rc = zp_err_set(ZP_ERANGE, "%s: unknown input format (.zkey, .params, .zpk)", from);
	}
	if (!rc && have_c) {
		zp_progress_stage("checking the key against the circuit", 0, "items");
		rc = zp_pkey_check_circuit(&k, &circ, from);
	}
	if (!rc && k.zk.curve->id != ZP_CURVE_BLS12_381 && is(to, "params"))
		rc = zp_err_set(ZP_ERANGE, "%s: .params (bellperson) keys are BLS12-381 keys; %s is a %s key", to, from,
				k.zk.curve->name);
	if (rc)
		goto out;
	if (is(to, "zpk"))
		rc = zp_pkey_write(&k, to);
	else if (is(to, "params"))
		rc = zp_params_write(&k, to);
	else if (is(to, "zkey"))
		rc = have_c ? zp_pkey_write_zkey(&k, &circ, to)
			    : zp_err_set(ZP_ERANGE, "writing a .zkey needs the circuit (--r1cs or --synth) for section 4");
	else
		rc = zp_err_set(ZP_ERANGE, "%s: unknown output format (.zpk, .params, .zkey)", to);
	if (!rc && (k.hdr->flags & ZP_PKEY_INSECURE))
		fprintf(stderr, "zkpipe key convert: note: %s is an INSECURE development key\n", from);
out:
	zp_progress_end(rc ? "failed" : "converted");
	zp_pkey_free(&k);
	if (have_c)
		zp_circuit_free(&circ);
	return rc ? cx_fail("key convert", rc) : CX_OK;
}

/* The slot one partition of this key needs in the pipeline (pipe.h's payload layout). */
static void print_slot(uint32_t n_vars, uint32_t domain)
{
	struct zp_slot_payload p;
	uint64_t need = zp_payload_layout(&p, n_vars, domain);
	printf("slot size:    %" PRIu64 " bytes per partition (w, a, b, c after a 4 KiB header): [group] slot_size\n"
	       "              >= %" PRIu64 " MiB (2 MiB multiple), or slot_size = auto\n",
	       need, zp_pipe_slot_round(need) >> 20);
}

static int info_zkey(const char *path)
{
	zp_zkey z;
	int rc = zp_zkey_probe(&z, path);
	if (rc)
		return cx_fail("key info", rc);
	printf("file:         %s (snarkjs Groth16 .zkey; header checked, points not read)\n", path);
	printf("curve:        %s (snarkjs: %s)\n", z.curve->name, z.curve->snarkjs_name);
	printf("circuit:      %u wires, %u public, domain 2^%u\n", z.n_vars, z.n_public, z.log_domain);
	print_slot(z.n_vars, z.domain_size);
	return CX_OK;
}

static int info(const char *path)
{
	if (is(path, "zkey"))
		return info_zkey(path);
	zp_pkey k;
	int rc = zp_pkey_load(&k, path, NULL, NULL);
	if (rc)
		return cx_fail("key info", rc);
	const zp_pkey_header *h = k.hdr;
	char fp[33];
	zp_circuit_fingerprint_hex(&k.zk.circuit, fp);
	printf("file:         %s (%" PRIu64 " bytes, format version %u, all checksums good)\n", path, h->file_bytes,
	       h->version);
	printf("curve:        %s (snarkjs: %s)\n", k.zk.curve->name, k.zk.curve->snarkjs_name);
	printf("security:     %s\n", h->flags & ZP_PKEY_INSECURE ? "INSECURE development key (zkpipe setup)" : "not flagged");
	printf("origin:       %s\n", h->origin);
	printf("circuit:      %s, %u constraints, %u wires, %u public, domain 2^%u\n", fp, h->n_constraints, h->n_vars,
	       h->n_public, h->log_domain);
	printf("H convention: %s; roots of unity: family %u\n", h->h_mode == ZP_H_COEFF ? "coeff (τ^i·Z(τ)/δ)" : "snarkjs (odd-root Lagrange)",
	       h->roots);
	static const char *names[] = { "FIXED", "IC", "A", "B1", "B2", "C", "H" };
	for (int i = 0; i < ZP_PKS_N; i++)
		printf("  section %d %-5s offset %12" PRIu64 "  %10" PRIu64 " x %3u B  xxh64 %016" PRIx64 "\n", i + 1,
		       names[i], h->sec[i].offset, h->sec[i].count, h->sec[i].elem_bytes, h->sec[i].xxh64);
	print_slot(h->n_vars, h->domain_size);
	zp_pkey_free(&k);
	return CX_OK;
}

static void drop_cache(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd >= 0) {
		fdatasync(fd);
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
	}
}

static double plain_read(const char *path, void *buf, size_t len)
{
	double t0 = cx_now();
	int fd = open(path, O_RDONLY);
	size_t got = 0;
	ssize_t n;
	while (fd >= 0 && got < len && (n = read(fd, (char *)buf + got, len - got > (8u << 20) ? 8u << 20 : len - got)) > 0)
		got += (size_t)n;
	if (fd >= 0)
		close(fd);
	return got == len ? cx_now() - t0 : -1;
}

static int bench_load(const char *path, int runs)
{
	zp_pkey_header h;
	int rc = zp_pkey_probe(&h, path);
	if (rc)
		return cx_fail("key bench-load", rc);
	void *buf = zp_aligned_alloc(4096, h.file_bytes);
	if (!buf)
		return cx_fail("key bench-load", -ENOMEM);
	memset(buf, 0, h.file_bytes);   /* fault the pages in once: time the I/O, not page faults */
	double gib = h.file_bytes / 1073741824.0, best[3] = { 1e30, 1e30, 1e30 };
	for (int r = 0; r < runs && !rc; r++) {
		for (int mode = 0; mode < 3 && !rc; mode++) {
			zp_pkey k;
			zp_pkey_load_stats st = { 0 };
			zp_pkey_load_opts o = { .buf = buf, .buf_bytes = h.file_bytes, .buffered = mode == 1 };
			drop_cache(path);
			double t;
			if (mode == 2) {
				t = plain_read(path, buf, h.file_bytes);
			} else {
				rc = zp_pkey_load(&k, path, &o, &st);
				t = st.seconds;
				zp_pkey_free(&k);
				if (!rc && mode == 0 && !st.direct)
					printf("(O_DIRECT refused by the file system: buffered)\n");
			}
			if (t < best[mode])
				best[mode] = t;
		}
	}
	free(buf);
	if (rc)
		return cx_fail("key bench-load", rc);
	printf("%s: %.3f GiB, best of %d, page cache dropped before each run\n", path, gib, runs);
	printf("  zp_pkey_load O_DIRECT + xxh64: %.3f s  %.2f GiB/s\n", best[0], gib / best[0]);
	printf("  zp_pkey_load buffered + xxh64: %.3f s  %.2f GiB/s\n", best[1], gib / best[1]);
	printf("  plain read() 8 MiB, no checks: %.3f s  %.2f GiB/s\n", best[2], gib / best[2]);
	return CX_OK;
}

int cmd_key(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "from", 1, 0, 'f' }, { "to", 1, 0, 'o' }, { "r1cs", 1, 0, 'r' }, { "synth", 1, 0, 'S' },
		{ "h-mode", 1, 0, 'm' }, { "roots", 1, 0, 'R' }, { "runs", 1, 0, 'n' }, { "threads", 1, 0, 't' },
		{ "help", 0, 0, 'h' }, { 0 } };
	const char *from = NULL, *to = NULL, *r1cs = NULL, *synth = NULL;
	zp_h_mode hm = ZP_H_SNARKJS;
	unsigned roots = 0;
	int c, ex, runs = 3;
	const char *sub = cx_subcommand(&argc, &argv, key_help, &ex);
	if (!sub)
		return ex;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'f': from = optarg; break;
		case 'o': to = optarg; break;
		case 'r': r1cs = optarg; break;
		case 'S': synth = optarg; break;
		case 'R': roots = (unsigned)atoi(optarg); break;
		case 'n': runs = atoi(optarg); break;
		case 't': zp_par_set_threads(atoi(optarg)); break;
		case 'm':
			if (!strcmp(optarg, "snarkjs") || !strcmp(optarg, "coeff")) {
				hm = !strcmp(optarg, "coeff") ? ZP_H_COEFF : ZP_H_SNARKJS;
				break;
			}
			/* fall through */
		default: fputs(key_help, stderr); return CX_USAGE;
		case 'h': fputs(key_help, stdout); return CX_OK;
		}
	}
	if (!strcmp(sub, "convert") && from && to && optind == argc && !(r1cs && synth))
		return convert(from, to, r1cs, synth, hm, roots);
	if (!strcmp(sub, "info") && optind == argc - 1)
		return info(argv[optind]);
	if (!strcmp(sub, "bench-load") && optind == argc - 1 && runs > 0)
		return bench_load(argv[optind], runs);
	fputs(key_help, stderr);
	return CX_USAGE;
}

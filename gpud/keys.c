/*
 * keys.c — gpud's key table and its one table of key formats.
 *
 *   format   where it comes from                      how it is loaded
 *   zkey     [key] zkey = X.zkey (snarkjs)            whole file with io_uring (zp_file.h), parsed,
 *                                                     snarkjs H
 *   zpk      [key] zkey = X.zpk (zkpipe's own)        zp_pkey_load (io_uring, every section checked):
 *                                                     H mode and root family as the header says
 *   device   [key] setup = device                     a development key made on this GPU with fresh
 *                                                     toxic waste, points left in device memory
 *   params   a Filecoin .params registered by the     prover/params.c zp_params_load: the compact
 *            client library (<run>/srs/<id>), on       key as the file has it (density bitmaps per
 *            first use                                 proof), coefficient H, root family 7
 *
 * Where a key comes from is a second table, `ways`, tried in order (key_load): its key region, a
 * .params straight into a new region, a key made on the GPU (CUDA builds), the file. Its backend
 * state comes from a third, `creates`: the arrays the supervisor kept on the device (CUDA builds),
 * else the backend's create. CUDA-only entries are compiled in by one #ifdef around them.
 *
 * Every key then gets its verifying key and one backend state (be->create). A key that fails to
 * load is kept with its reason: its partitions fail with it, the other keys keep working.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends.h"
#include "g16_json.h"
#include "gpud.h"
#include "config.h"
#include "rundir.h"
#include "sys.h"
#include "knobs.h"
#include "payload_ss.h"
#include "progress.h"
#include "setup.h"
#include "synth.h"
#include "zkey.h"
#include "zp_err.h"
#include "zp_file.h"

#include <xxhash.h>

struct gpud_key_format {
	const char *name;
	const char *how;                       /* for the log line */
	int  (*load)(struct gpud *g, struct gpud_key *k, size_t *bytes);
	void (*free)(struct gpud_key *k);
	void (*settle)(struct gpud_key *k);    /* after the backend's create, loaded or not: what it did not adopt */
};

static int ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && !strcmp(s + n - m, suf);
}

/* A start-up stage of one key (the loaders name their own byte-counted stages). */
static void progress_key(const struct gpud_key *k, const char *what)
{
	char st[ZP_PROGRESS_STAGE_MAX + ZP_KEY_ID_MAX];
	snprintf(st, sizeof st, "key %.64s: %s", k->name, what); /* cut to the stage's length there */
	zp_progress_stage(st, 0, "items");
}

static int zkey_progress(void *arg, uint64_t off, uint64_t n)
{
	(void)arg, (void)off;
	zp_progress_add(n);
	return 0;
}

/* snarkjs .zkey: the whole file with io_uring (common/zp_file.h: 8 reads of 4 MiB in flight), parsed
 * into k->zk; snarkjs H. */
static int load_zkey(struct gpud *g, struct gpud_key *k, size_t *len)
{
	(void)g;
	uint8_t *data = NULL;
	char what[ZP_PROGRESS_STAGE_MAX];
	snprintf(what, sizeof what, "reading %s", k->path);
	struct stat st; /* the stage's total only: the reader checks the file itself */
	zp_progress_stage(what, stat(k->path, &st) ? 0 : (uint64_t)st.st_size, "bytes");
	zp_file_uring_opts o = { .queue_depth = 8, .chunk = 4u << 20, .on_chunk = zkey_progress };
	int r = zp_file_uring_load(k->path, 0, &data, len, &o); /* its errors name the file */
	if (!r)
		r = zp_zkey_parse(&k->zk, data, *len, k->path);
	free(data);
	if (!r)
		r = zp_g16_key_init(&k->gk, &k->zk, ZP_H_SNARKJS);
	return r;
}

static void free_zkey(struct gpud_key *k)
{
	zp_g16_key_free(&k->gk);
	zp_zkey_free(&k->zk);
}

/* zkpipe's own key file (.zpk, prover/keyfile.h): loaded whole with io_uring; zk and gk are
 * views into k->pk (its H mode and root family as recorded in the file). */
static int load_zpk(struct gpud *g, struct gpud_key *k, size_t *len)
{
	zp_pkey_load_stats st;
	int r = zp_pkey_load(&k->pk, k->path, NULL, &st);
	if (r)
		return r;
	k->zk = k->pk.zk;
	k->gk = *zp_pkey_g16(&k->pk);
	k->gk.zkey = &k->zk;
	*len = st.bytes;
	if (k->pk.hdr->flags & ZP_PKEY_INSECURE)
		zp_log(g->d.who, "key %s: %s is an INSECURE development key (%s)", k->name, k->path, k->pk.hdr->origin);
	return 0;
}

static void free_zpk(struct gpud_key *k)
{
	zp_pkey_free(&k->pk);
}

#ifdef ZP_HAVE_CUDA
/* setup = device: the synthetic circuit, then a development key made on this GPU with fresh
 * toxic waste (getrandom), its points left in device memory for the CUDA backend to adopt
 * (prover/setup_cuda.h). The circuit is freed at once (synthd has its own copy). */
static int load_device(struct gpud *g, struct gpud_key *k, size_t *len)
{
	zp_synth_params sp;
	zp_circuit c;
	zp_setup_stats st;
	int r;
	*len = 0;
	if (g->be != &zp_g16_backend_cuda)
		return zp_err_set(-EINVAL, "setup = device makes the key in GPU memory: it needs [group] backend = cuda "
				  "(this group's is %s)", g->be->name);
	if ((r = zp_synth_parse(&sp, k->cfg->synth)))
		return r;
	uint64_t t0 = zp_mono_ms();
	progress_key(k, "building the synthetic circuit");
	if ((r = zp_synth_circuit(&c, &sp)))
		return r;
	uint64_t t1 = zp_mono_ms();
	progress_key(k, "development setup on the GPU");
	/* bellperson's coefficient H (as Filecoin's keys): the H step needs NTTs of size n only, where the
	 * snarkjs odd-root H needs 2n twiddles — beyond the GPU NTT's 2^27 at PoRep size */
	zp_setup_opts o = { .h_mode = ZP_H_COEFF, .roots = 5, .origin = k->cfg->synth, .stats = &st };
	r = zp_setup_device(&k->kd, &k->zk, &c, &o);
	zp_circuit_free(&c);
	if (r)
		return r;
	zp_log(g->d.who, "key %s: INSECURE development key made on the GPU: circuit %llu ms, setup %.2f s (tables %.2f, "
	       "lagrange %.2f, A/B1/B2 %.2f, IC/C %.2f, H %.2f s)", k->name, (unsigned long long)(t1 - t0),
	       st.total, st.tables, st.lagrange, st.ab, st.c, st.h);
	k->gk = (zp_g16_key){ .zkey = &k->zk, .h_mode = ZP_H_COEFF, .roots = o.roots, .dev_points = &k->kd };
	return 0;
}

/* The device arrays of a key made on the GPU that no backend adopted (create failed early, or the key
 * went to its region and proves from there): the memory goes back. */
static void settle_device(struct gpud_key *k)
{
	zp_cuda_key_dev_free(&k->kd);
}
#else
static int load_device_needs_cuda(struct gpud *g, struct gpud_key *k, size_t *len)
{
	(void)g, (void)k, *len = 0;
	return zp_err_set(-ENOTSUP, "setup = device needs a build with CUDA and [group] backend = cuda");
}
#endif

/* A registered Filecoin .params: the compact key, read by prover/params.c alone. */
static int load_params(struct gpud *g, struct gpud_key *k, size_t *len)
{
	(void)g;
	int r = zp_params_load(&k->prm, k->path);
	if (r)
		return r;
	k->zk = k->prm.zk;
	k->gk = k->prm.gk;
	k->gk.zkey = &k->zk;
	*len = k->prm.in.file_bytes;
	return 0;
}

static void free_params(struct gpud_key *k)
{
	k->prm.gk.h_coeff = k->gk.h_coeff;  /* gk, zk may have dropped the host points (drop_host_points) */
	k->prm.zk = k->zk;
	zp_params_key_free(&k->prm);
}

enum { FMT_ZKEY, FMT_ZPK, FMT_DEVICE, FMT_PARAMS };
static const struct gpud_key_format formats[] = {
	[FMT_ZKEY] = { "zkey", "io_uring", load_zkey, free_zkey, NULL },
	[FMT_ZPK] = { "zpk", "io_uring", load_zpk, free_zpk, NULL },
#ifdef ZP_HAVE_CUDA
	[FMT_DEVICE] = { "device", "made on the GPU", load_device, free_zkey, settle_device },
#else
	[FMT_DEVICE] = { "device", "made on the GPU", load_device_needs_cuda, free_zkey, NULL },
#endif
	[FMT_PARAMS] = { "params", "mmap", load_params, free_params, NULL },
};

/* ---- key regions (keystore.h; docs/keys.md "Key regions") ----
 * A loaded key is kept in a key region named after the group's arena and the key (a setup = device key:
 * and this gpud, whose toxic waste it is), identified by its file (format, device, inode, size, mtime)
 * or, for a device key, by its synthetic circuit; a restart attaches it read-only, page-locks it for the
 * GPU and proves from it: the file is not read again. A region that cannot be made (no hugepages, no
 * room in /dev/shm) costs nothing but the next restart's load. */
static bool region_on(const struct gpud *g)
{
	static int secret; /* 0 not loaded yet, 1 loaded, -1 refused: regions off (shm/keyregion.h: the MAC) */
	if (!g->d.cfg.key_regions)
		return false;
	if (!secret) {
		secret = zp_keyregion_secret_load(g->d.cfg.run_dir) == 0 ? 1 : -1;
		if (secret < 0)
			zp_log(g->d.who, "key regions off: the run directory's secret: %s", zp_err_msg());
	}
	return secret > 0;
}

static int region_name_of(const struct gpud *g, const struct gpud_key *k, char *buf, size_t n, bool split)
{
	char key[ZP_KEY_ID_MAX + 16];
	size_t i = 0;
	for (const char *c = k->name; *c && i + 1 < ZP_KEY_ID_MAX; c++) /* "ss:<id>": ':' is no file name character */
		key[i++] = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.' ||
				   *c == '-' ? *c : '_';
	key[i] = 0;
	if (k->fmt == &formats[FMT_DEVICE])
		snprintf(key + i, sizeof key - i, ".gpud%u", g->d.index);
	return (split ? zp_keyregion_split_name : zp_keyregion_name)(buf, n, g->d.cfg.groups[g->d.group].arena, key);
}

static int region_name(const struct gpud *g, const struct gpud_key *k, char *buf, size_t n)
{
	return region_name_of(g, k, buf, n, false);
}

/* The split bases' store of a key that is (or was just put) in its key region k->ks: a region of its
 * own beside the key's, identified by the key region's header (keystore.h). */
static void split_prepare(struct gpud *g, struct gpud_key *k)
{
	char name[ZP_KREG_NAME_MAX];
	uint8_t base[16];
	if (!k->ks.reg.base || region_name_of(g, k, name, sizeof name, true))
		return;
	zp_keystore_split_base(&k->ks, base);
	zp_keystore_split_init(&k->split, name, NULL, base);
	zp_keystore_split_store(&k->split, &k->split_ops);
	k->split_on = true;
}

static int region_ident(const struct gpud *g, const struct gpud_key *k, uint8_t id[16])
{
	if (k->fmt != &formats[FMT_DEVICE])
		return zp_keyregion_file_ident(k->path, k->fmt->name, id);
	char what[512];
	int n = snprintf(what, sizeof what, "device\n%s\n%s\n%u", k->cfg->synth, g->d.cfg.groups[g->d.group].name, g->d.index);
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits(what, (size_t)n));
	memcpy(id, c.digest, 16);
	return 0;
}

static void region_views(struct gpud_key *k)
{
	k->zk = k->ks.zk;
	k->gk = k->ks.gk;
	k->gk.zkey = &k->zk;
	k->gk.host_stays = true; /* key_free closes the region after the backend's destroy */
	k->in_region = true;
	if (k->gk.compact) { /* the counts payload_ss.c checks a partition against, as zp_params_scan gives them */
		zp_params_info *in = &k->prm.in;
		memset(in, 0, sizeof *in);
		in->n_ic = k->zk.n_public + 1;
		in->n_l = k->zk.n_vars - in->n_ic;
		in->n_a = k->gk.n_a;
		in->n_b1 = in->n_b2 = k->gk.n_b;
		in->domain = k->zk.domain_size;
		in->n_h = (uint32_t)(in->domain - 1);
	}
}

/* The key from its region, if it has a complete one of this identity (a stale or half-written one is
 * removed, unless its creator is still writing it). */
static int region_take(struct gpud *g, struct gpud_key *k, size_t *len)
{
	char name[ZP_KREG_NAME_MAX];
	uint8_t id[16];
	int r = region_name(g, k, name, sizeof name);
	if (!r)
		r = region_ident(g, k, id);
	if (!r)
		r = zp_keystore_get(&k->ks, name, NULL, id);
	if (r) {
		if (r != -ENOENT && r != -ENAMETOOLONG) {
			zp_log(g->d.who, "key %s: not from its region: %s", k->name, zp_err_msg());
			zp_keystore_drop(name, NULL);
		}
		return r;
	}
	region_views(k);
	split_prepare(g, k);
	*len = (size_t)k->ks.reg.size;
	zp_log(g->d.who, "key %s: key from region %s (%s, %.2f GiB; made by pid %u): the key file is not read", k->name, name,
	       zp_backing_name(k->ks.reg.backing), k->ks.reg.size / 1073741824.0, zp_keyregion_hdr(&k->ks.reg)->creator_pid);
	return 0;
}

/* A .params file straight into a new region (io_uring, every point checked on all cores). */
static int region_load_params(struct gpud *g, struct gpud_key *k, size_t *len)
{
	char name[ZP_KREG_NAME_MAX];
	uint8_t id[16];
	zp_params_load_stats st;
	int r = region_name(g, k, name, sizeof name);
	if (!r && !(r = region_ident(g, k, id)))
		r = zp_keystore_params(&k->ks, name, NULL, id, k->name, k->path, NULL, &st);
	if (r)
		return r;
	region_views(k);
	split_prepare(g, k);
	*len = st.bytes;
	zp_log(g->d.who, "srs %s: %s decoded and checked into region %s in %.2f s (%.2f GB/s, %s, %u threads)", k->name, k->path,
	       name, st.secs, st.bytes / st.secs / 1e9, st.direct ? "O_DIRECT" : "buffered", st.threads);
	return 0;
}

/* A copy of a loaded key into its new region (name, id): region_copy_host below, region_copy_device
 * for a key made on the GPU. */
typedef int region_copy_fn(struct gpud_key *k, const char *name, const uint8_t id[16]);

/* The host arrays into the region; the key then proves from the region too: one host copy, the shared one. */
static int region_copy_host(struct gpud_key *k, const char *name, const uint8_t id[16])
{
	int r = zp_keystore_put(&k->ks, name, NULL, id, k->fmt->name, k->name, &k->gk);
	if (r == -EEXIST) /* another gpud of the group made it meanwhile: share that one */
		r = zp_keystore_get(&k->ks, name, NULL, id);
	if (!r) {
		k->fmt->free(k);
		region_views(k);
	}
	return r;
}

/* After a load from the file: a copy into a new region for the next start. Failure only costs that:
 * -1, else 0. */
static int region_keep(struct gpud *g, struct gpud_key *k, region_copy_fn *copy)
{
	char name[ZP_KREG_NAME_MAX];
	uint8_t id[16];
	int r = region_name(g, k, name, sizeof name);
	if (!r)
		r = region_ident(g, k, id);
	uint64_t t0 = zp_mono_ms();
	if (!r)
		r = copy(k, name, id);
	if (r) {
		zp_log(g->d.who, "key %s: no key region (%s): a restart loads the key again", k->name, zp_err_msg());
		return -1;
	}
	split_prepare(g, k);
	zp_log(g->d.who, "key %s: kept in region %s (%.2f GiB, %" PRIu64 " ms) for the next start", k->name, name,
	       k->ks.reg.size / 1073741824.0, zp_mono_ms() - t0);
	return 0;
}

/* A region key on a device backend is not page-locked here: the CUDA backend's upload pins it piece by
 * piece while the pieces before go up (cuda/upload.c), or pins the arrays it streams from. */
static void region_free(struct gpud_key *k)
{
	zp_keystore_close(&k->ks);
	k->in_region = false;
}

static void split_free(struct gpud *g, struct gpud_key *k)
{
	if (!k->split_on)
		return;
	if (k->split.hits || k->split.kept)
		zp_log(g->d.who, "key %s: split bases %s region %s (%.2f GiB)", k->name,
		       k->split.hits ? "from their" : "kept for the next start in", k->split.name, k->split.bytes / 1073741824.0);
	zp_keystore_split_close(&k->split);
	k->split_on = false;
}

static const struct gpud_key_format *format_of(const struct zp_pipe_key *cfg)
{
	if (!cfg)
		return &formats[FMT_PARAMS];
	if (cfg->setup_device)
		return &formats[FMT_DEVICE];
	return &formats[ends_with(cfg->zkey, ".zpk") ? FMT_ZPK : FMT_ZKEY];
}

/* A compact key on a device backend: the points went to the GPU at create, the host keeps only
 * what finish and the self-check read (the fixed points, IC) — unless the backend streams some of
 * them from host memory (a card smaller than the key: reads_host_key), then they stay until destroy. */
static void drop_host_points(struct gpud_key *k)
{
	if (!k->gk.compact || !k->be->reads_host_key || k->be->reads_host_key(k->be_state)) /* a device backend's op */
		return;
	free(k->zk.a);
	free(k->zk.b1);
	free(k->zk.b2);
	free(k->zk.c);
	free(k->gk.h_coeff);
	k->zk.a = k->zk.b1 = k->zk.c = NULL;
	k->zk.b2 = NULL;
	k->gk.h_coeff = NULL;
}

static void key_free(struct gpud_key *k)
{
	if (!k->in_region)
		k->fmt->free(k);
	if (k->ks.reg.base)
		region_free(k);
}

/* ---- device-kept keys (pipeline/dkeep.h) ----
 * The supervisor names the arrays it holds for this gpud's GPU slot in ZP_DKEEP (their fds are 3, 4, ...).
 * A key whose identity matches gets them offered to its backend (which adopts or closes them); what no
 * key took is closed once the keys are loaded; then every key whose backend kept its arrays is offered
 * to the supervisor. */
static void dkeep_init(struct gpud *g)
{
	const char *e = zp_knobs()->dkeep;
	g->dk_on = e != NULL;
	if (!e || !*e)
		return;
	pid_t pid;
	if (zp_dkeep_parse(e, g->dk_in, ZP_DKEEP_KEYS, &g->dk_n, &pid)) {
		zp_log(g->d.who, "ZP_DKEEP: %s: the kept device keys are not used", zp_err_msg());
		g->dk_n = 0;  /* its fds stay open unused: this process's life only */
		return;
	}
	zp_log(g->d.who, "%u key(s) kept on the device by the supervisor (%.2f GiB)", g->dk_n,
	       zp_dkeep_bytes(g->dk_in, g->dk_n) / 1073741824.0);
}

/* Once the keys are loaded: close what no key took. */
static void dkeep_close_untaken(struct gpud *g)
{
	if (!g->dk_on)
		return;
	for (unsigned i = 0; i < g->dk_n; i++)
		if (g->dk_in[i].fd[0] >= 0) {
			for (int j = 0; j < ZP_DKEEP_ARRAYS; j++)
				close(g->dk_in[i].fd[j]);
			zp_log(g->d.who, "a kept device key no configured key matches: given back (%.2f GiB)",
			       zp_dkeep_bytes(&g->dk_in[i], 1) / 1073741824.0);
		}
	g->dk_n = 0;
}

/* Whether [debug] inject names token whole (a ", "-separated list). */
static bool inject_has(const struct gpud *g, const char *token)
{
	char spec[sizeof g->d.cfg.inject], *save = NULL;
	snprintf(spec, sizeof spec, "%s", g->d.cfg.inject);
	for (char *t = strtok_r(spec, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
		if (!strcmp(t, token))
			return true;
	return false;
}

/* [debug] inject = create-fail@<key> (tests only): the key's backend create fails as a card too small
 * for the key would, every start (a key that does not fit never fits): the failure path of a real
 * device-memory refusal on any backend, CPU included. */
static bool inject_create(struct gpud *g, const struct gpud_key *k)
{
	char token[ZP_KEY_ID_MAX + 16];
	snprintf(token, sizeof token, "create-fail@%s", k->name);
	return inject_has(g, token);
}

/* [debug] inject = one-srs-card (tests only): a registered key's create fails as a device-memory refusal while
 * another registered key holds its backend state — a card with room for one 2^27 key at a time (keys.c's
 * parking), on any backend. */
static bool inject_one_srs(struct gpud *g, const struct gpud_key *k)
{
	if (k->cfg || !inject_has(g, "one-srs-card"))
		return false;
	for (unsigned i = g->d.cfg.n_keys; i < g->n_keys; i++)
		if (&g->keys[i] != k && g->keys[i].state == 1 && g->keys[i].be_state)
			return true;
	return false;
}

/* The error such a refusal carries: the context a backend adds to the allocator's own message. */
static const char *inject_text(struct gpud *g, const struct gpud_key *k)
{
	static char m[600];
	uint64_t need = (uint64_t)k->zk.n_vars * 4 * 96 + (uint64_t)k->zk.domain_size * 96;
	zp_err_set(-ENOMEM, "device memory: the key's arrays need %llu bytes, %llu of the card's %llu are free",
		   (unsigned long long)need, (unsigned long long)need / 2, (unsigned long long)need);
	zp_err_set(-ENOMEM, "%s backend: the key kept on the device (%llu bytes, kept on the device): %s", g->be->name,
		   (unsigned long long)need, zp_err_msg());
	zp_err_wrap(-ENOMEM, "%s backend", g->be->name);
	snprintf(m, sizeof m, "[debug] inject create-fail@%s: %s", k->name, zp_err_msg());
	return m;
}

/* ---- where a key comes from (key_load): tried in order ----
 * A way returns 0 (the key is loaded: zk, gk set, k->source says from where, *len its bytes), KEY_NEXT
 * (not this way: the next is tried) or a negative errno with its reason set (the key failed). The last
 * way, the key's file, takes every key. */
enum { KEY_NEXT = 1 };

/* Its key region, if it has a complete one of this identity: the file is not read. */
static int way_region(struct gpud *g, struct gpud_key *k, size_t *len)
{
	if (!region_on(g) || region_take(g, k, len))
		return KEY_NEXT;
	k->source = "region";
	return 0;
}

/* A .params straight into a new region. Another gpud of the group made it meanwhile: that one. It is
 * making it, or another user's object holds the name: the file, this gpud's own copy (no region). */
static int way_params_region(struct gpud *g, struct gpud_key *k, size_t *len)
{
	if (!region_on(g) || k->fmt != &formats[FMT_PARAMS])
		return KEY_NEXT;
	int r = region_load_params(g, k, len);
	if (r == -EEXIST && region_take(g, k, len) == 0) {
		k->source = "region";
		return 0;
	}
	if (r == -EPERM)
		zp_log(g->d.who, "key %s: no region: %s", k->name, zp_err_msg());
	if (r == -EEXIST || r == -EBUSY || r == -EPERM)
		return KEY_NEXT;
	k->source = "file";
	return r;
}

/* The key's file by its format's loader; regions on, a copy kept in one for the next start (a .params'
 * region is way_params_region's alone). */
static int way_file(struct gpud *g, struct gpud_key *k, size_t *len)
{
	int r = k->fmt->load(g, k, len);
	k->source = "file";
	if (!r && region_on(g) && k->fmt != &formats[FMT_PARAMS])
		region_keep(g, k, region_copy_host);
	return r;
}

/* ---- one card, several registered keys: parking ----
 * A 2^27 key's plan takes the card to its margin, so the next registered key (WindowPoSt beside PoRep, even
 * WinningPoSt's small one) would find no room. Its create refused for memory (-ENOMEM), the least recently
 * used other registered key whose arrays stay in host memory (its key region) gives its backend state back
 * — "parked": still loaded, its region and views kept — and the create is tried again, until it fits or no
 * key is left to park. A call for a parked key takes it up again the same way (gpud_key_unpark). Registered
 * keys prove on the main thread, one partition at a time (payload_ss.c), so a parked key has nothing in
 * flight; configured keys (whose partitions the device pipeline holds) are never parked. */
static struct gpud_key *park_victim(struct gpud *g, const struct gpud_key *k)
{
	struct gpud_key *v = NULL;
	for (unsigned i = g->d.cfg.n_keys; i < g->n_keys; i++) {
		struct gpud_key *o = &g->keys[i];
		if (o != k && o->state == 1 && o->be_state && o->in_region && (!v || o->used_ms < v->used_ms))
			v = o;
	}
	return v;
}

static void park(struct gpud *g, struct gpud_key *v, const struct gpud_key *for_k)
{
	uint64_t t0 = zp_mono_ms();
	v->be->destroy(v->be_state);
	v->be_state = NULL;
	v->parked = true;
	zp_log(g->d.who, "srs %s: its device state given back in %" PRIu64 " ms to make room for %s (the key stays in its "
	       "region; its next call takes it up again)", v->name, zp_mono_ms() - t0, for_k->name);
	gpud_health_serving(g);
}

/* The backend's create; [debug] inject = create-fail@<key> makes it fail as a card too small would. A
 * registered key refused for memory parks the others, least recently used first, and tries again. */
static int backend_create(struct gpud *g, struct gpud_key *k)
{
	for (;;) {
		int r = inject_create(g, k)	 ? zp_err_set(-ENOMEM, "%s", inject_text(g, k))
			: inject_one_srs(g, k) ? zp_err_set(-ENOMEM, "[debug] inject one-srs-card: %s: another key holds the card", k->name)
					       : k->be->create(&k->be_state, &k->gk);
		struct gpud_key *v = r == -ENOMEM && !k->cfg ? park_victim(g, k) : NULL;
		if (!v)
			return r;
		zp_log(g->d.who, "srs %s: %s", k->name, zp_err_msg());
		park(g, v, k);
		zp_err_clear();
	}
}

int gpud_key_unpark(struct gpud *g, struct gpud_key *k)
{
	if (!k->parked)
		return 0;
	uint64_t t0 = zp_mono_ms();
	zp_err_clear();
	zp_daemon_long_stage(&g->d, true); /* a key's upload, as at its load: the watchdog allows start_timeout_s */
	split_prepare(g, k);
	if (k->split_on)
		k->gk.split_store = &k->split_ops;
	int r = backend_create(g, k);
	k->gk.split_store = NULL;
	split_free(g, k);
	zp_daemon_long_stage(&g->d, false);
	if (r)
		return zp_err_wrap(r, "srs %s: taking it up again", k->path);
	k->parked = false;
	zp_log(g->d.who, "srs %s: taken up again in %" PRIu64 " ms (from its region)", k->name, zp_mono_ms() - t0);
	gpud_health_serving(g);
	return 0;
}

/* ---- the CUDA build's ways: a key made on the GPU, the arrays the supervisor kept on the device ---- */
#ifdef ZP_HAVE_CUDA
/* k's kept arrays from the supervisor, if it holds them: into k->dk for the backend's create. */
static void dkeep_offer_to_backend(struct gpud *g, struct gpud_key *k)
{
	uint8_t id[16];
	memset(&k->dk, 0, sizeof k->dk);
	if (!g->dk_on || k->gk.compact || region_ident(g, k, id))
		return;
	k->gk.dev_keep = &k->dk;
	for (unsigned i = 0; i < g->dk_n; i++) {
		zp_dkeep_rec *r = &g->dk_in[i];
		if (r->fd[0] < 0 || memcmp(r->ident, id, 16))
			continue;
		k->dk.n = ZP_CUDA_DKEEP_N;
		for (int j = 0; j < ZP_CUDA_DKEEP_N; j++)
			k->dk.fd[j] = r->fd[j], k->dk.bytes[j] = r->bytes[j], k->dk.sum[j] = r->sum[j];
		k->dk.hsplit = r->hsplit, k->dk.wsplit = r->wsplit, k->dk.curve = r->curve, k->dk.nv = r->nv, k->dk.dom = r->dom;
		r->fd[0] = -1; /* the backend's now: it adopts or closes them */
		return;
	}
}

/* Then offer what the backends kept to the supervisor. */
static void dkeep_offer_kept(struct gpud *g)
{
	if (!g->dk_on)
		return;
	zp_dkeep_rec out[ZP_DKEEP_KEYS];
	unsigned n = 0;
	for (unsigned i = 0; i < g->n_keys && n < ZP_DKEEP_KEYS; i++) {
		struct gpud_key *k = &g->keys[i];
		uint8_t id[16];
		if (k->state != 1 || k->dk.n != ZP_CUDA_DKEEP_N || region_ident(g, k, id))
			continue;
		zp_dkeep_rec *r = &out[n++];
		memcpy(r->ident, id, 16);
		for (int j = 0; j < ZP_DKEEP_ARRAYS; j++)
			r->fd[j] = k->dk.fd[j], r->bytes[j] = k->dk.bytes[j], r->sum[j] = k->dk.sum[j];
		r->hsplit = k->dk.hsplit, r->wsplit = k->dk.wsplit, r->curve = k->dk.curve, r->nv = k->dk.nv, r->dom = k->dk.dom;
	}
	if (!n)
		return;
	char text[ZP_DKEEP_TEXT + 1], path[PATH_MAX];
	int wr;
	if (zp_dkeep_format(text, sizeof text, out, n, getpid()) ||
	    zp_dkeep_path(path, sizeof path, &g->d.cfg, g->d.cfg.groups[g->d.group].name, g->d.index, 1)) {
		zp_log(g->d.who, "kept device keys not offered: %s", zp_err_msg());
		return;
	}
	if ((wr = zp_file_write_atomic(path, text, strlen(text), NULL))) {
		zp_log(g->d.who, "kept device keys not offered: %s", zp_err_text(wr));
		return;
	}
	/* until the supervisor has them (it removes the file), a death of this process would lose them: ready waits
	 * (its scan runs every 100 ms; at most 2 s) */
	uint64_t t0 = zp_mono_ms();
	struct stat st;
	while (!stat(path, &st) && zp_mono_ms() - t0 < 2000)
		usleep(5000);
	bool taken = stat(path, &st) != 0;
	zp_log(g->d.who, "%u key(s) kept on the device %s the supervisor (%.2f GiB, %llu ms)%s", n,
	       taken ? "taken by" : "offered to", zp_dkeep_bytes(out, n) / 1073741824.0,
	       (unsigned long long)(zp_mono_ms() - t0), taken ? ": a restart adopts them" : ": not taken yet");
}

/* A key made on the GPU into its region: the device arrays copied back into the region's sections. */
static int region_copy_device(struct gpud_key *k, const char *name, const uint8_t id[16])
{
	int r = zp_keystore_begin(&k->ks, name, NULL, id, "device", k->name, &k->gk);
	const struct { const char *s; const void *d; } part[] = { { "a", k->kd.a }, { "b1", k->kd.b1 }, { "b2", k->kd.b2 },
								   { "c", k->kd.c }, { "h", k->kd.h } };
	if (!r) {
		uint64_t n;
		void *w = zp_keystore_wsect(&k->ks, "ic", &n);
		memcpy(w, k->zk.ic, n);
		zp_cuda_host_register(k->ks.reg.base, k->ks.reg.size); /* a refusal only makes the copies slower */
		for (unsigned i = 0; !r && i < sizeof part / sizeof part[0]; i++)
			if ((w = zp_keystore_wsect(&k->ks, part[i].s, &n)) && n)
				r = zp_cuda_copy_to_host(w, part[i].d, n, NULL);
		zp_cuda_host_unregister(k->ks.reg.base);
		r = zp_keystore_seal(&k->ks, name, NULL, r);
	}
	if (!r)
		k->ks.gk.dev_points = NULL; /* the views are host points */
	return r;
}

/* setup = device: the key made on this GPU. Kept in its region (regions on), it proves from the region,
 * as after a restart: its device arrays go back first, and the backend places the key by its memory plan
 * (resident, or streamed from the region's page-locked pages where the card is smaller: no second host
 * copy). */
static int way_device(struct gpud *g, struct gpud_key *k, size_t *len)
{
	if (k->fmt != &formats[FMT_DEVICE])
		return KEY_NEXT;
	int r = k->fmt->load(g, k, len);
	k->source = "device setup";
	if (r || !region_on(g) || region_keep(g, k, region_copy_device))
		return r;
	zp_keystore_close(&k->ks); /* the copy for the next start; this one reads it back as that start will */
	zp_cuda_key_dev_free(&k->kd);
	k->fmt->free(k);
	if ((r = region_take(g, k, len)))
		return zp_err_set(r < 0 ? r : -EIO, "the key made on the GPU could not be read back from its region: %s",
				  zp_err_msg());
	k->source = "device setup, then its region";
	return 0;
}

/* The arrays the supervisor kept on the device for this key: the backend adopts them; kept for another
 * split plan (-EAGAIN: their fds are closed), the next way uploads the key as usual. */
static int create_kept(struct gpud *g, struct gpud_key *k)
{
	dkeep_offer_to_backend(g, k);
	if (!k->dk.n)
		return KEY_NEXT;
	int r = backend_create(g, k);
	if (r != -EAGAIN)
		return r;
	zp_log(g->d.who, "key %s: %s: uploading it", k->name, zp_err_msg());
	return KEY_NEXT;
}
#endif

static void (*const dkeep_done[])(struct gpud *g) = {
	dkeep_close_untaken,
#ifdef ZP_HAVE_CUDA
	dkeep_offer_kept,
#endif
};

typedef int key_way_fn(struct gpud *g, struct gpud_key *k, size_t *len);
static key_way_fn *const ways[] = {
	way_region,        /* its key region */
	way_params_region, /* a .params straight into a new region */
#ifdef ZP_HAVE_CUDA
	way_device,        /* setup = device: made on this GPU */
#endif
	way_file,          /* its file */
};

/* ---- the key's backend state (key_load): tried in order, as the ways ---- */
typedef int key_create_fn(struct gpud *g, struct gpud_key *k);
static key_create_fn *const creates[] = {
#ifdef ZP_HAVE_CUDA
	create_kept,       /* the arrays the supervisor kept on the device */
#endif
	backend_create,    /* the backend's create (a device backend: the key's upload) */
};

/* Load k (fmt, name, path set), its verifying key and its backend state. */
static void key_load(struct gpud *g, struct gpud_key *k)
{
	size_t len = 0;
	uint64_t t0 = zp_mono_ms();
	zp_err_clear();
	struct stat kst;
	if (k->cfg)
		gpud_health_key(g, k->name, "loading", NULL,
				k->cfg->zkey[0] && !stat(k->cfg->zkey, &kst) ? (uint64_t)kst.st_size : 0);
	else
		zp_daemon_long_stage(&g->d, true); /* a key load while serving: the watchdog allows start_timeout_s */
	int r = KEY_NEXT;
	for (unsigned i = 0; r == KEY_NEXT && i < sizeof ways / sizeof ways[0]; i++)
		r = ways[i](g, k, &len);
	bool loaded = !r;
	if (!r && !(r = zp_zkey_vk(&k->vk, &k->zk)) && !(r = zp_g16_backend_supports(g->be, &k->gk))) {
		if (k->cfg)   /* start-up only: registered Filecoin keys load while gpud serves */
			progress_key(k, "preparing the prover backend"); /* the CUDA backend: the key's upload */
		if (k->split_on) /* the split bases from (or into) their region: backends that make none ignore it */
			k->gk.split_store = &k->split_ops;
		k->be = zp_g16_backend_for_key(g->be, &k->gk);
		r = KEY_NEXT;
		for (unsigned i = 0; r == KEY_NEXT && i < sizeof creates / sizeof creates[0]; i++)
			r = creates[i](g, k);
		k->gk.split_store = NULL;
	}
	split_free(g, k); /* uploaded or kept: the mapping goes, the region stays */
	if (k->fmt->settle)
		k->fmt->settle(k);
	if (!k->cfg) {
		zp_daemon_long_stage(&g->d, false);
		/* a key loaded while serving started a progress stage (the .params reader's): end it, or the log
		 * keeps printing its "100 %" line every few seconds after the load */
		zp_progress_end(r ? "srs load failed" : "srs loaded");
	}
	if (r) {
		k->state = r;
		/* the reason once, whole: a message that names the key already ("key porep: ...", as the loaders
		 * and pipeline/health.c say it) is not prefixed again; the reason kept is what follows the name */
		char pre[ZP_KEY_ID_MAX + PATH_MAX + 8];
		snprintf(pre, sizeof pre, "%s %s", k->cfg ? "key" : "srs", k->cfg ? k->name : k->path);
		zp_err_wrap(r, "%s", pre);
		size_t skip = strlen(pre) + 2, have = strlen(zp_err_msg());
		snprintf(k->err, sizeof k->err, "%s", zp_err_msg() + (skip < have ? skip : have));
		zp_log(g->d.who, "%s FAILED at load: %s (%s)", pre, k->err,
		       k->cfg ? "not served by this gpud: its submits are refused" : "its partitions fail");
		if (k->cfg)
			gpud_health_key(g, k->name, "failed", k->err, 0);
		else
			gpud_health_serving(g); /* loaded while serving: its "failed" list */
		if (loaded)
			key_free(k);
		zp_g16_vk_free(&k->vk);
		return;
	}
	k->state = 1;
	k->used_ms = zp_mono_ms();
	if (!k->in_region)
		drop_host_points(k);
	if (!k->cfg) {
		gpud_health_serving(g);
		zp_log(g->d.who, "srs %s: %s: IC %u, l %u, a %u, b %u, domain %u; from %s, loaded in %" PRIu64 " ms (backend %s)",
		       k->name, k->path, k->zk.n_public + 1, k->zk.n_vars - k->zk.n_public - 1, k->gk.n_a, k->gk.n_b,
		       k->zk.domain_size, k->source, zp_mono_ms() - t0, g->be->name);
		return;
	}
	gpud_health_key(g, k->name, "ready", NULL, len);
	gpud_health_key_detail(g, k);
	if (k->zk.n_vars > g->max_vars)
		g->max_vars = k->zk.n_vars;
	if (k->zk.domain_size > g->max_domain)
		g->max_domain = k->zk.domain_size;
	zp_log(g->d.who, "key %s: %s, %u vars, domain %u, %zu bytes in %llu ms (%s; from %s)", k->name,
	       zp_curve_of(k->zk.curve)->name, k->zk.n_vars, k->zk.domain_size, len,
	       (unsigned long long)(zp_mono_ms() - t0), k->in_region ? "key region" : k->fmt->how, k->source);
}

void gpud_keys_load(struct gpud *g)
{
	dkeep_init(g);
	for (unsigned i = 0; i < g->d.cfg.n_keys; i++) {
		struct gpud_key *k = &g->keys[i];
		k->cfg = &g->d.cfg.keys[i];
		k->fmt = format_of(k->cfg);
		snprintf(k->name, sizeof k->name, "%s", k->cfg->name);
		snprintf(k->path, sizeof k->path, "%s", k->cfg->zkey);
		key_load(g, k);
	}
	g->n_keys = g->d.cfg.n_keys;
	for (unsigned i = 0; i < sizeof dkeep_done / sizeof dkeep_done[0]; i++)
		dkeep_done[i](g);
}

struct gpud_key *gpud_key_find(struct gpud *g, const char *name)
{
	for (unsigned i = 0; i < g->n_keys; i++)
		if (!strncmp(g->keys[i].name, name, ZP_KEY_ID_MAX))
			return &g->keys[i];
	return NULL;
}

struct gpud_key *gpud_key_srs(struct gpud *g, const char *id)
{
	struct gpud_key *k = gpud_key_find(g, id);
	if (k)
		return k->cfg ? NULL : k;
	if (strncmp(id, ZP_SS_KEY_PREFIX, strlen(ZP_SS_KEY_PREFIX)))
		return NULL;
	char path[PATH_MAX] = "";
	int r = zp_ss_srs_registered(&g->d.cfg, id + strlen(ZP_SS_KEY_PREFIX), path);
	if (r > 0)
		return NULL; /* not registered (yet): the library writes it before submitting */
	if (g->n_keys == GPUD_MAX_KEYS || g->n_keys - g->d.cfg.n_keys == GPUD_MAX_SRS) {
		zp_log(g->d.who, "%s", zp_err_text(zp_err_set(ZP_EFULL, "srs %s: %u keys loaded already (the most this gpud keeps)",
							       id, GPUD_MAX_SRS)));
		return NULL;
	}
	k = &g->keys[g->n_keys++];
	k->fmt = &formats[FMT_PARAMS];
	snprintf(k->name, sizeof k->name, "%s", id);
	snprintf(k->path, sizeof k->path, "%s", path);
	if (r < 0) { /* its file changed or went: another key now, or none. Failed once, as a load that fails is (its
		      * calls get the reason; the tick does not try it again); the supervisor's next start removes it */
		k->state = r;
		snprintf(k->err, sizeof k->err, "%s", zp_err_text(r));
		zp_log(g->d.who, "%s: not loaded", k->err);
		gpud_health_serving(g);
		return k;
	}
	key_load(g, k);
	return k;
}

/* <run dir>/keys/<name>.vk.json: every loaded configured key's verification key, so clients can
 * check the proofs of keys that exist only inside gpud; rewritten at every start. A setup = device
 * key is each gpud's own (its own toxic waste): <name>.<group>.gpud<i>.vk.json, and a partition's
 * part-<p>.gpu.json says which gpud proved it. */
void gpud_keys_write_vks(struct gpud *g)
{
	char dir[PATH_MAX], path[PATH_MAX + 192]; /* dir is short: the run directory holds ipc sockets */
	zp_pipe_path(dir, sizeof dir, &g->d.cfg, "keys");
	if (zp_file_mkdirs(dir, 0755))
		return;
	for (unsigned i = 0; i < g->d.cfg.n_keys; i++) {
		struct gpud_key *k = &g->keys[i];
		if (k->state != 1)
			continue;
		if (k->fmt == &formats[FMT_DEVICE]) /* made here with this gpud's own toxic waste */
			snprintf(path, sizeof path, "%s/%s.%s.gpud%u.vk.json", dir, k->name, g->d.cfg.groups[g->d.group].name,
				 g->d.index);
		else
			snprintf(path, sizeof path, "%s/%s.vk.json", dir, k->name);
		if (zp_g16_vk_write_json(path, &k->vk)) /* atomic: g16_json.c writes through zp_file */
			zp_log(g->d.who, "key %s: cannot write %s: %s", k->name, path, zp_err_msg());
	}
}

void gpud_keys_free(struct gpud *g)
{
	for (unsigned i = 0; i < g->n_keys; i++) {
		struct gpud_key *k = &g->keys[i];
		if (k->state != 1)
			continue;
		if (k->be_state)  /* a parked key has none */
			k->be->destroy(k->be_state);
		zp_g16_vk_free(&k->vk);
		key_free(k);
	}
	g->n_keys = 0;
}

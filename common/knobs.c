/* knobs.c — the environment's knobs, read once (knobs.h; the table: docs/knobs.md). */
#include "knobs.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "zp_err.h"

static zp_knobs_t K;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static const char *env(const char *name)
{
	return getenv(name);
}

static int on_unless_0(const char *name)
{
	const char *e = env(name);
	return !(e && *e == '0');
}

static int is_1(const char *name)
{
	const char *e = env(name);
	return e && !strcmp(e, "1");
}

static int num_in(const char *name, int lo, int hi)
{
	const char *e = env(name);
	int v = e ? atoi(e) : 0;
	return v >= lo && v <= hi ? v : 0;
}

static void num(zp_knob_num *k, const char *name, long lo, long hi, long dflt)
{
	const char *v = env(name);
	char *end;
	*k = (zp_knob_num){ .name = name, .raw = v, .v = dflt, .lo = lo, .hi = hi };
	if (!v || !*v)
		return;
	long x = strtol(v, &end, 10);
	if (*end || x < lo || x > hi)
		k->bad = 1;
	else
		k->v = x;
}

static void load(void)
{
	zp_knobs_t *k = &K;
	const char *e;
	memset(k, 0, sizeof *k);
	k->threads = num_in("ZP_THREADS", 1, 1 << 20);
	e = env("ZP_FIELD_PORTABLE");
	k->field_portable = e && *e == '1';
	e = env("ZP_MSM_BA");
	k->msm_ba = e && (e[0] == '0' || e[0] == '1') ? e[0] == '1' : -1;
	k->msm_batch = num_in("ZP_MSM_BATCH", 1, 65536);
	e = env("ZP_MSM_WINDOW");
	k->msm_window = e ? atoi(e) : 0;
	k->msm_ifma = on_unless_0("ZP_MSM_IFMA");
	e = env("ZP_MSM_K0");
	k->msm_k0 = e && (atoi(e) == 32 || atoi(e) == 128) ? atoi(e) : 64;
	k->msm_profile = env("ZP_MSM_PROFILE") != NULL;
	e = env("ZP_MSM_GLV");
	k->msm_glv = e && atoi(e) > 0 && atoi(e) <= 30 ? atoi(e) : 0;
	num(&k->cuda_device, "ZP_CUDA_DEVICE", 0, 1023, 0);
	e = env("ZP_CUDA_VERBOSE");
	k->cuda_verbose = e ? (atoi(e) > 0 ? atoi(e) : 1) : 0;
	k->cuda_no_register = env("ZP_CUDA_NO_REGISTER") != NULL;
	num(&k->cuda_msm_chunk, "ZP_CUDA_MSM_CHUNK", 8, 30, 30);
	num(&k->cuda_bufs, "ZP_CUDA_BUFS", 0, 2, 0);
	num(&k->cuda_mem_margin_mb, "ZP_CUDA_MEM_MARGIN_MB", -1, 1 << 20, -1); /* -1: by the card (cuda/plan.c) */
	num(&k->cuda_mem_cap_mb, "ZP_CUDA_MEM_CAP_MB", 0, 1 << 24, 0);
	num(&k->cuda_key_stream, "ZP_CUDA_KEY_STREAM", 0, 2, 0);
	num(&k->cuda_key_res, "ZP_CUDA_KEY_RES", 0, 31, -1);
	num(&k->cuda_key_stage, "ZP_CUDA_KEY_STAGE", 8, 30, 24);
	num(&k->cuda_split, "ZP_CUDA_SPLIT", 0, 1, -1);
	num(&k->cuda_upload, "ZP_CUDA_UPLOAD", 0, 3, 0);
	num(&k->cuda_split_keep, "ZP_CUDA_SPLIT_KEEP", 0, 1, 1);
	num(&k->params_gpu, "ZP_PARAMS_GPU", -1, 1, -1);
	k->gpud_pipeline = is_1("ZKPIPE_GPUD_PIPELINE");
	k->memcg = env("ZKPIPE_MEMCG");
	k->dkeep = env("ZP_DKEEP"); /* set (even empty): the supervisor holds kept keys for this gpud */
	k->sysfs = env("ZKPIPE_SYSFS");
	k->hugetlbfs = env("ZKPIPE_HUGETLBFS");
	k->config = env("ZKPIPE_CONFIG");
	k->group = env("ZKPIPE_GROUP");
	k->priority = env("ZKPIPE_PRIORITY");
	k->wait_s = env("ZKPIPE_WAIT_S");
	k->url = env("ZKPIPE_URL");
	k->examples = env("ZKPIPE_EXAMPLES");
	k->progress_s = env("ZKPIPE_PROGRESS_S");
}

const zp_knobs_t *zp_knobs(void)
{
	pthread_once(&once, load);
	return &K;
}

void zp_knobs_reload(void)
{
	pthread_once(&once, load);
	load();
}

int zp_knob_get(const zp_knob_num *k, const char *who)
{
	if (!k->bad)
		return 0;
	return zp_err_set(ZP_ERANGE, "%s: %s=%s: want an integer in [%ld, %ld]", who, k->name, k->raw, k->lo, k->hi);
}

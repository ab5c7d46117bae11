/*
 * gpud.h — zkpipe-gpud's parts and the state they share (one struct gpud, passed to every part).
 *
 *   main.c        the loop: takes a READY slot, picks its payload kind by the payload's magic,
 *                 check → take → release the slot → prove (payload.h)
 *   keys.c        the key table: configured keys (formats zkey, zpk, device) and registered
 *                 Filecoin keys (format params), one table of key formats, each key loaded once
 *                 and given a backend state
 *   pipe.c        the device pipeline: the GPU thread (prove_buf per queued partition) and the tail
 *                 thread (finish, self-check, proof files, DONE), input sets, [debug] inject
 *   payload_zp.c  zkpipe's own payload "ZZPSL01" (synthd's partitions: w, a, b, c)
 *   payload_ss.c  the Filecoin payload "ZZPSS01" (bellperson's partitions through the client
 *                 library: inputs, aux, a/b/c, density bitmaps, the caller's r and s)
 *
 * The prover is the backend's ops table (prover/groth16.h) for every payload kind: zkpipe's own
 * keys through upload/h/msm (or the pipeline ops), compact .params keys through dens_upload /
 * dens_prove.
 */
#ifndef ZP_GPUD_H
#define ZP_GPUD_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "daemon.h"
#include "groth16.h"
#include "keyfile.h"
#include "keystore.h"
#include "params.h"
#include "config.h"
#include "dkeep.h"
#include "zp_err.h"
#ifdef ZP_HAVE_CUDA
#include "setup_cuda.h"
#endif

#define GPUD_MAX_SRS 16            /* registered Filecoin keys a gpud keeps */
#define GPUD_MAX_KEYS (ZP_PIPE_MAX_KEYS + GPUD_MAX_SRS)

struct gpud_key_format;

struct gpud_key {
	const struct gpud_key_format *fmt;
	const struct zp_pipe_key *cfg;  /* configured keys; NULL for a registered .params */
	char name[ZP_KEY_ID_MAX];       /* the config's name, or the SRS id ("ss:…") */
	char path[PATH_MAX];
	zp_pkey pk;                     /* zpk: the loaded file (zk and gk are views into it) */
	zp_params_key prm;              /* params: the compact key (zk and gk are copies of its views) */
	zp_keystore_key ks;             /* in_region: the key region zk and gk are views into (keys.c) */
	bool in_region;
	bool split_on;                  /* split: the key came from, or went into, a key region (keys.c) */
	zp_keystore_split split;        /* the backend's split bases kept beside the key's region */
	zp_g16_split_store split_ops;
	const char *source;             /* where this start took the key from: "region", "file", "device setup" */
#ifdef ZP_HAVE_CUDA
	zp_cuda_key_dev kd;             /* device: the points in GPU memory until the backend adopts them */
	zp_cuda_dkeep dk;               /* the key's arrays kept on the device (keys.c, pipeline/dkeep.h) */
#endif
	zp_zkey zk;
	zp_g16_key gk;
	zp_g16_vk vk;
	void *be_state;
	const zp_g16_backend_ops *be;   /* be_state's ops: the group's backend's for the key's format (zp_g16_backend_for_key) */
	int state;                      /* 1 loaded, <0 error (err says why) */
	bool parked;                    /* loaded, its backend state given back to make room on the card (keys.c) */
	uint64_t used_ms;               /* a registered key's last call (the key parked first is the least recent) */
	int nbufs, busy[2];             /* device pipeline: input sets of be_state, in use */
	char err[ZP_ERR_MSG_MAX];      /* why it failed (state < 0): the reason, without "key <name>: " */
};

/* One partition of zkpipe's payload between its copy to the device and DONE (pipe.c). */
struct gpud_flight {
	struct gpud_flight *next;
	struct gpud_key *k;
	zp_part_h ph;
	int buf;                        /* the device input set it occupies */
	char out[ZP_PATH_MAX], key_id[ZP_KEY_ID_MAX];
	uint32_t nparts;
	uint64_t job_id;
	zp_fr *pub;                     /* n_public inputs, copied from the slot before its release */
	zp_g16_msm_out mo;
	unsigned attempt;               /* this gpud's proof attempts so far ([debug] inject) */
};

/* gpud's pipeline state (pipe.c). */
struct gpud_pipe {
	pthread_mutex_t mu;
	pthread_cond_t cv;              /* any change below */
	struct gpud_flight *gpu_q, *tail_q; /* FIFOs */
	unsigned in_flight;             /* copied, not yet finished */
	int stop, gpu_idle;
	pthread_t gpu_th, tail_th, reg_th; /* reg_th: the arena's registration for DMA (after ready) */
	int reg_started;
	unsigned inj_attempts;          /* [debug] inject: proof attempts so far */
	bool inj_sticky;
};

struct gpud {
	struct zp_daemon d;
	const zp_g16_backend_ops *be;
	bool pipelined;                 /* the backend has the pipeline ops: pipe.c runs */
	struct gpud_key keys[GPUD_MAX_KEYS];
	unsigned n_keys;                /* configured keys first (d.cfg.n_keys), then registered */
	zp_fr *buf_w, *buf_abc;         /* the plain path's copy of a slot (zkpipe payload) */
	uint64_t max_vars, max_domain;
	char gpu_desc[ZP_PIPE_GPU_NAME];/* the GPU as configured (bus id or ordinal), "" = index */
	uint64_t parts_proved;          /* by this process */
	uint64_t last_ss_tick_ms;
	struct ss_ctx *ss;              /* payload_ss.c: the partition between take and prove */
	struct gpud_pipe pl;
	struct json_t *health;          /* main.c: the health file's content */
	/* device-kept keys (pipeline/dkeep.h): on when the supervisor started this gpud with ZP_DKEEP */
	bool dk_on;
	unsigned dk_n;
	zp_dkeep_rec dk_in[ZP_DKEEP_KEYS];   /* the supervisor's, fds 3, 4, ...; fd[0] = -1 once taken */
};

#define gpud_fail(g, ph, retry, ...) zp_daemon_fail_part(&(g)->d, (ph), (retry), __VA_ARGS__)

/* main.c: the health file (<run>/health/<group>.gpud<i>.json) */
void gpud_health_stage(struct gpud *g, const char *stage, const char *err);
void gpud_health_key(struct gpud *g, const char *name, const char *state, const char *err, uint64_t bytes);
/* "serves", "failed", "gpu" and the stage (ready / degraded) from the key table; the keys served. */
unsigned gpud_health_serving(struct gpud *g);
/* A ready key's source (region, file, device setup) and, from the backend, its device memory by use. */
void gpud_health_key_detail(struct gpud *g, const struct gpud_key *k);

/* pipe.c: worker threads whose stages the heartbeat follows (pipeline/daemon.h) */
enum { GPUD_W_GPU = 1, GPUD_W_TAIL = 2 };

/* keys.c */
void gpud_keys_load(struct gpud *g);        /* the configured keys (and the device-kept ones offered) */
void gpud_keys_write_vks(struct gpud *g);
struct gpud_key *gpud_key_find(struct gpud *g, const char *name);
/* A registered Filecoin key by SRS id, loaded on first use (NULL: not registered, or no room). */
struct gpud_key *gpud_key_srs(struct gpud *g, const char *id);
/* A parked registered key's backend state made again (other keys parked for room if need be): 0, or the
 * error with its reason set (the key stays parked; its next call tries again). */
int gpud_key_unpark(struct gpud *g, struct gpud_key *k);
void gpud_keys_free(struct gpud *g);

/* pipe.c */
int  gpud_pipe_start(struct gpud *g);
void gpud_pipe_push(struct gpud *g, struct gpud_flight *f); /* to the GPU thread (input set copied) */
void gpud_flight_free(struct gpud *g, struct gpud_flight *f);
void gpud_pipe_stop(struct gpud *g);
bool gpud_pipe_sets_free(struct gpud *g);  /* every loaded key has a free input set */
void gpud_pipe_wait(struct gpud *g, int ms); /* until something in the pipeline changes, or ms */
void gpud_pipe_drain(struct gpud *g);     /* until nothing is in flight */
int  gpud_pipe_set_take(struct gpud *g, struct gpud_key *k, int ms); /* a free input set of k, or -1 */
void gpud_pipe_set_give(struct gpud *g, struct gpud_key *k, int set);
bool gpud_inject_due(struct gpud *g, const char *what, unsigned attempt);
void gpud_check_fatal(struct gpud *g);

#endif

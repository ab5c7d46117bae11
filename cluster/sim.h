/*
 * sim.h — zkpipe-clusterd's simulated node, a BENCHMARK FACILITY (bench/cluster/scale_bench.sh,
 * docs/cluster.md "Scale"): many node processes against one database on one machine, each
 * proving nothing.
 *
 *   zkpipe-clusterd --config FILE --simulate-prove-ms MS
 *
 * The node runs the same clusterd code and SQL (heartbeat, key registration, claim, inputs,
 * started_at, fenced partition commits, DONE, lease checks, re-queue of dead nodes); only the
 * supervisor behind its client API is replaced: a "submit" queues the job's partitions on the
 * node's simulated GPUs (the sum of its groups' gpus), each partition "proved" MS after it
 * starts, with a synthetic proof, public input and gpu record written where gpud would write
 * them (<spool>/j<job>e<epoch>/out), which clusterd then reads and commits as usual.
 *
 * It cannot be switched on by accident: no config key or environment variable enables it (the
 * supervisor never passes the flag); the database must carry the row
 * zkpipe.meta ('bench_simulation', 'yes'), which only a benchmark's scratch database has
 * (clusterd exits otherwise); and a simulated node serves only `setup = device` keys, whose
 * verifying-key hash it registers as "sim-…" — a real node refuses such keys in cluster mode,
 * and a key registered by a real node never matches a "sim-" hash, so the two never share a key.
 *
 * Measurement: every claim and partition-commit statement's round trip is recorded (wall-clock
 * time, µs, rows) and written at a clean stop to <run dir>/sim-stats.tsv.
 */
#ifndef ZP_CLUSTER_SIM_H
#define ZP_CLUSTER_SIM_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cluster.h"

struct zp_pipe_config;
struct zp_pipe_key;

#define ZP_SIM_META_KEY "bench_simulation" /* zkpipe.meta row that allows simulated nodes */

/* The flag's value: the simulated proving time of one partition, 0..600000 ms. */
int zp_sim_init(const char *ms, const struct zp_pipe_config *c);
bool zp_sim_on(void);
/* Refuse (< 0, message in zp_err_msg()) unless the database is marked for simulation. */
int zp_sim_db_check(struct zp_db *db);
/* The simulated supervisor: a client API request (consumed) -> its reply, or NULL with *err. */
json_t *zp_sim_api(json_t *req, char *err, size_t errn);
/* A key's verifying-key hash and vk text, as clusterd's key_load: 1 served, -1 refused (*why). */
int zp_sim_key(const struct zp_pipe_key *k, char *hash, size_t hn, char **vk, char *why, size_t wn);
/* Statement timing (monotonic µs before and after, rows returned). */
enum zp_sim_what { ZP_SIM_CLAIM, ZP_SIM_COMMIT };
uint64_t zp_sim_us(void);
void zp_sim_note(enum zp_sim_what w, uint64_t t0_us, int rc, int rows);
/* Write <run dir>/sim-stats.tsv (at a clean stop). */
void zp_sim_finish(const struct zp_db *db);

#endif

/*
 * ss_stats.h — libzkpipe-supraseal's one extension to the supraseal-c2 ABI: where the time of the
 * calling thread's last call went (benchmarks, monitoring). Times are ns; sums over partitions.
 */
#ifndef ZP_SS_STATS_H
#define ZP_SS_STATS_H

#include <stdint.h>

struct zkpipe_ss_stats {
	uint32_t parts;
	uint64_t bytes;          /* payload bytes copied into slots */
	uint64_t total_ns;       /* the call, end to end */
	uint64_t start_ns;       /* submit + every partition handed over (start_c's part) */
	uint64_t setup_ns;       /* connect, checks, process entry, job record, job directory */
	uint64_t first_ready_ns; /* call start -> first partition READY (and gpuds hinted) */
	uint64_t slot_wait_ns;   /* waiting for a FREE slot (and for older callers to go first) */
	uint64_t copy_ns;        /* copying into slots */
	uint64_t handoff_ns;     /* slot READY -> gpud starts proving (its copy-out, or with backend cuda its DMA slot -> GPU, included) */
	uint64_t prove_ns;       /* gpud proving (H, MSMs, finish, self-verify) */
	uint64_t wait_ns;        /* finish: waiting for the proofs */
	/* the last partition's timeline, ns after the call started (arena stage stamps) */
	uint64_t last_ready_at_ns, last_gpu_start_at_ns, last_gpu_end_at_ns, last_done_at_ns;
	uint64_t seen_at_ns;     /* the library had every proof */
	uint64_t copy_out_ns;    /* gpud taking each slot: COPY_START -> COPY_END (with backend cuda and a
	                            registered arena: the DMA slot -> GPU; else the copy-out), summed */
};

__attribute__((visibility("default"))) void zkpipe_supraseal_stats(struct zkpipe_ss_stats *out);

#endif

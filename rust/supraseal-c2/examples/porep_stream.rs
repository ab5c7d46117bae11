//! A stand-in for bellperson/cuzk proving PoRep through the crate's split API, for the GPU benchmark
//! of issue 33 item 4 (bench/supraseal/crate_porep.sh runs it; its figures are in bench/RESULTS.md).
//!
//!   porep_stream PARAMS PARTS PROOFS [--parts K] [--rate-gbs R] [--workers W] [--queue Q] [--synth-threads N] [--hold] [--out FILE]
//!     PARTS   a directory holding part0.bin written by `ss_cmp dump SPEC 1 DIR` (the template witness)
//!     PROOFS  proofs to make, each of K partitions (default 10, a 32 GiB PoRep's)
//!     --rate-gbs R   synthesis writes each partition's assignment (w, a, b, c, bit vectors) at R GB/s
//!                    (default 0: as fast as memcpy); a real bellperson writes ~16 GB a partition
//!                    over its synthesis time, so R = 16 / (seconds a partition) models it
//!     --workers W    partitions synthesized at once, each by its own writer (default 1). bellperson's
//!                    synthesis of a PoRep partition is mostly one thread (its witness: Poseidon/SHA), ~39 s
//!                    on a Zen 4 core (curio's c2-optimization-proposal-7), and cuzk runs a pool of such
//!                    workers: `--workers W --synth-threads 1 --rate-gbs 0.41` (16 GB / 39 s) models it;
//!                    each worker holds its partition's buffers (~16 GB at 2^27) until it is handed over
//!     --queue Q      synthesized partitions that may wait for the prover (default 1, cuzk's bounded channel;
//!                    0: a worker waits holding its own). Host memory, this process: the template + (W + Q +
//!                    1) partitions (the +1 in start_groth16_proof's copy); at 2^27 16 GB each
//!     --synth-threads N  threads that write one partition (default: the CPUs / W). With one, a 2^27
//!                    partition (16 GB of fresh pages) took 10.4 s end to end on the lent 16-CPU host,
//!                    where the proving takes under 2 s
//!     --hold         keep each partition's buffers until its finish_groth16_proof returns, as cuzk does: what
//!                    supraseal-c2's split API needs (its b_g2_msm reads the witness after start returns;
//!                    bench/supraseal/ssc2_shim.c runs this program on it). At most two partitions are then
//!                    held past their start (one being finished, one waiting for the finisher)
//!     --out FILE     every partition's proof, 384 bytes each, in partition order
//!
//! Synthesis runs on its own threads beside the proving: each worker takes the next partition, allocates
//! fresh buffers and fills them (copies of the template, so every proof verifies with ss_cmp verify K=1),
//! then hands the partition over a channel of capacity 1 (at most one synthesized partition waiting, as
//! cuzk's bounded channel). The prover thread calls start_groth16_proof for it (one circuit), drops the buffers at once
//! (zkpipe has copied them into a slot) and passes the handle to a finisher thread, which calls
//! finish_groth16_proof. Printed per proof: wall time from its first partition's synthesis start to its
//! last proof; at the end the steady rate (proofs after the first, per hour), this process's peak RSS, and
//! where a partition's time went (medians over all partitions): `synth_s` writing it, `start_s` in
//! start_groth16_proof (waiting for a free slot, then the copy into it), `finish_s` from that call's return
//! to finish_groth16_proof's (queueing behind earlier partitions, then the proof).
use std::fs;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::sync_channel;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use supraseal_c2::{alloc_gpu_mutex, finish_groth16_proof, free_gpu_mutex, start_groth16_proof, SRS};

#[derive(Clone, Copy)]
#[repr(C)]
struct Fr([u64; 4]);

#[derive(Clone, Copy)]
#[repr(C)]
struct Proof([u64; 48]);

struct Part {
    n_inp: usize,
    n_aux: usize,
    abc: usize,
    pops: [usize; 3],
    w: Vec<Fr>,
    a: Vec<Fr>,
    b: Vec<Fr>,
    c: Vec<Fr>,
    bits: [Vec<u64>; 3],
    r: Fr,
    s: Fr,
}

fn die(msg: String) -> ! {
    eprintln!("porep_stream: FAIL: {}", msg);
    std::process::exit(1);
}

fn u64s(b: &[u8]) -> Vec<u64> {
    b.chunks_exact(8).map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])).collect()
}

fn frs(b: &[u8]) -> Vec<Fr> {
    let word = |c: &[u8], i: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&c[8 * i..8 * i + 8]);
        u64::from_le_bytes(w)
    };
    b.chunks_exact(32).map(|c| Fr([word(c, 0), word(c, 1), word(c, 2), word(c, 3)])).collect()
}

fn load(path: &Path) -> Part {
    let bytes = fs::read(path).unwrap_or_else(|e| die(format!("{}: {}", path.display(), e)));
    if bytes.len() < 48 {
        die(format!("{}: too short", path.display()));
    }
    let h = u64s(&bytes[..48]);
    let (n_inp, n_aux, abc) = (h[0] as usize, h[1] as usize, h[2] as usize);
    let (wa, wi) = ((n_aux + 63) / 64, (n_inp + 63) / 64);
    let need = 48 + 32 * (n_inp + n_aux + 3 * abc) + 8 * (2 * wa + wi) + 64;
    if bytes.len() != need {
        die(format!("{}: {} bytes, its header says {}", path.display(), bytes.len(), need));
    }
    // straight from the file's bytes (no whole copy beside them: a 2^27 partition is 16 GB)
    let mut at = 48;
    let mut take = |n: usize| {
        let s = &bytes[at..at + 8 * n];
        at += 8 * n;
        s
    };
    let w = frs(take(4 * (n_inp + n_aux)));
    let (a, b, c) = (frs(take(4 * abc)), frs(take(4 * abc)), frs(take(4 * abc)));
    let bits = [u64s(take(wa)), u64s(take(wi)), u64s(take(wa))];
    let rs = frs(take(8));
    Part { n_inp, n_aux, abc, pops: [h[3] as usize, h[4] as usize, h[5] as usize], w, a, b, c, bits, r: rs[0], s: rs[1] }
}

/// copies `src` into a fresh vector in 64 MiB steps, `threads` steps at once (each thread first-touches its
/// own pages, as a partition synthesized by many threads does), holding `rate` bytes/s overall (0: no limit)
fn write_at<T: Copy + Send + Sync>(src: &[T], rate: f64, threads: usize, clock: &mut (Instant, f64)) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(src.len());
    let step = ((64 << 20) / core::mem::size_of::<T>().max(1)).max(1);
    {
        let dst = &mut out.spare_capacity_mut()[..src.len()];
        let mut d = dst.chunks_mut(step);
        let mut s = src.chunks(step);
        loop {
            let round: Vec<_> = (&mut d).zip(&mut s).take(threads.max(1)).collect();
            if round.is_empty() {
                break;
            }
            let bytes: usize = round.iter().map(|(_, c)| c.len() * core::mem::size_of::<T>()).sum();
            thread::scope(|sc| {
                for (dc, sc_) in round {
                    sc.spawn(move || {
                        // SAFETY: dc and sc_ are disjoint slices of the same length; T is Copy
                        unsafe { core::ptr::copy_nonoverlapping(sc_.as_ptr(), dc.as_mut_ptr() as *mut T, sc_.len()) }
                    });
                }
            });
            clock.1 += bytes as f64;
            if rate > 0.0 {
                let due = Duration::from_secs_f64(clock.1 / rate);
                let el = clock.0.elapsed();
                if due > el {
                    thread::sleep(due - el);
                }
            }
        }
    }
    // SAFETY: every element of the first src.len() was written above
    unsafe { out.set_len(src.len()) };
    out
}

fn synthesize(t: &Part, rate: f64, threads: usize) -> Part {
    let mut clock = (Instant::now(), 0.0);
    let mut w = |v: &Vec<Fr>| write_at(v, rate, threads, &mut clock);
    let (pw, pa, pb, pc) = (w(&t.w), w(&t.a), w(&t.b), w(&t.c));
    let bits = [
        write_at(&t.bits[0], rate, threads, &mut clock),
        write_at(&t.bits[1], rate, threads, &mut clock),
        write_at(&t.bits[2], rate, threads, &mut clock),
    ];
    Part { n_inp: t.n_inp, n_aux: t.n_aux, abc: t.abc, pops: t.pops, w: pw, a: pa, b: pb, c: pc, bits, r: t.r, s: t.s }
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(core::cmp::Ordering::Equal));
    v[v.len() / 2]
}

fn peak_rss_kib() -> u64 {
    let s = fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: porep_stream PARAMS PARTS PROOFS [--parts K] [--rate-gbs R] [--workers W] [--queue Q] [--synth-threads N] [--hold] [--out FILE]");
        std::process::exit(2);
    }
    let params = PathBuf::from(&args[1]);
    let dir = PathBuf::from(&args[2]);
    let proofs: usize = args[3].parse().unwrap_or_else(|_| die(format!("PROOFS: {}", args[3])));
    let (mut k, mut rate, mut out) = (10usize, 0.0f64, None);
    let cpus = thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let (mut workers, mut threads, mut queue, mut hold) = (1usize, 0usize, 1usize, false);
    let mut i = 4;
    while i < args.len() {
        if args[i] == "--hold" {
            hold = true;
            i += 1;
            continue;
        }
        let v = args.get(i + 1).cloned().unwrap_or_else(|| die(format!("{} needs a value", args[i])));
        match args[i].as_str() {
            "--parts" => k = v.parse().unwrap_or_else(|_| die(format!("--parts {}", v))),
            "--rate-gbs" => rate = v.parse::<f64>().unwrap_or_else(|_| die(format!("--rate-gbs {}", v))) * 1e9,
            "--out" => out = Some(PathBuf::from(v)),
            "--synth-threads" => threads = v.parse().unwrap_or_else(|_| die(format!("--synth-threads {}", v))),
            "--queue" => queue = v.parse().unwrap_or_else(|_| die(format!("--queue {}", v))),
            "--workers" => workers = v.parse().unwrap_or_else(|_| die(format!("--workers {}", v))),
            o => die(format!("unknown option {}", o)),
        }
        i += 2;
    }
    if proofs == 0 || k == 0 || workers == 0 {
        die("PROOFS, --parts and --workers must be positive".to_string());
    }
    if threads == 0 {
        threads = (cpus / workers).max(1);
    }
    let template = Arc::new(load(&dir.join("part0.bin")));
    let srs = SRS::try_new(params, false).unwrap_or_else(|e| die(format!("SRS::try_new: {}", e)));
    let mtx = alloc_gpu_mutex() as usize;
    let t0 = Instant::now();

    // (partition, its synthesis, when its synthesis began, seconds it took)
    let (to_prover, from_synth) = sync_channel::<(usize, Part, f64, f64)>(queue);
    // (partition, pending handle, when its synthesis began, seconds synthesizing, seconds in start, when start
    // returned, its buffers with --hold)
    let (to_finisher, from_prover) =
        sync_channel::<(usize, usize, f64, f64, f64, Instant, Option<Part>)>(if hold { 0 } else { k });
    let total = proofs * k;
    let next = Arc::new(AtomicUsize::new(0));
    let synth: Vec<_> = (0..workers)
        .map(|_| {
            let (to_prover, template, next) = (to_prover.clone(), template.clone(), next.clone());
            thread::spawn(move || loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                if n >= total {
                    return;
                }
                let at = t0.elapsed().as_secs_f64();
                let p = synthesize(&template, rate, threads);
                let took = t0.elapsed().as_secs_f64() - at;
                if to_prover.send((n, p, at, took)).is_err() {
                    return;
                }
            })
        })
        .collect();
    drop(to_prover);
    let srs2 = srs.clone();
    let prover = thread::spawn(move || {
        for (n, p, at, synth_s) in from_synth {
            let called = Instant::now();
            let handle = start_groth16_proof(
                &[p.a.as_ptr()],
                &[p.b.as_ptr()],
                &[p.c.as_ptr()],
                p.abc,
                &[p.w.as_ptr()],
                &[p.w[p.n_inp..].as_ptr()],
                p.n_inp,
                p.n_aux,
                &p.bits[0],
                &p.bits[1],
                &p.bits[2],
                p.pops[0],
                p.pops[1],
                p.pops[2],
                1,
                &[p.r],
                &[p.s],
                &srs2,
                mtx as *mut _,
                -1,
            );
            let returned = Instant::now();
            // zkpipe: the partition is in a slot, its memory goes back now; --hold: after its finish
            let keep = if hold {
                Some(p)
            } else {
                drop(p);
                None
            };
            if to_finisher.send((n, handle as usize, at, synth_s, (returned - called).as_secs_f64(), returned, keep)).is_err() {
                return;
            }
        }
    });
    let mut file = out.map(|p| fs::File::create(&p).unwrap_or_else(|e| die(format!("{}: {}", p.display(), e))));
    // per proof: its first partition's synthesis start, its last proof, its partitions done (with several
    // workers a proof's partitions may finish out of order)
    let mut first_start = vec![f64::MAX; proofs];
    let mut done = vec![0.0f64; proofs];
    let mut parts_done = vec![0usize; proofs];
    let (mut synth_s, mut start_s, mut finish_s) = (Vec::new(), Vec::new(), Vec::new());
    for (n, handle, at, sy, st, returned, keep) in from_prover {
        let mut pf = [Proof([0; 48])];
        finish_groth16_proof(handle as *mut _, &mut pf);
        drop(keep);
        let now = t0.elapsed().as_secs_f64();
        synth_s.push(sy);
        start_s.push(st);
        finish_s.push(returned.elapsed().as_secs_f64());
        let proof = n / k;
        first_start[proof] = first_start[proof].min(at);
        done[proof] = done[proof].max(now);
        parts_done[proof] += 1;
        if let Some(f) = file.as_mut() {
            let bytes: Vec<u8> = pf[0].0.iter().flat_map(|w| w.to_le_bytes()).collect();
            f.seek(SeekFrom::Start(384 * n as u64))
                .and_then(|_| f.write_all(&bytes))
                .unwrap_or_else(|e| die(format!("write: {}", e)));
        }
        if parts_done[proof] == k {
            println!("proof {}: {} partitions, wall {:.2} s (synthesis of its first partition to its last proof), done at {:.2} s",
                     proof, k, now - first_start[proof], now);
        }
    }
    for w in synth {
        w.join().unwrap_or_else(|_| die("synthesis thread panicked".to_string()));
    }
    prover.join().unwrap_or_else(|_| die("prover thread panicked".to_string()));
    unsafe { free_gpu_mutex(mtx as *mut _) };
    done.sort_by(|a, b| a.partial_cmp(b).unwrap_or(core::cmp::Ordering::Equal));
    let steady = if proofs > 1 { 3600.0 * (proofs - 1) as f64 / (done[proofs - 1] - done[0]) } else { 0.0 };
    println!("result: proofs {} parts {} hold {} workers {} synth_threads {} rate_gbs {:.2} total_s {:.2} steady_per_hour {:.1} peak_rss_kib {} synth_s {:.2} start_s {:.2} finish_s {:.2}",
             proofs, k, hold, workers, threads, rate / 1e9, done[proofs - 1], steady, peak_rss_kib(),
             median(&mut synth_s), median(&mut start_s), median(&mut finish_s));
}

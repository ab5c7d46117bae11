//! Drives the crate as bellperson's supraseal prover (and curio's fork of it) does, against a running
//! zkpipe pipeline: tests/supraseal/crate.sh runs it and checks every proof it writes.
//!
//!   bellperson_drive PARAMS PARTS K OUT
//!     PARAMS  the .params key;  PARTS  the directory `ss_cmp dump` wrote K partitions to;
//!     OUT     a directory: each way of calling writes its K proofs (384 bytes each) to OUT/<way>.bin
//!
//! The ways: `oneshot` (generate_groth16_proofs with an Assignment per ProvingAssignment, as
//! bellperson's proof_circuits_batch), `slices` (generate_groth16_proof with shared bit vectors and a
//! gpu mutex), `split` (start_groth16_proof, the caller's buffers overwritten and dropped, then
//! finish_groth16_proof, as curio's bellperson does), `thread<i>` (several threads at once, each with
//! its own SRS clone, alternating one-shot and split). Also: SRS clone / evict / drop, an abandoned
//! started call (drop_pending_proof), the error of a missing key, and the panic bellperson gets for an
//! assignment that disagrees with the key. Exit 0 when every call returned; the script checks bytes.
use std::fs;
use std::path::{Path, PathBuf};
use std::thread;

use supraseal_c2::{
    alloc_gpu_mutex, drop_pending_proof, finish_groth16_proof, free_gpu_mutex, generate_groth16_proof,
    generate_groth16_proofs, start_groth16_proof, Assignment, SRS,
};

/// blstrs Scalar stand-in: 4 × u64 Montgomery limbs
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(C)]
struct Fr([u64; 4]);

/// bellperson's Proof<Bls12> stand-in: G1 A, G2 B, G1 C affine (blst layout)
#[derive(Clone, Copy)]
#[repr(C)]
struct Proof {
    a: [u64; 12],
    b: [u64; 24],
    c: [u64; 12],
}

/// What bellperson's ProvingAssignment holds after synthesis (the fields supraseal reads).
struct ProvingAssignment {
    a_aux_density: Vec<usize>,
    a_aux_bits: usize,
    a_aux_total: usize,
    b_input_density: Vec<usize>,
    b_input_bits: usize,
    b_input_total: usize,
    b_aux_density: Vec<usize>,
    b_aux_total: usize,
    a: Vec<Fr>,
    b: Vec<Fr>,
    c: Vec<Fr>,
    input_assignment: Vec<Fr>,
    aux_assignment: Vec<Fr>,
    r: Fr,
    s: Fr,
}

impl ProvingAssignment {
    /// Overwrites every buffer (the scalars with values that cannot give the same proof) before
    /// they are dropped: a library still reading them after start would prove garbage.
    fn scribble(&mut self) {
        for v in [&mut self.a, &mut self.b, &mut self.c, &mut self.input_assignment, &mut self.aux_assignment] {
            for x in v.iter_mut() {
                *x = Fr([0x5a5a_5a5a_5a5a_5a5a; 4]);
            }
        }
        for v in [&mut self.a_aux_density, &mut self.b_input_density, &mut self.b_aux_density] {
            for x in v.iter_mut() {
                *x = !*x;
            }
        }
        self.r = Fr([7; 4]);
        self.s = Fr([9; 4]);
    }
}

// bellperson: impl From<&ProvingAssignment<Scalar>> for supraseal_c2::Assignment<Scalar>
impl From<&ProvingAssignment> for Assignment<Fr> {
    fn from(p: &ProvingAssignment) -> Self {
        assert_eq!(p.a.len(), p.b.len());
        assert_eq!(p.a.len(), p.c.len());
        Assignment {
            a_aux_density: p.a_aux_density.as_ptr(),
            a_aux_bit_len: p.a_aux_bits,
            a_aux_popcount: p.a_aux_total,
            b_inp_density: p.b_input_density.as_ptr(),
            b_inp_bit_len: p.b_input_bits,
            b_inp_popcount: p.b_input_total,
            b_aux_density: p.b_aux_density.as_ptr(),
            b_aux_bit_len: p.aux_assignment.len(),
            b_aux_popcount: p.b_aux_total,
            a: p.a.as_ptr(),
            b: p.b.as_ptr(),
            c: p.c.as_ptr(),
            abc_size: p.a.len(),
            inp_assignment_data: p.input_assignment.as_ptr(),
            inp_assignment_size: p.input_assignment.len(),
            aux_assignment_data: p.aux_assignment.as_ptr(),
            aux_assignment_size: p.aux_assignment.len(),
        }
    }
}

fn die(msg: String) -> ! {
    eprintln!("bellperson_drive: FAIL: {}", msg);
    std::process::exit(1);
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
    path: &'a Path,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> &'a [u8] {
        if self.b.len() - self.at < n {
            die(format!("{}: truncated at byte {} (wanted {} more)", self.path.display(), self.at, n));
        }
        let s = &self.b[self.at..self.at + n];
        self.at += n;
        s
    }
    fn u64(&mut self) -> u64 {
        let mut w = [0u8; 8];
        w.copy_from_slice(self.take(8));
        u64::from_le_bytes(w)
    }
    fn frs(&mut self, n: usize) -> Vec<Fr> {
        (0..n).map(|_| Fr([self.u64(), self.u64(), self.u64(), self.u64()])).collect()
    }
    fn bits(&mut self, n: usize) -> Vec<usize> {
        (0..(n + 63) / 64).map(|_| self.u64() as usize).collect()
    }
}

fn load(dir: &Path, i: usize) -> ProvingAssignment {
    let path = dir.join(format!("part{}.bin", i));
    let bytes = fs::read(&path).unwrap_or_else(|e| die(format!("{}: {}", path.display(), e)));
    let mut r = Reader { b: &bytes, at: 0, path: &path };
    let (n_inp, n_aux, abc) = (r.u64() as usize, r.u64() as usize, r.u64() as usize);
    let (pa, pbi, pba) = (r.u64() as usize, r.u64() as usize, r.u64() as usize);
    let w = r.frs(n_inp + n_aux);
    let (a, b, c) = (r.frs(abc), r.frs(abc), r.frs(abc));
    let (a_aux, b_inp, b_aux) = (r.bits(n_aux), r.bits(n_inp), r.bits(n_aux));
    let (rr, ss) = (r.frs(1)[0], r.frs(1)[0]);
    if r.at != bytes.len() {
        die(format!("{}: {} bytes left over", path.display(), bytes.len() - r.at));
    }
    ProvingAssignment {
        a_aux_density: a_aux,
        a_aux_bits: n_aux,
        a_aux_total: pa,
        b_input_density: b_inp,
        b_input_bits: n_inp,
        b_input_total: pbi,
        b_aux_density: b_aux,
        b_aux_total: pba,
        a,
        b,
        c,
        input_assignment: w[..n_inp].to_vec(),
        aux_assignment: w[n_inp..].to_vec(),
        r: rr,
        s: ss,
    }
}

fn load_all(dir: &Path, k: usize) -> Vec<ProvingAssignment> {
    (0..k).map(|i| load(dir, i)).collect()
}

/// bellperson's `let mut proofs = Vec::with_capacity(n); proofs.set_len(n)`: memory the library must
/// fill; here a pattern no proof has, so a proof left unwritten shows.
fn proof_buffer(n: usize) -> Vec<Proof> {
    vec![Proof { a: [0xa5a5_a5a5_a5a5_a5a5; 12], b: [0xa5a5_a5a5_a5a5_a5a5; 24], c: [0xa5a5_a5a5_a5a5_a5a5; 12] }; n]
}

fn write_proofs(out: &Path, way: &str, proofs: &[Proof]) {
    let mut bytes = Vec::with_capacity(proofs.len() * 384);
    for p in proofs {
        for w in p.a.iter().chain(p.b.iter()).chain(p.c.iter()) {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
    }
    let path = out.join(format!("{}.bin", way));
    fs::write(&path, bytes).unwrap_or_else(|e| die(format!("{}: {}", path.display(), e)));
    println!("{}: {} proofs written", way, proofs.len());
}

/// bellperson's proof_circuits_batch
fn oneshot(provers: &[ProvingAssignment], srs: &SRS) -> Vec<Proof> {
    let provers_c2: Vec<Assignment<Fr>> = provers.iter().map(|p| p.into()).collect();
    let r_s: Vec<Fr> = provers.iter().map(|p| p.r).collect();
    let s_s: Vec<Fr> = provers.iter().map(|p| p.s).collect();
    let mut proofs = proof_buffer(provers.len());
    generate_groth16_proofs(provers_c2.as_slice(), r_s.as_slice(), s_s.as_slice(), proofs.as_mut_slice(), srs);
    proofs
}

/// Calls `$f` (generate_groth16_proof or start_groth16_proof) as curio's bellperson does: per-circuit
/// pointers to each partition's scalars, partition 0's density vectors shared by all, each
/// partition's r and s; then `$rest` (the proofs, the SRS, the gpu mutex and index).
macro_rules! call_sliced {
    ($f:ident, $provers:expr, $($rest:expr),+) => {{
        let provers: &[ProvingAssignment] = $provers;
        let p0 = &provers[0];
        let ptrs = |f: &dyn Fn(&ProvingAssignment) -> *const Fr| provers.iter().map(f).collect::<Vec<_>>();
        let (a, b, c) = (ptrs(&|p| p.a.as_ptr()), ptrs(&|p| p.b.as_ptr()), ptrs(&|p| p.c.as_ptr()));
        let (inp, aux) = (ptrs(&|p| p.input_assignment.as_ptr()), ptrs(&|p| p.aux_assignment.as_ptr()));
        let r_s: Vec<Fr> = provers.iter().map(|p| p.r).collect();
        let s_s: Vec<Fr> = provers.iter().map(|p| p.s).collect();
        $f(
            &a,
            &b,
            &c,
            p0.a.len(),
            &inp,
            &aux,
            p0.input_assignment.len(),
            p0.aux_assignment.len(),
            &p0.a_aux_density,
            &p0.b_input_density,
            &p0.b_aux_density,
            p0.a_aux_total,
            p0.b_input_total,
            p0.b_aux_total,
            provers.len(),
            &r_s,
            &s_s,
            $($rest),+
        )
    }};
}

/// the slices form (shared density vectors): upstream's generate_groth16_proof, curio's arguments
fn slices(provers: &[ProvingAssignment], srs: &SRS, mtx: *mut core::ffi::c_void) -> Vec<Proof> {
    let mut proofs = proof_buffer(provers.len());
    call_sliced!(generate_groth16_proof, provers, &mut proofs, srs, mtx, 0);
    proofs
}

/// curio's bellperson: start (synthesis buffers handed over), the buffers go, then finish
fn split_start(mut provers: Vec<ProvingAssignment>, srs: &SRS, mtx: *mut core::ffi::c_void) -> (*mut core::ffi::c_void, usize) {
    let n = provers.len();
    let pending = call_sliced!(start_groth16_proof, &provers, srs, mtx, -1);
    for p in provers.iter_mut() {
        p.scribble();
    }
    drop(provers);
    (pending, n)
}

fn split(provers: Vec<ProvingAssignment>, srs: &SRS, mtx: *mut core::ffi::c_void) -> Vec<Proof> {
    let (pending, n) = split_start(provers, srs, mtx);
    // more synthesis would run here: allocate and dirty memory the freed buffers may be reused for
    let junk: Vec<Vec<u8>> = (0..8).map(|i| vec![i as u8 ^ 0x3c; 1 << 20]).collect();
    let mut proofs = proof_buffer(n);
    finish_groth16_proof(pending, &mut proofs);
    drop(junk);
    proofs
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 5 {
        eprintln!("usage: bellperson_drive PARAMS PARTS K OUT");
        std::process::exit(2);
    }
    let params = PathBuf::from(&args[1]);
    let dir = PathBuf::from(&args[2]);
    let k: usize = args[3].parse().unwrap_or_else(|_| die(format!("K: not a number: {}", args[3])));
    let out = PathBuf::from(&args[4]);

    // a missing key: the error value, its code and message, as bellperson's get_supraseal_srs sees it
    let missing = out.join("no-such.params");
    match SRS::try_new(missing.clone(), true) {
        Ok(_) => die(format!("SRS::try_new({}) succeeded", missing.display())),
        Err(e) => {
            let msg = e.to_string();
            println!("missing key: code {}: {}", e.code, msg);
            if e.code != 2 || !msg.contains("no-such.params") {
                die(format!("missing key: expected ENOENT naming the file, got {:?}", e));
            }
        }
    }

    let srs = SRS::try_new(params.clone(), true).unwrap_or_else(|e| die(format!("SRS::try_new: {}", e)));
    {
        // clone, evict and drop as bellperson's parameter cache does; the original keeps working
        let c = srs.clone();
        c.evict();
        let c2 = c.clone();
        drop(c);
        drop(c2);
    }
    let uncached = SRS::try_new(params.clone(), false).unwrap_or_else(|e| die(format!("SRS::try_new(cache false): {}", e)));

    write_proofs(&out, "oneshot", &oneshot(&load_all(&dir, k), &srs));

    let mtx = alloc_gpu_mutex();
    if mtx.is_null() {
        die("alloc_gpu_mutex gave NULL".to_string());
    }
    write_proofs(&out, "slices", &slices(&load_all(&dir, k), &uncached, mtx));
    write_proofs(&out, "split", &split(load_all(&dir, k), &srs, mtx));

    // a started call abandoned: its handle freed, nothing left behind (crate.sh checks the arena)
    let (pending, _) = split_start(load_all(&dir, k), &srs, mtx);
    unsafe { drop_pending_proof(pending) };
    println!("abandoned: a started call dropped");

    // an assignment that disagrees with the key: bellperson gets upstream's panic with the message
    let bad = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut p = load_all(&dir, 1);
        p[0].a_aux_total += 1;
        oneshot(&p, &srs)
    }));
    match bad {
        Ok(_) => die("a wrong A popcount was proved".to_string()),
        Err(e) => {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            println!("wrong popcount: panicked: {}", msg);
            if !msg.contains("circuit 0") {
                die(format!("wrong popcount: the panic does not carry the library's message: {:?}", msg));
            }
        }
    }

    // several threads at once, each with its own clone of the SRS (as bellperson's parallel provers)
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let srs = srs.clone();
            let dir = dir.clone();
            let mtx = mtx as usize;
            thread::spawn(move || {
                let provers = load_all(&dir, k);
                let proofs = if t % 2 == 0 { oneshot(&provers, &srs) } else { split(provers, &srs, mtx as *mut _) };
                (t, proofs)
            })
        })
        .collect();
    for h in threads {
        let (t, proofs) = h.join().unwrap_or_else(|_| die("a proving thread panicked".to_string()));
        write_proofs(&out, &format!("thread{}", t), &proofs);
    }
    unsafe { free_gpu_mutex(mtx) };
    drop(uncached);
    drop(srs);
    // a key registered again after every handle is gone
    let again = SRS::try_new(params, true).unwrap_or_else(|e| die(format!("SRS::try_new after drop: {}", e)));
    write_proofs(&out, "again", &oneshot(&load_all(&dir, k), &again));
    println!("PASS: every call returned");
}

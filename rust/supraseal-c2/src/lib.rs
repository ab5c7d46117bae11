//! supraseal-c2's Rust API, answered by zkpipe.
//!
//! The same public surface as supranational's `supraseal-c2` 0.1.x (`SRS`, `Assignment`,
//! `generate_groth16_proofs`, `generate_groth16_proof`) plus the split calls of curio's copy
//! (`start_groth16_proof`, `finish_groth16_proof`, `drop_pending_proof`, `alloc_gpu_mutex`,
//! `free_gpu_mutex`), generic over the caller's scalar, bit-vector word and proof types as upstream
//! is. Every call goes to libzkpipe-supraseal (docs/supraseal.md), which copies the partitions into
//! a running zkpipe pipeline's slots and waits for gpud's proofs; `ZKPIPE_CONFIG` names the
//! supervisor's config file. Written from the public sources' signatures; no code copied.
//!
//! Types the C side reads: a `Scalar` is 32 bytes (blstrs `Scalar`, Montgomery form), a proof is 384
//! bytes (blstrs `G1Affine`, `G2Affine`, `G1Affine`, i.e. bellperson's `Proof<Bls12>`), bit vectors
//! are 64-bit words. Like upstream, these are the caller's promise: the functions take any `S`,
//! `D`, `PR` and check only what upstream checks (64-bit `D`) plus the sizes of `S` and `PR`.

use std::path::PathBuf;

/// sppark's error type (`sppark::Error`, re-exported upstream as `cuda::Error`): `#[repr(C)]`
/// `{ i32 code; char *message }` as the C side returns it by value; the message is freed with
/// `free(3)` when the error is dropped.
pub mod cuda {
    /// `code` is 0 on success; libzkpipe-supraseal sets a positive errno (ENOENT, EINVAL,
    /// ECONNREFUSED, ETIMEDOUT, EIO, ...) and always a message saying what went wrong.
    #[repr(C)]
    pub struct Error {
        pub code: i32,
        str: Option<core::ptr::NonNull<std::os::raw::c_char>>,
    }

    extern "C" {
        fn free(p: *mut core::ffi::c_void);
    }

    impl Error {
        /// The message, if the C side attached one.
        pub fn message(&self) -> Option<String> {
            self.str.map(|p| {
                let c = unsafe { std::ffi::CStr::from_ptr(p.as_ptr()) };
                c.to_string_lossy().into_owned()
            })
        }
    }

    impl Drop for Error {
        fn drop(&mut self) {
            if let Some(p) = self.str.take() {
                unsafe { free(p.as_ptr() as *mut core::ffi::c_void) };
            }
        }
    }

    impl From<&Error> for String {
        fn from(e: &Error) -> Self {
            match e.message() {
                Some(m) => m,
                None => format!("sppark::Error #{}", e.code),
            }
        }
    }

    impl From<Error> for String {
        fn from(e: Error) -> Self {
            String::from(&e)
        }
    }

    impl std::fmt::Display for Error {
        fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str(&String::from(self))
        }
    }

    impl std::fmt::Debug for Error {
        fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "Error {{ code: {}, message: {:?} }}", self.code, self.message())
        }
    }

    impl std::error::Error for Error {}

    // the C side returns this struct in registers: it must stay two words
    const _: [(); 16] = [(); core::mem::size_of::<Error>()];
}

use core::ffi::c_void;

/// A proving key (a `.params` file) registered with the pipeline: one pointer to the library's
/// reference-counted handle, as upstream's.
#[repr(C)]
pub struct SRS {
    ptr: *const c_void,
}

impl Default for SRS {
    fn default() -> Self {
        SRS { ptr: core::ptr::null() }
    }
}

extern "C" {
    fn create_SRS(ret: &mut SRS, srs_path: *const std::os::raw::c_char, cache: bool) -> cuda::Error;
    fn evict_SRS(by_ref: &SRS);
    fn drop_SRS(by_ref: &SRS);
    fn clone_SRS(by_ref: &SRS) -> SRS;

    fn generate_groth16_proofs_c(
        provers: *const c_void,
        num_circuits: usize,
        r_s: *const c_void,
        s_s: *const c_void,
        proofs: *mut c_void,
        srs: &SRS,
        gpu_mtx: *mut c_void,
        gpu_index: i32,
    ) -> cuda::Error;

    fn create_gpu_mutex() -> *mut c_void;
    fn destroy_gpu_mutex(mtx: *mut c_void);

    fn generate_groth16_proofs_start_c(
        provers: *const c_void,
        num_circuits: usize,
        r_s: *const c_void,
        s_s: *const c_void,
        srs: &SRS,
        gpu_mtx: *mut c_void,
        gpu_index: i32,
        pending_out: *mut *mut c_void,
    ) -> cuda::Error;
    fn finalize_groth16_proof_c(handle: *mut c_void, proofs: *mut c_void) -> cuda::Error;
    fn destroy_pending_proof(handle: *mut c_void);
}

impl SRS {
    /// Registers the `.params` file at `srs_path` with the pipeline (gpud loads each file once for
    /// every process). `cache`: share one handle per path in this process, as upstream's cache.
    /// Errors: the pipeline is not reachable (`ZKPIPE_CONFIG` unset, no supervisor), the file is
    /// missing or not a `.params` file.
    pub fn try_new(srs_path: PathBuf, cache: bool) -> Result<Self, cuda::Error> {
        // upstream panics on a path that is not UTF-8 or holds a NUL; the same here
        let c_path = std::ffi::CString::new(srs_path.to_str().unwrap()).unwrap();
        let mut ret = SRS::default();
        let err = unsafe { create_SRS(&mut ret, c_path.as_ptr(), cache) };
        if err.code != 0 {
            Err(err)
        } else {
            Ok(ret)
        }
    }

    /// Drops this process's cached handle for the path (the key stays loaded in gpud).
    pub fn evict(&self) {
        unsafe { evict_SRS(self) }
    }
}

impl Drop for SRS {
    fn drop(&mut self) {
        unsafe { drop_SRS(self) };
        self.ptr = core::ptr::null();
    }
}

impl Clone for SRS {
    fn clone(&self) -> Self {
        unsafe { clone_SRS(self) }
    }
}

unsafe impl Send for SRS {}
unsafe impl Sync for SRS {}

/// One partition as bellperson's `ProvingAssignment` holds it (`#[repr(C)]`, 17 words): density bit
/// vectors of `usize` words, the A/B/C evaluations (`abc_size` = constraints + inputs), the input
/// (ONE first) and auxiliary assignments. The pointers are the caller's; nothing is owned.
#[repr(C)]
pub struct Assignment<Scalar> {
    // Density of queries
    pub a_aux_density: *const usize,
    pub a_aux_bit_len: usize,
    pub a_aux_popcount: usize,

    pub b_inp_density: *const usize,
    pub b_inp_bit_len: usize,
    pub b_inp_popcount: usize,

    pub b_aux_density: *const usize,
    pub b_aux_bit_len: usize,
    pub b_aux_popcount: usize,

    // Evaluations of A, B, C polynomials
    pub a: *const Scalar,
    pub b: *const Scalar,
    pub c: *const Scalar,
    pub abc_size: usize,

    // Assignments of variables
    pub inp_assignment_data: *const Scalar,
    pub inp_assignment_size: usize,

    pub aux_assignment_data: *const Scalar,
    pub aux_assignment_size: usize,
}

const SCALAR_BYTES: usize = 32;
const PROOF_BYTES: usize = 384;

fn check_types<S, PR>() {
    assert_eq!(
        core::mem::size_of::<S>(),
        SCALAR_BYTES,
        "the scalar type must be 32 bytes (BLS12-381 Fr, Montgomery form)"
    );
    if core::mem::size_of::<PR>() != 0 {
        assert_eq!(
            core::mem::size_of::<PR>(),
            PROOF_BYTES,
            "the proof type must be 384 bytes (G1 A, G2 B, G1 C affine, blst layout)"
        );
    }
}

/// Upstream's failure mode: a panic with the library's message.
fn or_panic(err: cuda::Error) {
    if err.code != 0 {
        panic!("{}", String::from(err));
    }
}

fn check_bits<D>(
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    input_assignments_size: usize,
    aux_assignments_size: usize,
) {
    let bits = core::mem::size_of::<D>() * 8;
    assert!(bits == 64, "only 64-bit elements in bit vectors are supported");
    assert!(a_aux_density_bv.len() * bits >= aux_assignments_size);
    assert!(b_g1_aux_density_bv.len() * bits >= aux_assignments_size);
    assert!(b_g1_input_density_bv.len() * bits >= input_assignments_size);
}

/// Proves `num_circuits` partitions that share their density bit vectors (one circuit, several
/// witnesses), with randomness `r_s[i]`, `s_s[i]`, into `proofs[i]`. Blocks until every proof is
/// back. Panics on failure with the library's message, as upstream does. This is curio's signature
/// (upstream 0.1.x has no `gpu_mtx`, `gpu_index`); both are accepted and ignored: zkpipe's gpud owns
/// the devices.
#[allow(clippy::too_many_arguments)]
pub fn generate_groth16_proof<S, D, PR>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
    gpu_mtx: *mut c_void,
    gpu_index: i32,
) {
    check_types::<S, PR>();
    assert_eq!(r_s.len(), num_circuits);
    assert_eq!(s_s.len(), num_circuits);
    assert_eq!(proofs.len(), num_circuits);
    // one-shot is start then finish, as in the library (generate_groth16_proofs_c)
    let pending = start_groth16_proof(
        ntt_a_scalars,
        ntt_b_scalars,
        ntt_c_scalars,
        ntt_scalars_actual_size,
        input_assignments,
        aux_assignments,
        input_assignments_size,
        aux_assignments_size,
        a_aux_density_bv,
        b_g1_input_density_bv,
        b_g1_aux_density_bv,
        a_aux_total_density,
        b_g1_input_total_density,
        b_g1_aux_total_density,
        num_circuits,
        r_s,
        s_s,
        srs,
        gpu_mtx,
        gpu_index,
    );
    finish_groth16_proof(pending, proofs);
}

/// Proves one partition per `Assignment` (bellperson's call). Panics on failure with the library's
/// message, as upstream does.
pub fn generate_groth16_proofs<S, PR>(
    provers: &[Assignment<S>],
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
) {
    check_types::<S, PR>();
    let n = provers.len();
    assert_eq!(r_s.len(), n);
    assert_eq!(s_s.len(), n);
    assert_eq!(proofs.len(), n);
    let err = unsafe {
        generate_groth16_proofs_c(
            provers.as_ptr() as *const c_void,
            n,
            r_s.as_ptr() as *const c_void,
            s_s.as_ptr() as *const c_void,
            proofs.as_mut_ptr() as *mut c_void,
            srs,
            core::ptr::null_mut(),
            -1,
        )
    };
    or_panic(err);
}

/// curio: a mutex to pass as `gpu_mtx` (zkpipe serializes the devices in gpud; nobody locks it).
pub fn alloc_gpu_mutex() -> *mut c_void {
    unsafe { create_gpu_mutex() }
}

/// curio: frees a mutex from `alloc_gpu_mutex`.
///
/// # Safety
/// `ptr` came from `alloc_gpu_mutex` and is freed once.
pub unsafe fn free_gpu_mutex(ptr: *mut c_void) {
    destroy_gpu_mutex(ptr)
}

/// curio's split call, first half: hands every partition to the pipeline and returns a pending
/// handle for `finish_groth16_proof` (or `drop_pending_proof`). With zkpipe the caller's buffers
/// (scalars, bit vectors, r, s) may be freed as soon as this returns. Panics on failure.
#[allow(clippy::too_many_arguments)]
pub fn start_groth16_proof<S, D>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
    r_s: &[S],
    s_s: &[S],
    srs: &SRS,
    gpu_mtx: *mut c_void,
    gpu_index: i32,
) -> *mut c_void {
    check_types::<S, ()>();
    assert_eq!(r_s.len(), num_circuits);
    assert_eq!(s_s.len(), num_circuits);
    for (what, n) in [
        ("ntt_a_scalars", ntt_a_scalars.len()),
        ("ntt_b_scalars", ntt_b_scalars.len()),
        ("ntt_c_scalars", ntt_c_scalars.len()),
        ("input_assignments", input_assignments.len()),
        ("aux_assignments", aux_assignments.len()),
    ] {
        assert_eq!(n, num_circuits, "{} has {} entries for {} circuits", what, n, num_circuits);
    }
    check_bits(
        a_aux_density_bv,
        b_g1_input_density_bv,
        b_g1_aux_density_bv,
        input_assignments_size,
        aux_assignments_size,
    );
    // one Assignment per circuit: its own scalars, the shared density vectors
    let provers: Vec<Assignment<S>> = (0..num_circuits)
        .map(|i| Assignment {
            a_aux_density: a_aux_density_bv.as_ptr() as *const usize,
            a_aux_bit_len: aux_assignments_size,
            a_aux_popcount: a_aux_total_density,
            b_inp_density: b_g1_input_density_bv.as_ptr() as *const usize,
            b_inp_bit_len: input_assignments_size,
            b_inp_popcount: b_g1_input_total_density,
            b_aux_density: b_g1_aux_density_bv.as_ptr() as *const usize,
            b_aux_bit_len: aux_assignments_size,
            b_aux_popcount: b_g1_aux_total_density,
            a: ntt_a_scalars[i],
            b: ntt_b_scalars[i],
            c: ntt_c_scalars[i],
            abc_size: ntt_scalars_actual_size,
            inp_assignment_data: input_assignments[i],
            inp_assignment_size: input_assignments_size,
            aux_assignment_data: aux_assignments[i],
            aux_assignment_size: aux_assignments_size,
        })
        .collect();
    let mut pending: *mut c_void = core::ptr::null_mut();
    let err = unsafe {
        generate_groth16_proofs_start_c(
            provers.as_ptr() as *const c_void,
            num_circuits,
            r_s.as_ptr() as *const c_void,
            s_s.as_ptr() as *const c_void,
            srs,
            gpu_mtx,
            gpu_index,
            &mut pending,
        )
    };
    or_panic(err);
    pending
}

/// curio's split call, second half: waits for the proofs of `handle` and writes them to `proofs`
/// (one per circuit of the start call). Consumes the handle, also when it panics on failure.
pub fn finish_groth16_proof<PR>(handle: *mut c_void, proofs: &mut [PR]) {
    check_types::<[u8; SCALAR_BYTES], PR>();
    or_panic(unsafe { finalize_groth16_proof_c(handle, proofs.as_mut_ptr() as *mut c_void) });
}

/// curio: abandons a started call (its partitions are cancelled) and frees the handle.
///
/// # Safety
/// `handle` came from `start_groth16_proof` and was neither finished nor dropped.
pub unsafe fn drop_pending_proof(handle: *mut c_void) {
    destroy_pending_proof(handle)
}

#[cfg(test)]
mod tests {
    #[test]
    fn layouts() {
        assert_eq!(core::mem::size_of::<super::Assignment<[u64; 4]>>(), 17 * 8);
        assert_eq!(core::mem::size_of::<super::SRS>(), 8);
        assert_eq!(core::mem::size_of::<super::cuda::Error>(), 16);
    }
}

/*
 * setup_cuda.h — a development Groth16 key made on the GPU and left there (CUDA builds only).
 *
 * zp_setup_device() runs zp_setup's scalar pipeline (setup.h: same formulas, same toxic-waste
 * rules, INSECURE) with the points made by cuda/setup.cu straight into device arrays: A, B1, B2,
 * C and H never exist on the host, so a 2^27 PoRep-shaped key (~76 GB) needs no file and no
 * host copy. The host part is small: *z gets the counts, the circuit's counts and fingerprint
 * (z->circuit holds no matrices), alpha1, beta1, delta1, beta2, gamma2, delta2 and IC (malloc'd,
 * n_public + 1 points); z->a, b1, b2, c, h stay NULL. Free it with zp_zkey_free, *kd with
 * zp_cuda_key_dev_free (unless a CUDA backend adopted it: then the backend frees it).
 *
 * To prove with it: zp_zkey_vk(&vk, z); zp_g16_key gk = { .zkey = z, .h_mode = opts->h_mode,
 * .dev_points = kd }; zp_g16_backend_cuda.create(&state, &gk) adopts the arrays.
 * Only root family 5 (the CUDA backend's NTT family in both H modes); H mode either.
 * Device: ZP_CUDA_DEVICE (default 0), as the backend. Device memory: the key (a, b1, c, h in
 * G1, b2 in G2) + tables (~160 MB) + 2^22 scalars and their scratch (~2.1 GB).
 * Host memory beyond the circuit: 3 Fr per wire + 64 MiB (setup_impl.h).
 */
#ifndef ZP_SETUP_CUDA_H
#define ZP_SETUP_CUDA_H

#include "setup.h"
#include "zp_cuda.h"

int zp_setup_device(zp_cuda_key_dev *kd, zp_zkey *z, const zp_circuit *c, const zp_setup_opts *o);

#endif

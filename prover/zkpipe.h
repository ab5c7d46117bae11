/*
 * zkpipe.h — the installed prover and verifier API of libzkpipe (`pkg-config zkpipe`):
 * read circom/snarkjs files (.zkey, .wtns, .r1cs) and zkpipe's .zpk keys, prove Groth16 over
 * BLS12-381 or BN254 (snarkjs's bn128; the curve is the key's: CPU backend), verify, write snarkjs's
 * proof.json / public.json (docs/prover.md "The public API and the shared libraries" has the API's shape).
 *
 *   zp_zkey k; zp_wtns w; zp_g16_key key; zp_g16_proof p;
 *   zp_zkey_read(&k, "c.zkey"); zp_wtns_read(&w, "w.wtns");
 *   zp_g16_key_init(&key, &k, ZP_H_SNARKJS);
 *   zp_g16_check_witness(&k, &w, "w.wtns");                       // same curve, nVars values
 *   zp_g16_prove(&p, &key, &k.circuit, w.w, w.n, NULL);          // 0, or a zp_err code
 *   zp_g16_proof_write_json("proof.json", &p);                   // "curve": "bn128" | "bls12381"
 *   zp_g16_public_write_json_curve("public.json", k.curve, w.w + 1, k.n_public);
 * Every function returns >= 0 on success, else -errno or a zp_err code (zp_strerror, zp_err_msg
 * for the message naming the file and field).
 */
#ifndef ZKPIPE_H
#define ZKPIPE_H

#include "zp_err.h"
#include "field.h"
#include "ec.h"
#include "circuit.h"
#include "r1cs.h"
#include "wtns.h"
#include "zkey.h"
#include "groth16.h"
#include "g16_json.h"
#include "keyfile.h"
#include "par.h"

#endif

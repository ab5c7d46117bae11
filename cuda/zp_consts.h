/*
 * zp_consts.h — BLS12-381 constants for the CUDA kernels, written once and shared by host
 * and device code. 32-bit limbs, little-endian limb order: the same bytes as common/field.h's
 * 64-bit-limb zp_fp / zp_fr on a little-endian host, so buffers move between them unchanged.
 *
 * Derivations (tests/cuda/gen_consts.py regenerates and checks every value):
 *   q, r            the base and scalar field moduli (FORMATS.md).
 *   *_ONE           R mod m, R = 2^384 (Fp) or 2^256 (Fr): Montgomery form of 1.
 *   *_RR            R^2 mod m: to_mont(x) = mont_mul(x, RR).
 *   *_INV           -m^-1 mod 2^32: the CIOS reduction factor.
 *   FR_OMEGA32      5^((r-1)/2^32) (snarkjs's root; omega_k = omega_{k+1}^2), Montgomery form.
 *   FR_OMEGA32_ROOT7  7^((r-1)/2^32) (bellperson/Filecoin's root family), Montgomery form.
 *   FR_GEN7[_INV]   7 and 7^-1 in Montgomery form: bellperson's coset shift.
 *   G1_*, G2_*      the standard generators (zcash), affine, Montgomery form; Fp2 = c0 + c1·u, u^2 = -1.
 */
#ifndef ZP_CONSTS_H
#define ZP_CONSTS_H
#define ZP_C_FP_P { 0xffffaaabu, 0xb9feffffu, 0xb153ffffu, 0x1eabfffeu, 0xf6b0f624u, 0x6730d2a0u, 0xf38512bfu, 0x64774b84u, 0x434bacd7u, 0x4b1ba7b6u, 0x397fe69au, 0x1a0111eau }
#define ZP_C_FP_ONE { 0x0002fffdu, 0x76090000u, 0xc40c0002u, 0xebf4000bu, 0x53c758bau, 0x5f489857u, 0x70525745u, 0x77ce5853u, 0xa256ec6du, 0x5c071a97u, 0xfa80e493u, 0x15f65ec3u }
#define ZP_C_FP_RR { 0x1c341746u, 0xf4df1f34u, 0x09d104f1u, 0x0a76e6a6u, 0x4c95b6d5u, 0x8de5476cu, 0x939d83c0u, 0x67eb88a9u, 0xb519952du, 0x9a793e85u, 0x92cae3aau, 0x11988fe5u }
#define ZP_C_FP_INV 0xfffcfffdu
#define ZP_C_FR_P { 0x00000001u, 0xffffffffu, 0xfffe5bfeu, 0x53bda402u, 0x09a1d805u, 0x3339d808u, 0x299d7d48u, 0x73eda753u }
#define ZP_C_FR_ONE { 0xfffffffeu, 0x00000001u, 0x00034802u, 0x5884b7fau, 0xecbc4ff5u, 0x998c4fefu, 0xacc5056fu, 0x1824b159u }
#define ZP_C_FR_RR { 0xf3f29c6du, 0xc999e990u, 0x87925c23u, 0x2b6cedcbu, 0x7254398fu, 0x05d31496u, 0x9f59ff11u, 0x0748d9d9u }
#define ZP_C_FR_INV 0xffffffffu
#define ZP_C_FR_OMEGA32 { 0x0c17f47cu, 0x9cab6d5cu, 0xfd4b71e5u, 0x1ce1e93du, 0x471dd505u, 0x0d6db230u, 0x743a3b6au, 0x3f0ee990u }
#define ZP_C_FR_OMEGA32_ROOT7 { 0x5f0e466au, 0xb9b58d8cu, 0x1819d7ecu, 0x5b1b4c80u, 0x52a31e64u, 0x0af53ae3u, 0x19e9b27bu, 0x5bf3addau }
#define ZP_C_FR_GEN7 { 0xfffffff1u, 0x0000000eu, 0x00189c0fu, 0x17e363d3u, 0x6f8457b0u, 0xff9c5787u, 0x8fc5a8c4u, 0x35133220u }
#define ZP_C_FR_GEN7_INV { 0xdb6db6dcu, 0xdb6db6dau, 0xdb6cc6dau, 0xe6b5824au, 0x05810db9u, 0xf8b356e0u, 0x60ec4796u, 0x66d0f1e6u }
#define ZP_C_G1_X { 0xfd530c16u, 0x5cb38790u, 0x9976fff5u, 0x7817fc67u, 0x143ba1c1u, 0x154f95c7u, 0xf3d0e747u, 0xf0ae6acdu, 0x21dbf440u, 0xedce6eccu, 0x9e0bfb75u, 0x12017741u }
#define ZP_C_G1_Y { 0x0ce72271u, 0xbaac93d5u, 0x7918fd8eu, 0x8c22631au, 0x570725ceu, 0xdd595f13u, 0x50405194u, 0x51ac5829u, 0xad0059c0u, 0x0e1c8c3fu, 0x5008a26au, 0x0bbc3efcu }
#define ZP_C_G2_X0 { 0x02940a10u, 0xf5f28fa2u, 0x87b4961au, 0xb3f5fb26u, 0x3e2ae580u, 0xa1a893b5u, 0x1a3caee9u, 0x9894999du, 0x1863366bu, 0x6f67b763u, 0x4350bcd7u, 0x05819192u }
#define ZP_C_G2_X1 { 0x9e23f606u, 0xa5a9c075u, 0xbccd60c3u, 0xaaa0c59du, 0xe2867806u, 0x3bb17e18u, 0x8541b367u, 0x1b1ab6ccu, 0xf2158547u, 0xc2b6ed0eu, 0x7360edf3u, 0x11922a09u }
#define ZP_C_G2_Y0 { 0x60494c4au, 0x4c730af8u, 0x5e369c5au, 0x597cfa1fu, 0xaa0a635au, 0xe7e6856cu, 0x6e0d495fu, 0xbbefb5e9u, 0xf0ef25a2u, 0x07d3a975u, 0x7e80dae5u, 0x0083fd8eu }
#define ZP_C_G2_Y1 { 0xdf64b05du, 0xadc0fc92u, 0x2b1461dcu, 0x18aa270au, 0x3be4eba0u, 0x86adac6au, 0xc93da33au, 0x79495c4eu, 0xa43ccaedu, 0xe7175850u, 0x63de1bf2u, 0x0b2bc2a1u }

#endif

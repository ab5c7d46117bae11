#!/usr/bin/env bash
# rust/supraseal-c2 (issue 33 items 1 and 2): the crate built offline with Debian's cargo (or the one
# on PATH), linked through the installed library, driven as bellperson's supraseal prover drives
# supraseal-c2, every proof checked.
#  1. `meson install` into a DESTDIR: libzkpipe-supraseal.so.0 (soname), <zkpipe-supraseal.h>,
#     zkpipe-supraseal.pc; ss_header.c, written against the installed header only, builds with
#     `pkg-config --cflags --libs zkpipe-supraseal` and runs on the installed library.
#  2. the crate: unit tests linked through ZKPIPE_SUPRASEAL_LIB_DIR (the build tree); the example
#     bellperson_drive linked through pkg-config (the DESTDIR); a downstream crate that asks for
#     supraseal-c2 0.1 from crates.io builds with one `[patch.crates-io]` line (no registry reached).
#  3. a supervisor (CPU backend); ss_cmp dumps the fixed PoRep-shaped case of ssc2_pinned (2
#     partitions, fixed r, s) and proves it through the library directly: the reference bytes, equal to
#     ssc2_pinned's pin. bellperson_drive proves the same partitions one-shot, through the slices form,
#     split (the caller's buffers scribbled and dropped between start and finish), abandoned, in 4
#     threads at once, and after every SRS handle was dropped: every file must equal the reference
#     byte for byte and pass the pairing check; nothing is left in the arena.
#  4. bench/supraseal/crate_porep.sh's driver, porep_stream, directly and through bench/supraseal/ssc2_shim.c (the
#     forwarder that runs supraseal-c2 under it on a GPU host; here to this library): proofs equal to the reference.
. "$(dirname "$0")/common.sh" "$@"
CMP=$B/tests/supraseal/ss_cmp
CRATE=$SRC/rust/supraseal-c2
write_config # (the arena's name, for the cleanup, from the start)
cargo_setup
log "toolchain: $("$CARGO" --version), $("$RUSTC" --version)"
command -v pkg-config >/dev/null || fail "no pkg-config"

# --- 1. installed like a library
meson install -C "$B" --no-rebuild --destdir "$T/root" >"$T/install.log" 2>&1 || { tail -20 "$T/install.log"; fail "meson install"; }
eval "$(meson introspect "$B" --buildoptions | python3 -c '
import json,sys
o={x["name"]: x["value"] for x in json.load(sys.stdin)}
print("prefix=%s libdir=%s includedir=%s" % (o["prefix"], o["libdir"], o["includedir"]))')"
case "$libdir" in /*) L=$T/root$libdir ;; *) L=$T/root$prefix/$libdir ;; esac
case "$includedir" in /*) I=$T/root$includedir ;; *) I=$T/root$prefix/$includedir ;; esac
[ -f "$I/zkpipe-supraseal.h" ] || fail "no $includedir/zkpipe-supraseal.h installed"
[ -f "$L/pkgconfig/zkpipe-supraseal.pc" ] || fail "no zkpipe-supraseal.pc in $L/pkgconfig: $(ls "$L/pkgconfig")"
[ -L "$L/libzkpipe-supraseal.so" ] && [ -e "$L/libzkpipe-supraseal.so.0" ] || fail "no libzkpipe-supraseal.so -> .so.0 links in $L"
soname=$(readelf -d "$L/libzkpipe-supraseal.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libzkpipe-supraseal.so.0 ] || fail "soname is '$soname', want libzkpipe-supraseal.so.0"
export PKG_CONFIG_PATH=$L/pkgconfig PKG_CONFIG_SYSROOT_DIR=$T/root
flags=$(pkg-config --cflags --libs zkpipe-supraseal) || fail "pkg-config zkpipe-supraseal"
cc -std=c11 -Wall -Werror -O1 -o "$T/ss_header" "$SRC/tests/supraseal/ss_header.c" $flags 2>"$T/cc.log" ||
  { cat "$T/cc.log"; fail "ss_header.c against the installed header ($flags)"; }
out=$(LD_LIBRARY_PATH=$L "$T/ss_header") || fail "ss_header: $out"
LD_LIBRARY_PATH=$L ldd "$T/ss_header" | grep -q "$L/libzkpipe-supraseal.so.0" || fail "ss_header does not load the installed library"
log "installed: soname $soname, zkpipe-supraseal.h, zkpipe-supraseal.pc ($flags); ss_header: $out"

# --- 2. the crate, offline, outside the source tree (cargo writes Cargo.lock and target/);
# meson's LD_LIBRARY_PATH would override the binaries' run path to the library they were linked with
unset LD_LIBRARY_PATH
cp -r "$CRATE" "$T/crate"
export CARGO_HOME=$T/cargo-home CARGO_NET_OFFLINE=true CARGO_TARGET_DIR=$T/target
ZKPIPE_SUPRASEAL_LIB_DIR=$B/supraseal "$CARGO" test --offline --lib --manifest-path "$T/crate/Cargo.toml" \
  >"$T/cargo-test.log" 2>&1 || { cat "$T/cargo-test.log"; fail "cargo test (ZKPIPE_SUPRASEAL_LIB_DIR=$B/supraseal)"; }
grep -q "test result: ok" "$T/cargo-test.log" || { cat "$T/cargo-test.log"; fail "cargo test ran no test"; }
# a directory without the library is refused with a message naming it
ZKPIPE_SUPRASEAL_LIB_DIR=$T/nowhere "$CARGO" build --offline --manifest-path "$T/crate/Cargo.toml" \
  --target-dir "$T/target-bad" >"$T/cargo-bad.log" 2>&1 && fail "the crate built with ZKPIPE_SUPRASEAL_LIB_DIR=$T/nowhere"
grep -q "nowhere/libzkpipe-supraseal.so does not exist" "$T/cargo-bad.log" || { cat "$T/cargo-bad.log"; fail "build.rs error"; }
# a relative one (cargo runs build.rs in the crate's folder) is refused as relative, not as missing
(cd "$B/.." && ZKPIPE_SUPRASEAL_LIB_DIR=$(basename "$B")/supraseal "$CARGO" build --offline --manifest-path "$T/crate/Cargo.toml" \
  --target-dir "$T/target-bad" >"$T/cargo-rel.log" 2>&1) && fail "the crate built with a relative ZKPIPE_SUPRASEAL_LIB_DIR"
grep -q "is a relative path: give an absolute one" "$T/cargo-rel.log" || { cat "$T/cargo-rel.log"; fail "build.rs: relative path"; }
# both examples (porep_stream: bench/supraseal/crate_porep.sh's, compiled here only)
"$CARGO" build --offline --examples --manifest-path "$T/crate/Cargo.toml" >"$T/cargo-build.log" 2>&1 ||
  { cat "$T/cargo-build.log"; fail "cargo build --examples (pkg-config)"; }
grep -q "^warning" "$T/cargo-build.log" && { cat "$T/cargo-build.log"; fail "the crate or its examples build with warnings"; }
DRIVE=$T/target/debug/examples/bellperson_drive
ldd "$DRIVE" | grep -q "$L/libzkpipe-supraseal.so.0" || fail "bellperson_drive does not load the installed library: $(ldd "$DRIVE")"
# the [patch] route of docs/filecoin.md: a crate asking crates.io for supraseal-c2 gets this one
mkdir -p "$T/downstream/src"
cat > "$T/downstream/Cargo.toml" <<TOML
[package]
name = "downstream"
version = "0.1.0"
edition = "2021"
[dependencies]
supraseal-c2 = "0.1.0"
[patch.crates-io]
supraseal-c2 = { path = "$T/crate" }
TOML
echo 'pub fn srs(p: std::path::PathBuf) -> bool { supraseal_c2::SRS::try_new(p, true).is_ok() }' > "$T/downstream/src/lib.rs"
# its lock file as filecoin-ffi's is: supraseal-c2 from crates.io. `--locked` (filecoin-ffi's
# build-release.sh) refuses until `cargo update -p supraseal-c2`, then builds with the path (docs/filecoin.md 1.2)
cat > "$T/downstream/Cargo.lock" <<LOCK
version = 3

[[package]]
name = "downstream"
version = "0.1.0"
dependencies = [
 "supraseal-c2",
]

[[package]]
name = "supraseal-c2"
version = "0.1.2"
source = "registry+https://github.com/rust-lang/crates.io-index"
checksum = "$(printf '0%.0s' $(seq 64))"
LOCK
"$CARGO" build --offline --locked --manifest-path "$T/downstream/Cargo.toml" >"$T/cargo-patch.log" 2>&1 &&
  fail "--locked built with a lock file that still names crates.io's supraseal-c2"
grep -q "lock file .* needs to be updated" "$T/cargo-patch.log" || { cat "$T/cargo-patch.log"; fail "--locked: unexpected error"; }
"$CARGO" update -p supraseal-c2 --offline --manifest-path "$T/downstream/Cargo.toml" >"$T/cargo-update.log" 2>&1 ||
  { cat "$T/cargo-update.log"; fail "cargo update -p supraseal-c2"; }
"$CARGO" build --offline --locked --manifest-path "$T/downstream/Cargo.toml" >"$T/cargo-patch.log" 2>&1 ||
  { cat "$T/cargo-patch.log"; fail "a crate depending on supraseal-c2 0.1.0 with [patch.crates-io] did not build"; }
grep -A3 'name = "supraseal-c2"' "$T/downstream/Cargo.lock" | grep -q '^source' &&
  fail "the downstream lock file still takes supraseal-c2 from a registry: $(cat "$T/downstream/Cargo.lock")"
log "crate: unit tests, build.rs's refusal, the example via pkg-config, the [patch.crates-io] route: built"

# --- 3. proofs through the crate, against a running pipeline
CASE="n=3767,pub=328,bool=0.99"
PIN=$(sed -n 's/^PIN_099=//p' "$SRC/tests/supraseal/ssc2_pinned.sh")
[ -n "$PIN" ] || fail "no PIN_099 in ssc2_pinned.sh"
start_sup
export ZKPIPE_CONFIG=$CFG
"$ZK" setup --cpu --synth "$CASE" --h-mode coeff --roots 7 --toxic-seed 32 --out "$T/k.params" >"$T/setup.log" 2>&1 ||
  { cat "$T/setup.log"; fail "setup"; }
mkdir -p "$T/parts" "$T/proofs"
"$CMP" dump "$CASE" 2 "$T/parts" --seed 5 --rs-seed 77 || fail "ss_cmp dump"
"$CMP" prove "$LIB" "$T/k.params" "$CASE" 2 --seed 5 --rs-seed 77 --reps 0 --out "$T/ref.bin" >"$T/ref.log" 2>&1 ||
  { cat "$T/ref.log"; fail "ss_cmp prove (the reference)"; }
[ "$(sha256sum < "$T/ref.bin" | cut -d' ' -f1)" = "$PIN" ] || fail "the reference proofs differ from ssc2_pinned's pin"
"$DRIVE" "$T/k.params" "$T/parts" 2 "$T/proofs" >"$T/drive.log" 2>&1 || { cat "$T/drive.log"; fail "bellperson_drive"; }
cat "$T/drive.log"
n=0
for f in oneshot slices split thread0 thread1 thread2 thread3 again; do
  [ -f "$T/proofs/$f.bin" ] || fail "bellperson_drive wrote no $f.bin"
  "$CMP" cmp "$T/ref.bin" "$T/proofs/$f.bin" 2 >"$T/cmp.log" || { cat "$T/cmp.log"; fail "$f: proof bytes differ from the CPU backend's for the same r, s"; }
  "$CMP" verify "$T/k.params" "$CASE" 2 "$T/proofs/$f.bin" --seed 5 || fail "$f: pairing check"
  n=$((n + 1))
done
# the checks can fail: partition 0's proof against partition 1's public inputs
head -c 384 "$T/ref.bin" > "$T/swap.bin"; head -c 384 "$T/ref.bin" >> "$T/swap.bin"
"$CMP" verify "$T/k.params" "$CASE" 2 "$T/swap.bin" --seed 5 2>/dev/null && fail "verify accepted a proof for other inputs"
"$CMP" cmp "$T/ref.bin" "$T/swap.bin" 2 >/dev/null && fail "cmp called different proofs equal"
wait_until 30 no_ext_jobs || fail "external jobs left ACTIVE after bellperson_drive: $(ext_jobs)"
wait_until 30 no_busy_slots || fail "slots left busy after bellperson_drive: $(slots_busy)"
log "PASS: $n proof files through the crate, each byte-equal to the CPU backend's and verified"

# --- 4. bench/supraseal/crate_porep.sh's driver: porep_stream (2 synthesis workers, the split API) proves the
# template partition 0 of the dump (its own r, s) 2 x 3 times, then again through bench/supraseal/ssc2_shim.c (what
# runs supraseal-c2 under the same driver on a GPU host), here forwarding to this library, with --hold: every proof
# must be the reference's partition 0, byte for byte
PS=$T/target/debug/examples/porep_stream
head -c 384 "$T/ref.bin" > "$T/ref0.bin"
mkdir -p "$T/shim"
cc -O1 -shared -fPIC -I"$SRC/supraseal" -Wl,-soname,libzkpipe-supraseal.so.0 \
  -Wl,--version-script,"$SRC/supraseal/libzkpipe-supraseal.map" -o "$T/shim/libzkpipe-supraseal.so.0" \
  "$SRC/bench/supraseal/ssc2_shim.c" -ldl 2>"$T/cc-shim.log" || { cat "$T/cc-shim.log"; fail "ssc2_shim.c"; }
"$PS" "$T/k.params" "$T/parts" 2 --parts 3 --workers 2 --queue 0 --out "$T/ps.bin" >"$T/ps.log" 2>&1 ||
  { cat "$T/ps.log"; fail "porep_stream"; }
LD_LIBRARY_PATH=$T/shim ZP_SSC2_LIB=$L/libzkpipe-supraseal.so.0 "$PS" "$T/k.params" "$T/parts" 2 --parts 3 --hold \
  --out "$T/ps-shim.bin" >"$T/ps-shim.log" 2>&1 || { cat "$T/ps-shim.log"; fail "porep_stream through ssc2_shim"; }
grep -q "hold true" "$T/ps-shim.log" || { cat "$T/ps-shim.log"; fail "porep_stream --hold"; }
for f in ps ps-shim; do
  [ "$(stat -c %s "$T/$f.bin")" = 2304 ] || fail "$f.bin: $(stat -c %s "$T/$f.bin") bytes, want 6 proofs"
  for i in 0 1 2 3 4 5; do
    dd if="$T/$f.bin" of="$T/one.bin" bs=384 skip=$i count=1 status=none
    cmp -s "$T/one.bin" "$T/ref0.bin" || fail "$f.bin proof $i differs from the reference's partition 0"
  done
done
# crate_porep.sh's check of them: the dump's inputs (ss_cmp verify --dump); partition 1's proof is refused there
"$CMP" verify "$T/k.params" "$CASE" 6 "$T/ps-shim.bin" --dump "$T/parts" >/dev/null || fail "verify --dump"
"$CMP" verify "$T/k.params" "$CASE" 2 "$T/ref.bin" --dump "$T/parts" 2>/dev/null &&
  fail "verify --dump accepted partition 1's proof for partition 0's inputs"
LD_LIBRARY_PATH=$T/shim "$PS" "$T/k.params" "$T/parts" 1 --parts 1 >"$T/ps-noenv.log" 2>&1 &&
  fail "porep_stream through the shim ran with no ZP_SSC2_LIB"
grep -q "ZP_SSC2_LIB=(unset)" "$T/ps-noenv.log" || { cat "$T/ps-noenv.log"; fail "the shim's refusal"; }
wait_until 30 no_ext_jobs || fail "external jobs left ACTIVE after porep_stream: $(ext_jobs)"
log "PASS: porep_stream, directly and through ssc2_shim.c (--hold): 12 proofs, each the reference's partition 0"

# common.sh — shared by the supraseal tests: the pipeline test helpers (../pipeline/lib.sh) plus the
# harness, the library and a small dev key in .params form.
# Usage: . "$(dirname "$0")/common.sh" BUILD SRC HARNESS LIBRARY
. "$(dirname "${BASH_SOURCE[0]}")/../pipeline/lib.sh" "$1" "$2"
H=$3; LIB=$4
ROWS=${ROWS:-1000}; PUB=${PUB:-16}
KEY=$T/porep.params

make_key() { "$H" keygen "$KEY" "$ROWS" "$PUB" >/dev/null || fail "keygen"; }

# arena queries (JSON from zkpipe-shm)
shm_json() { "$SHM" --json "$ARENA" 2>/dev/null; }
slots_busy() { shm_json | python3 -c '
import json,sys; d=json.load(sys.stdin)
print(sum(1 for s in d["slots"] if s["state"] in ("FILLING","COPYING","READY")))'; }
slots_filling() { shm_json | python3 -c '
import json,sys; d=json.load(sys.stdin)
print(sum(1 for s in d["slots"] if s["state"]=="FILLING"))'; }
ext_jobs() { shm_json | python3 -c '
import json,sys; d=json.load(sys.stdin)
print(sum(1 for j in d["jobs"] if j["key_id"].startswith("ss:") and j["state"]=="ACTIVE"))'; }
# predicates for wait_until (evaluated on every try)
no_busy_slots() { [ "$(slots_busy)" = 0 ]; }
no_ext_jobs() { [ "$(ext_jobs)" = 0 ]; }

# CARGO (Debian's /usr/bin/cargo first: what a fresh Debian installs, else the first on PATH) and RUSTC beside it
cargo_setup() {
  if [ -z "${CARGO:-}" ]; then
    if [ -x /usr/bin/cargo ]; then CARGO=/usr/bin/cargo; else CARGO=$(command -v cargo) || fail "no cargo (scripts/deps.sh installs Debian's)"; fi
  fi
  # cargo runs $RUSTC (else the first rustc on PATH): the compiler beside the cargo chosen
  [ -n "${RUSTC:-}" ] || { RUSTC=$(dirname "$CARGO")/rustc; [ -x "$RUSTC" ] || RUSTC=$(command -v rustc); }
  export RUSTC RUST_BACKTRACE=0
}

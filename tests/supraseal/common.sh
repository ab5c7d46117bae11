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

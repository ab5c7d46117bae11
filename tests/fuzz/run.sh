#!/usr/bin/env bash
# Fuzz each reader with libFuzzer (clang -fsanitize=fuzzer,address,undefined) for a bounded time.
#   tests/fuzz/run.sh [seconds-per-target=60] [target...]     targets: r1cs wtns zkey json
# Seeds: the committed fixtures in tests/groth16/data (+ tests/fuzz/regress/<target>/).
# Crashes land in build-fuzz/<target>/crash-*; copy each into tests/fuzz/regress/<target>/ —
# the g16_fuzz_regress test replays that folder on every test run.
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-60}; shift || true
targets=("${@:-r1cs wtns zkey json}")
command -v clang >/dev/null || { echo "clang not found" >&2; exit 77; }
out=build-fuzz
mkdir -p "$out"
# the readers are compiled with the sanitizers and coverage; common/ (arithmetic) links as built
bash scripts/build.sh >/dev/null
src="prover/binfile.c prover/r1cs.c prover/wtns.c prover/zkey.c prover/circuit.c prover/g16_json.c"
status=0
for t in ${targets[@]}; do
  bin="$out/fuzz_$t"
  clang -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -Icommon -Iprover $src "tests/fuzz/fuzz_$t.c" build/common/libzpcommon.a -ljansson -lxxhash -lpthread -lm -o "$bin"
  corpus="$out/$t/corpus"; mkdir -p "$corpus"
  if [ "$t" = json ]; then cp tests/groth16/data/*.json "$corpus"/; else cp tests/groth16/data/*."$t" "$corpus"/ 2>/dev/null || true; fi
  [ -d "tests/fuzz/regress/$t" ] && cp "tests/fuzz/regress/$t"/* "$corpus"/ 2>/dev/null || true
  echo "fuzz $t for ${secs}s" >&2
  (cd "$out/$t" && ASAN_OPTIONS=detect_leaks=1 "../fuzz_$t" -max_total_time="$secs" -rss_limit_mb=2048 \
     -max_len=65536 -print_final_stats=1 corpus 2>fuzz.log) || { status=1; tail -40 "$out/$t/fuzz.log" >&2; }
  grep -E "stat::number_of_executed_units|stat::new_units_added" "$out/$t/fuzz.log" | sed "s/^/$t: /" >&2 || true
done
exit $status

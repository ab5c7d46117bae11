#!/usr/bin/env bash
# Errors and exit codes a script can rely on (issue 23 item 3):
#  - every binary answers --help and --version with exit 0 (and --version prints the version);
#  - `zkpipe --help` prints the one exit-code table, and docs/pipeline.md lists the same codes;
#  - config errors exit 14 and name the file, the line, the key and the accepted values: a
#    missing allow_input directory is named as such (not "unknown setting"), a bad value says
#    what is accepted (not "Invalid argument: Invalid argument"), and with several errors the line
#    and the quoted text are the first error's; the client reports the same through --config;
#  - zkpipe prove --gpu-memory: a bad size, a size under 1 GiB, or a cap without --backend cuda exit 2 naming it.
. "$(dirname "$0")/lib.sh" "$@"
ARENA=zpt-none   # no arena here (cleanup looks for one)
VER=$(sed -n "s/^ *version : '\([^']*\)'.*/\1/p" "$SRC/meson.build" | head -1)
for b in "$ZK" "$SUP" "$B/synthd/zkpipe-synthd" "$B/gpud/zkpipe-gpud" "$SHM"; do
  "$b" --help >"$T/h.out" 2>&1 || fail "$(basename "$b") --help exited $?: $(head -3 "$T/h.out")"
  grep -qi "usage" "$T/h.out" || fail "$(basename "$b") --help printed no usage"
  v=$("$b" --version 2>&1) || fail "$(basename "$b") --version exited $?"
  [ "$v" = "$(basename "$b") $VER" ] || fail "$(basename "$b") --version printed '$v', want '$(basename "$b") $VER'"
done
# the table: zkpipe --help and docs/pipeline.md name the same codes, each once
"$ZK" --help | sed -n 's/^ *\([0-9][0-9]*\)  .*/\1/p' | sort -n > "$T/codes.help"
[ "$(wc -l < "$T/codes.help")" -ge 19 ] || fail "zkpipe --help lists $(wc -l < "$T/codes.help") exit codes"
[ -z "$(uniq -d "$T/codes.help")" ] || fail "an exit code is listed twice"
python3 - "$SRC/docs/pipeline.md" > "$T/codes.doc" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
sec = t[t.index("## Exit codes"):]
sec = sec[:sec.index("\n## ", 4)] if "\n## " in sec[4:] else sec
for m in sorted({int(x) for x in re.findall(r"^\| *(\d+) *\|", sec, re.M)}): print(m)
PY
diff "$T/codes.help" "$T/codes.doc" || fail "docs/pipeline.md's exit codes differ from zkpipe --help's"
"$ZK" frobnicate >/dev/null 2>&1; [ $? = 2 ] || fail "unknown command: not exit 2"
# the commands with subcommands: none given is exit 2 with the usage on stderr; --help, exit 0 on stdout
for cmd in key synth; do
  "$ZK" $cmd >"$T/sub.out" 2>"$T/sub.err"; rc=$?
  [ $rc = 2 ] && [ ! -s "$T/sub.out" ] && grep -qi usage "$T/sub.err" || fail "zkpipe $cmd (no subcommand): exit $rc"
  "$ZK" $cmd --help >"$T/sub.out" 2>"$T/sub.err"; rc=$?
  [ $rc = 0 ] && [ ! -s "$T/sub.err" ] && grep -qi usage "$T/sub.out" || fail "zkpipe $cmd --help: exit $rc"
done

# ---- config errors
mkdir -p "$T/ok"
cfgerr() { # cfgerr NAME: writes $T/NAME.ini from stdin, runs the supervisor and the client on it
  cat > "$T/$1.ini"
  timeout -k 10 120 "$SUP" --config "$T/$1.ini" >"$T/$1.sup" 2>&1; echo $? > "$T/$1.rc" # bounded: 124 if it ran
  "$ZK" status --config "$T/$1.ini" >"$T/$1.cli" 2>&1; echo $? > "$T/$1.crc"
}
cfgerr missingdir <<INI
[run]
dir = $T/run
allow_input = $T/ok:$T/nonexistent
[key chain]
zkey = $EX/chain.zkey
[group g]
INI
[ "$(cat "$T/missingdir.rc")" = 14 ] || fail "missing allow_input dir: supervisor exited $(cat "$T/missingdir.rc")"
[ "$(cat "$T/missingdir.crc")" = 14 ] || fail "missing allow_input dir: client exited $(cat "$T/missingdir.crc")"
m=$(cat "$T/missingdir.sup")
case "$m" in *"$T/missingdir.ini line 3: [run] allow_input"*"$T/nonexistent"*"No such file or directory"*) ;;
  *) fail "missing directory message: $m";; esac
case "$m" in *"unknown setting"*) fail "a missing directory reported as unknown setting: $m";; esac
grep -q "line 3: \[run\] allow_input" "$T/missingdir.cli" || fail "client message: $(cat "$T/missingdir.cli")"

cfgerr badvalue <<INI
[run]
dir = $T/run
[key chain]
zkey = $EX/chain.zkey
[group g]
slots = four
backend = gpu
INI
[ "$(cat "$T/badvalue.rc")" = 14 ] || fail "bad value: exited $(cat "$T/badvalue.rc")"
m=$(cat "$T/badvalue.sup")
case "$m" in *"line 6: [group g] slots = four: not a valid value (accepted: a positive integer)"*) ;;
  *) fail "bad value message (the first error, line 6, with what is accepted): $m";; esac
case "$m" in *"Invalid argument: Invalid argument"*|*"backend"*) fail "bad value message: $m";; esac

# several errors: line and quoted text are the same (first) error's, even after a syntax error later
cfgerr several <<INI
[run]
dir = $T/run
keep_arena = maybe
[key chain]
zkey = $EX/chain.zkey
bogus = 1
this line has no equals sign
[group g]
backend = gpu
INI
m=$(cat "$T/several.sup")
case "$m" in *"line 3: [run] keep_arena = maybe"*"yes | no"*) ;; *) fail "several errors: $m";; esac
cfgerr syntaxfirst <<INI
[run]
dir = $T/run
what is this
[group g]
slots = x
INI
case "$(cat "$T/syntaxfirst.sup")" in *"line 3: syntax error"*) ;; *) fail "syntax error first: $(cat "$T/syntaxfirst.sup")";; esac
cfgerr unknown <<INI
[run]
dir = $T/run
[group g]
slotz = 4
INI
m=$(cat "$T/unknown.sup")
case "$m" in *"line 4: [group g] slotz: unknown setting (known in this section: "*"slot_size"*) ;;
  *) fail "unknown setting: $m";; esac
cfgerr section <<INI
[runn]
dir = $T/run
INI
case "$(cat "$T/section.sup")" in *"line 2: [runn]: unknown section"*) ;; *) fail "unknown section: $(cat "$T/section.sup")";; esac
[ ! -e "$T/run" ] || fail "a config error left a run directory"
timeout -k 10 120 "$SUP" --config "$T/absent.ini" >/dev/null 2>&1; [ $? = 14 ] || fail "a missing config file: not exit 14"
timeout -k 10 120 "$SUP" >/dev/null 2>&1; [ $? = 2 ] || fail "supervisor without --config: not exit 2"
# the sample configs parse (relative paths from their directory; exit 10: no supervisor, not 14)
# and listen on loopback only
for f in "$SRC"/examples/*.ini; do
  "$ZK" status --config "$f" >"$T/ex.out" 2>&1; rc=$?
  [ $rc = 10 ] || fail "$(basename "$f"): exit $rc: $(cat "$T/ex.out")"
  grep -v '^ *;' "$f" | grep -q "0\.0\.0\.0" && fail "$(basename "$f") listens beyond loopback"
done
# issue 37: errors that name what to fix
# - slot_size = auto whose key cannot be read names the key's file and why (not "Invalid argument" alone)
cfgerr autoslot <<INI
[run]
dir = $T/run
[key chain]
zkey = $T/missing.zkey
[group g]
slot_size = auto
INI
grep -q "slot_size = auto: no key could be read to size it (key chain: $T/missing.zkey: .*No such file" "$T/autoslot.sup" ||
  fail "slot_size = auto with a missing zkey: $(cat "$T/autoslot.sup")"
# - backing = hugetlbfs without a hugetlbfs mount (ZKPIPE_HUGETLBFS at a plain directory) names the how-to,
#   and the how-to is there
cat > "$T/huge.ini" <<INI
[run]
dir = $T/hrun
backing = hugetlbfs
[key chain]
zkey = $EX/chain.zkey
[group g]
slot_size = 2M
slots = 1
INI
ZKPIPE_HUGETLBFS=$T timeout 60 "$SUP" --config "$T/huge.ini" >"$T/huge.out" 2>&1; rc=$?
[ $rc = 17 ] || fail "backing = hugetlbfs without a mount: exit $rc: $(cat "$T/huge.out")"
grep -q 'hugetlbfs: no 2 MiB mount.*docs/pipeline.md, "Hugepages"' "$T/huge.out" || fail "hugetlbfs error: $(cat "$T/huge.out")"
python3 - "$SRC/docs/pipeline.md" <<'PY' || fail "docs/pipeline.md has no Hugepages how-to"
import sys
t = open(sys.argv[1]).read()
sec = t[t.index("\n## Hugepages\n"):]
sec = sec[:sec.index("\n## ", 5)]
for w in ("vm.nr_hugepages", "mount -t hugetlbfs", "memlock", "ulimit -l"): assert w in sec, w
PY
# - a missing JSON file: "cannot open", never jansson's "line -1"
"$ZK" verify --vk "$T/absent.json" --proof "$T/absent.json" --public "$T/absent.json" >"$T/v.out" 2>&1; rc=$?
[ $rc = 3 ] || fail "verify with a missing vk: exit $rc: $(cat "$T/v.out")"
grep -q "absent.json: cannot open: No such file" "$T/v.out" && ! grep -q "line -1" "$T/v.out" ||
  fail "missing vk: $(cat "$T/v.out")"
# zkpipe prove --gpu-memory: a size (as [group] gpu_memory), for the CUDA backend only; exit 2 naming it otherwise
P=(prove --zkey "$EX/chain.zkey" --wtns "$EX/w0.wtns" --proof "$T/p.json" --public "$T/u.json" --quiet)
"$ZK" "${P[@]}" --backend cuda --gpu-memory 24X >"$T/gm.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "gpu-memory 24X: not a size" "$T/gm.out" || fail "--gpu-memory 24X: exit $rc: $(cat "$T/gm.out")"
"$ZK" "${P[@]}" --backend cuda --gpu-memory 24 >"$T/gm.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "gpu-memory 24: out of range" "$T/gm.out" || fail "--gpu-memory 24 (bytes): exit $rc: $(cat "$T/gm.out")"
"$ZK" "${P[@]}" --gpu-memory 24G >"$T/gm.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "needs --backend cuda" "$T/gm.out" || fail "--gpu-memory with the CPU backend: exit $rc: $(cat "$T/gm.out")"
"$ZK" prove --help | grep -q -- "--gpu-memory SIZE" || fail "zkpipe prove --help does not name --gpu-memory"
echo "PASS: --help/--version on every binary; one exit-code table (help = docs); config errors name line, key, accepted values"

# scripts/test-count.sh — sourced by scripts/test.sh and scripts/test-sanitize.sh (one count, one
# format for both runs).
# count_tests LOG [OTHER [EXTRA]]: "N passed, N failed[, N skipped]" from meson's testlog.json LOG;
#   OTHER: another run's such line, added in ("" = none; a line that does not parse is one failure);
#   EXTRA: failures to add (the sanitizer run: 1 when any process wrote a report).
count_tests() {
  python3 - "$1" "${2:-}" "${3:-0}" <<'PY'
import json, re, sys
p = f = s = 0
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    if r == "OK": p += 1
    elif r == "SKIP": s += 1
    else: f += 1
m = re.match(r"(\d+) passed, (\d+) failed(?:, (\d+) skipped)?", sys.argv[2])
if m:
    p += int(m[1]); f += int(m[2]); s += int(m[3] or 0)
elif sys.argv[2]:
    f += 1
f += int(sys.argv[3])
print(f"{p} passed, {f} failed" + (f", {s} skipped" if s else ""))
PY
}

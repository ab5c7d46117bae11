#!/usr/bin/env bash
# One client address cannot take the HTTP endpoint (issue 31 item 6): 80 slow connections (a
# header byte a second, never finished) and then 3,000 idle ones, all from 127.0.0.1 and held
# open by the test, against the default limits (http_connections = 64, http_per_address = 16) and
# an idle timeout longer than the test (so no timeout helps). While they are held, GET /metrics,
# GET /status and HEAD /metrics (headers, no body) answer every time; the server keeps at most
# http_per_address (plus those being closed) of that address's connections established: each new
# one evicts the oldest idle one.
. "$(dirname "$0")/lib.sh" "$@"
PORT=$(free_port)
EXTRA_RUN="http = 127.0.0.1:$PORT"
EXTRA_LIMITS="http_timeout_s = 600"
write_config
start_sup
probe() { # probe METHOD PATH: 0 when answered 200 within 10 s (HEAD: and no body)
  python3 - "$PORT" "$1" "$2" <<'PY'
import socket, sys
port, method, path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
try:
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(f"{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    data = b""
    while True:
        b = s.recv(65536)
        if not b: break
        data += b
except OSError as e:
    print(f"{method} {path}: {e}"); sys.exit(1)
head, _, body = data.partition(b"\r\n\r\n")
if not head.startswith(b"HTTP/1.1 200"):
    print(f"{method} {path}: {head[:80]!r}"); sys.exit(1)
if method == "HEAD" and body:
    print(f"HEAD {path}: a body of {len(body)} bytes"); sys.exit(1)
if method == "GET" and not body:
    print(f"GET {path}: no body"); sys.exit(1)
PY
}
probe GET /metrics || fail "/metrics before the flood"
python3 - "$PORT" "$T/flood.ready" <<'PY' &
import resource, socket, sys, time
port, ready = int(sys.argv[1]), sys.argv[2]
resource.setrlimit(resource.RLIMIT_NOFILE, (8192, 8192))
slow, idle = [], []
for i in range(80 + 3000):
    s = socket.socket()
    s.settimeout(60)
    try:
        s.connect(("127.0.0.1", port))
    except OSError:
        s.close(); continue
    (slow if i < 80 else idle).append(s)
    if i < 80:
        s.send(b"G")
open(ready, "w").write(f"{len(slow)} {len(idle)}")
req = b"ET /metrics HTTP/1.1\r\nX-Slow: " + b"a" * 10000
for k in range(600):
    for s in slow:
        try: s.send(req[k:k + 1])
        except OSError: pass
    time.sleep(1)
PY
FLOOD=$!
trap 'kill $FLOOD 2>/dev/null; cleanup' EXIT
wait_until 180 test -s "$T/flood.ready" || fail "the flood's connections were not all made"
read -r ns ni < "$T/flood.ready"
log "flood: $ns slow + $ni idle connections made from 127.0.0.1"
[ "$ns" = 80 ] && [ "$ni" = 3000 ] || fail "flood: $ns slow, $ni idle connections (80 + 3000 wanted)"
for i in 1 2 3; do
  probe GET /metrics || fail "GET /metrics during the flood (round $i)"
  probe GET /status || fail "GET /status during the flood (round $i)"
  probe HEAD /metrics || fail "HEAD /metrics during the flood (round $i)"
  probe HEAD /status || fail "HEAD /status during the flood (round $i)"
done
est() { ss -Htn state established "( sport = :$PORT )" | wc -l; }
wait_until 30 eval '[ "$(est)" -le 26 ]' || fail "$(est) connections established at the server (16 per address + 10 closing at most)"
kill -0 "$FLOOD" || fail "the flood ended early (the test would not hold)"
"$ZK" status --config "$CFG" >/dev/null || fail "zkpipe status during the flood"
grep -q "http: 44 connections, 16 per client address" "$T/supervisor.log" || fail "limits not logged"
echo "PASS: /metrics, /status (GET and HEAD) answered under 80 slow + 3000 idle connections from one address; $(est) held"

#!/usr/bin/env python3
# Model of cuda/ntt.cu's DIF / DIT passes over a small prime field: the validated one-butterfly-a-thread
# indexing (pass2, DIF / DIT) against the ZP_NTT_RADIX_LOG grouping (pass_r: 2^R elements a thread,
# R levels a barrier, last step shorter), same block layout, twiddle indices (ti, u) and ti == 0 skip;
# both against the DFT definition (bit-reversed output for DIF, bit-reversed input for DIT), forward
# and inverse, several pass sizes (NTT_K) and lengths. A mirror of the index arithmetic, not the CUDA
# code itself: keep the two in step. Exit 0 ok, 1 mismatch.
import sys
import random
P = 7340033  # 7·2^20+1, root of unity of order 2^20
g = 3
def root(n): return pow(g, (P-1)//n, P)
def run(log_n, NTT_K, R, DIT, inverse=0):
    max_log = log_n + 1
    N = 1 << max_log; w = root(N)
    tw = [pow(w, i, P) for i in range(N//2 + 1)]
    nhalf = N // 2
    x = [random.randrange(P) for _ in range(1 << log_n)]
    x0 = list(x)
    def twid(ti): return (P - tw[nhalf - ti]) % P if inverse else tw[ti]
    # pass list
    passes = []
    if DIT:
        b0 = 0
        while b0 < log_n:
            k = min(NTT_K, log_n - b0); passes.append((b0, k)); b0 += NTT_K
    else:
        top = log_n
        while top > 0:
            k = min(NTT_K, top); passes.append((top - k, k)); top -= NTT_K
    for (b0, k) in passes:
        for blk in range(1 << (log_n - k)):
            low = blk & ((1 << b0) - 1); high = blk >> b0
            base = (high << (b0 + k)) | low
            s = [x[base + (t << b0)] for t in range(1 << k)]
            if R == 1:
                levels = range(k) if DIT else range(k - 1, -1, -1)
                for m in levels:
                    for q in range(1 << (k - 1)):
                        t1 = ((q >> m) << (m + 1)) | (q & ((1 << m) - 1)); t2 = t1 + (1 << m)
                        j = low + ((t1 & ((1 << m) - 1)) << b0); ti = j << (max_log - b0 - m - 1)
                        a, b = s[t1], s[t2]
                        wv = 1 if ti == 0 else twid(ti)
                        if DIT: b = b * wv % P; s[t1] = (a + b) % P; s[t2] = (a - b) % P
                        else: s[t1] = (a + b) % P; s[t2] = (a - b) * wv % P
            else:
                Rk = min(R, k); nt = 1 << (k - Rk)
                done = 0
                while done < k:
                    r = min(k - done, Rk); lo = done if DIT else k - done - r; G = 1 << (Rk - r)
                    for q in range(nt):
                        for gg in range(G):
                            sg = q * G + gg
                            t = ((sg >> lo) << (lo + r)) | (sg & ((1 << lo) - 1))
                            e = [s[t + (i << lo)] for i in range(1 << r)]
                            for step in range(r):
                                rr = step if DIT else r - 1 - step
                                for i in range(1 << r):
                                    if i & (1 << rr): continue
                                    i2 = i + (1 << rr)
                                    u = (t & ((1 << lo) - 1)) + ((i & ((1 << rr) - 1)) << lo)
                                    l = lo + rr
                                    j = low + (u << b0); ti = j << (max_log - b0 - l - 1)
                                    wv = 1 if ti == 0 else twid(ti)
                                    a, b = e[i], e[i2]
                                    if DIT: b = b * wv % P; e[i] = (a + b) % P; e[i2] = (a - b) % P
                                    else: e[i] = (a + b) % P; e[i2] = (a - b) * wv % P
                            for i in range(1 << r): s[t + (i << lo)] = e[i]
                    done += r
            for t in range(1 << k): x[base + (t << b0)] = s[t]
    return x0, x
def rev(i, n): return int(format(i, '0%db' % n)[::-1], 2)
ok = True
for log_n in [1, 2, 3, 5, 7, 10]:
    for NTT_K in [2, 3, 4]:
        for DIT in [False, True]:
            for inv in [0, 1]:
                res = {}
                for R in [1, 2, 3]:
                    random.seed(log_n * 100 + NTT_K)
                    res[R] = run(log_n, NTT_K, R, DIT, inv)
                if not (res[1] == res[2] == res[3]): ok = False; print("MISMATCH", log_n, NTT_K, DIT, inv)
                # check DIF against the definition: X_k = sum x_j w^(jk), output bit-reversed
                if not DIT and log_n <= 7:
                    x0, x = res[3]; n = 1 << log_n; wn = root(n)
                    if inv: wn = pow(wn, P - 2, P)
                    for kk in range(n):
                        if x[rev(kk, log_n)] != sum(x0[j] * pow(wn, j * kk, P) for j in range(n)) % P: ok = False; print("DFT WRONG", log_n, NTT_K, inv); break
                if DIT and log_n <= 7:
                    x0, x = res[3]; n = 1 << log_n; wn = root(n)
                    if inv: wn = pow(wn, P - 2, P)
                    for kk in range(n):
                        if x[kk] != sum(x0[rev(j, log_n)] * pow(wn, j * kk, P) for j in range(n)) % P: ok = False; print("DIT WRONG", log_n, NTT_K, inv); break
print("ok" if ok else "FAIL")
sys.exit(0 if ok else 1)

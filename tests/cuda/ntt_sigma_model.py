#!/usr/bin/env python3
# Model of cuda/ntt.cu's transforms over a small prime field, against the definitions (the names are
# the bits of the NTT_OPT_* mask they were until issue 35; ntt.cu keeps BAL, TWLOAD and SIGMA on, the model
# both ways): the pass split (NTT_K levels, or balanced: BAL), block twiddles w^(A+B) (TWLOAD:
# one table entry; A + B < N/2), cosets by level-scaled twiddles (SIGMA: global level L's
# twiddles times sig[L] = s^(2^(log_n-1-L)), no trivial-twiddle skip; coset forward = bit reversal then
# DIT, coset inverse = DIF with s^-1's factors then the reversal times n^-1) and the H step's combine
# h = (A·B - n·C)·k (k = n^-2, bellperson also (g^n - 1)^-1·n^-1) on unscaled inverses. Mirrors the
# index arithmetic of pass2 (DIF / DIT) / block_tw_entry / pass_sizes (keep the two in step).
# Exit 0 ok, 1 mismatch.
import random
import sys

P = 7340033  # 7·2^20 + 1
G = 3        # generator of the multiplicative group


def root(n):
    return pow(G, (P - 1) // n, P)


def inv(a):
    return pow(a, P - 2, P)


def rev(i, bits):
    return int(format(i, '0%db' % bits)[::-1], 2) if bits else 0


def pass_sizes(log_n, ntt_k, bal):
    np_ = (log_n + ntt_k - 1) // ntt_k
    if bal:
        return [log_n // np_ + (1 if i < log_n % np_ else 0) for i in range(np_)]
    return [min(ntt_k, log_n - i * ntt_k) for i in range(np_)]


class Ctx:
    def __init__(self, max_log):
        self.max_log = max_log
        N = 1 << max_log
        w = root(N)
        self.tw = [pow(w, i, P) for i in range(N // 2 + 1)]
        self.nhalf = N // 2

    def tw_at(self, x, inverse):
        if x == 0:
            return 1
        return (P - self.tw[self.nhalf - x]) % P if inverse else self.tw[x]

    def entry(self, b0, low, e, inverse, sig, twload):
        m = (e + 1).bit_length() - 1
        u = e + 1 - (1 << m)
        A = low << (self.max_log - b0 - m - 1)
        B = u << (self.max_log - m - 1)
        assert A + B < self.nhalf
        if sig is not None:
            return self.tw_at(A + B, inverse) * sig[b0 + m] % P
        if twload or A == 0 or B == 0:
            return self.tw_at(A + B, inverse)
        return self.tw_at(A, inverse) * self.tw_at(B, inverse) % P

    def passes(self, x, log_n, inverse, dit, sig=None, ntt_k=9, bal=False, twload=False):
        ks = pass_sizes(log_n, ntt_k, bal)
        plan = []
        if dit:
            b0 = 0
            for k in ks:
                plan.append((b0, k)); b0 += k
        else:
            top = log_n
            for k in ks:
                plan.append((top - k, k)); top -= k
        for (b0, k) in plan:
            btw = b0 > 0 or sig is not None
            for blk in range(1 << (log_n - k)):
                low = blk & ((1 << b0) - 1); high = blk >> b0
                base = (high << (b0 + k)) | low
                tws = [self.entry(b0, low, e, inverse, sig, twload) for e in range((1 << k) - 1)] if btw else None
                s = [x[base + (t << b0)] for t in range(1 << k)]
                levels = range(k) if dit else range(k - 1, -1, -1)
                for m in levels:
                    for q in range(1 << (k - 1)):
                        t1 = ((q >> m) << (m + 1)) | (q & ((1 << m) - 1)); t2 = t1 + (1 << m)
                        j = low + ((t1 & ((1 << m) - 1)) << b0)
                        ti = j << (self.max_log - b0 - m - 1)
                        a, b = s[t1], s[t2]
                        w = None
                        if ti != 0 or sig is not None:
                            w = tws[(1 << m) - 1 + (t1 & ((1 << m) - 1))] if btw else self.tw_at(ti, inverse)
                        if dit:
                            if w is not None: b = b * w % P
                            s[t1] = (a + b) % P; s[t2] = (a - b) % P
                        else:
                            d = (a - b) % P
                            s[t1] = (a + b) % P
                            s[t2] = d * w % P if w is not None else d
                for t in range(1 << k):
                    x[base + (t << b0)] = s[t]


def bitrev(x, log_n, c=1):
    n = 1 << log_n
    return [x[rev(i, log_n)] * c % P for i in range(n)]


def sigs(s, log_n):
    return [pow(s, 1 << (log_n - 1 - L), P) for L in range(log_n)]


def dft(x, s, log_n):
    n = 1 << log_n; w = root(n)
    return [sum(x[j] * pow(s * pow(w, k, P) % P, j, P) for j in range(n)) % P for k in range(n)]


def idft(X, s, log_n):
    n = 1 << log_n; w = root(n); ni = inv(n); si = inv(s); wi = inv(w)
    return [ni * pow(si, j, P) * sum(X[k] * pow(wi, j * k, P) for k in range(n)) % P for j in range(n)]


def coset_fwd(c, x, log_n, s, **kw):
    y = bitrev(x, log_n)
    c.passes(y, log_n, 0, True, sigs(s, log_n), **kw)
    return y


def coset_inv(c, x, log_n, s, **kw):
    y = list(x)
    c.passes(y, log_n, 1, False, sigs(inv(s), log_n), **kw)
    return bitrev(y, log_n, inv(1 << log_n))


def plain_fwd(c, x, log_n, **kw):
    y = list(x)
    c.passes(y, log_n, 0, False, None, **kw)
    return bitrev(y, log_n)


def plain_inv(c, x, log_n, **kw):
    y = list(x)
    c.passes(y, log_n, 1, False, None, **kw)
    return bitrev(y, log_n, inv(1 << log_n))


def h_step(c, a, b, cc, log_n, s, bellperson, **kw):
    n = 1 << log_n
    v = [list(a), list(b), list(cc)]
    for y in v:
        c.passes(y, log_n, 1, False, None, **kw)          # unscaled inverse, bit-reversed out
        c.passes(y, log_n, 0, True, sigs(s, log_n), **kw)  # coset forward by level factors
    ni = inv(n)
    k = ni * ni % P
    if bellperson:
        k = k * ni * inv((pow(s, n, P) - 1) % P) % P
    h = [(v[0][i] * v[1][i] - v[2][i] * n) * k % P for i in range(n)]
    if not bellperson:
        return h
    c.passes(h, log_n, 1, False, sigs(inv(s), log_n), **kw)
    return bitrev(h, log_n)


def h_ref(a, b, cc, log_n, s, bellperson):
    n = 1 << log_n
    A, B, C = (dft(idft(v, 1, log_n), s, log_n) for v in (a, b, cc))
    if not bellperson:
        return [(A[i] * B[i] - C[i]) % P for i in range(n)]
    z = inv((pow(s, n, P) - 1) % P)
    h = [(A[i] * B[i] - C[i]) * z % P for i in range(n)]
    return idft(h, s, log_n)


def main():
    random.seed(22)
    bad = 0
    for log_n in [1, 2, 3, 4, 5, 6, 7, 8]:
        for ntt_k in [2, 3, 4]:
            for bal in [False, True]:
                for twload in [False, True]:
                    kw = dict(ntt_k=ntt_k, bal=bal, twload=twload)
                    for max_extra in [0, 1, 2]:
                        c = Ctx(log_n + max_extra)
                        n = 1 << log_n
                        x = [random.randrange(P) for _ in range(n)]
                        s = random.randrange(2, P)
                        checks = [
                            ("fwd", plain_fwd(c, x, log_n, **kw), dft(x, 1, log_n)),
                            ("inv", plain_inv(c, x, log_n, **kw), idft(x, 1, log_n)),
                            ("coset fwd", coset_fwd(c, x, log_n, s, **kw), dft(x, s, log_n)),
                            ("coset inv", coset_inv(c, x, log_n, s, **kw), idft(x, s, log_n)),
                        ]
                        if log_n <= 6:
                            a = [random.randrange(P) for _ in range(n)]
                            b = [random.randrange(P) for _ in range(n)]
                            cc = [random.randrange(P) for _ in range(n)]
                            for bp in (True, False):
                                checks.append(("H bellperson" if bp else "H snarkjs",
                                               h_step(c, a, b, cc, log_n, s, bp, **kw), h_ref(a, b, cc, log_n, s, bp)))
                        for name, got, want in checks:
                            if got != want:
                                bad += 1
                                print("MISMATCH", name, "log_n", log_n, kw, "max_log", c.max_log)
    print("ntt_sigma_model:", "ok" if not bad else "%d mismatches" % bad)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())

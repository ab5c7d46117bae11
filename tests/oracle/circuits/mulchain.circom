pragma circom 2.0.0;
// A multiplication chain: s_{i+1} = s_i * s_i * k + x (two multiplications a step), 100 steps,
// with the factor k public.
template MulChain(N) {
  signal input x;
  signal input k;
  signal output y;
  signal s[N + 1];
  signal t[N];
  s[0] <== x;
  for (var i = 0; i < N; i++) {
    t[i] <== s[i] * s[i];
    s[i + 1] <== t[i] * k + x;
  }
  y <== s[N];
}
component main {public [k]} = MulChain(100);

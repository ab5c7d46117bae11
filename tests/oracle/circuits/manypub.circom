pragma circom 2.0.0;
// Many public inputs (40) and outputs (2): the outputs are Σ v_i·w_i and Π (v_i + w_i) of public
// v and private w, so every public wire enters a constraint.
template ManyPublic(N) {
  signal input v[N];
  signal input w[N];
  signal output dot;
  signal output prod;
  signal acc[N + 1];
  signal pr[N + 1];
  signal vw[N];
  acc[0] <== 0;
  pr[0] <== 1;
  for (var i = 0; i < N; i++) {
    vw[i] <== v[i] * w[i];
    acc[i + 1] <== acc[i] + vw[i];
    pr[i + 1] <== pr[i] * (v[i] + w[i]);
  }
  dot <== acc[N];
  prod <== pr[N];
}
component main {public [v]} = ManyPublic(40);

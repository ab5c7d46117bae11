pragma circom 2.0.0;
// Two public values (output c, input a), one private input, three constraints.
template Mul() {
  signal input a;
  signal input b;
  signal output c;
  signal t;
  signal u;
  t <== a * b;
  u <== t * t;
  c <== u * a + b;
}
component main {public [a]} = Mul();

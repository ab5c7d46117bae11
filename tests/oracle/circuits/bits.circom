pragma circom 2.0.0;
include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";
// Bit decompositions and comparators: x is split into 64 bits (Num2Bits), checked to lie in
// [lo, hi) with LessThan/GreaterEqThan on 64 bits, and its low 32 bits are recomposed (Bits2Num)
// as the output. lo and hi are public.
template Range() {
  signal input x;
  signal input lo;
  signal input hi;
  signal output low;
  component bits = Num2Bits(64);
  bits.in <== x;
  component below = LessThan(64);
  below.in[0] <== x;
  below.in[1] <== hi;
  below.out === 1;
  component above = GreaterEqThan(64);
  above.in[0] <== x;
  above.in[1] <== lo;
  above.out === 1;
  component back = Bits2Num(32);
  for (var i = 0; i < 32; i++) back.in[i] <== bits.out[i];
  low <== back.out;
}
component main {public [lo, hi]} = Range();

pragma circom 2.0.0;
include "circomlib/circuits/poseidon.circom";
// Poseidon(2) of two private inputs, bound to a public salt; the hash is the output.
template Hash() {
  signal input x;
  signal input y;
  signal input salt;
  signal output h;
  component p = Poseidon(2);
  p.inputs[0] <== x;
  p.inputs[1] <== y * salt;
  h <== p.out;
}
component main {public [salt]} = Hash();

#!/usr/bin/env bash
# Run a test binary on the oracle fixtures of both curves (made on demand):
#   bn254_fixture.sh TEST_BIN FIXTURES_BN FIXTURES_BLS CIRCUIT
here="$(cd "$(dirname "$0")" && pwd)"
bash "$here/../oracle/fixtures.sh" --prime bn128 "$2" "$4"; rc=$?
[ $rc = 0 ] || exit $rc
bash "$here/../oracle/fixtures.sh" "$3" "$4"; rc=$?
[ $rc = 0 ] || exit $rc
exec "$1" "$2" "$3" "$4"

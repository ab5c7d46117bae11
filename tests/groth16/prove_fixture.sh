#!/usr/bin/env bash
# Run test_prove on an oracle fixture (made on demand). Usage: prove_fixture.sh TEST_BIN FIXTURE_DIR CIRCUIT
here="$(cd "$(dirname "$0")" && pwd)"
bash "$here/../oracle/fixtures.sh" "$2" "$3"; rc=$?
[ $rc = 0 ] || exit $rc
exec "$1" "$2/$3" "$3"

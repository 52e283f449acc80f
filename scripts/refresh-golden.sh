#!/usr/bin/env bash
# Copies the public golden records from ../shared/golden into testdata/golden,
# compressed, so that `go test ./...` needs only the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
src=${1:-../shared/golden}
mkdir -p testdata/golden
for f in core noncore errors grad; do
  gzip -9 -n -c "$src/public/$f.jsonl" > "testdata/golden/$f.jsonl.gz"
done
gzip -9 -n -c "$src/schemas.json" > testdata/golden/schemas.json.gz
ls -l testdata/golden

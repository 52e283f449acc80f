#!/usr/bin/env bash
# Records resampled golden files from this machine's torch 1.13 with
# scripts/resample-golden.py and replays them with the conformance tests:
#
#   bash scripts/resample-golden.sh OUTDIR [SEED]
#
# OUTDIR gets core/noncore/errors/grad.jsonl (OpInfo samples, their backward
# calls, direct calls of composite ops, error inputs, unsupported dtypes,
# order-1 and order-2 gradients), OUTDIR/mutated the same records with one
# argument changed, and OUTDIR/extras the public "extras:" records re-run in
# the other dtypes of their grid, with their gradients. Needs Debian's python3-torch (apt-get install
# python3-torch); about 10 minutes on 2 cores. See the .py file for what
# differs from the public records by build.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: resample-golden.sh OUTDIR [SEED]}
seed=${2:-1}
py=/usr/bin/python3
"$py" -c 'import torch' 2>/dev/null || { echo "needs Debian's python3-torch: apt-get install python3-torch" >&2; exit 1; }
stub=$(mktemp -d)
trap 'rm -rf "$stub"' EXIT
# torch.testing._internal imports expecttest, which Debian does not package.
printf 'import unittest\nACCEPT = False\nclass TestCase(unittest.TestCase):\n    pass\n' > "$stub/expecttest.py"
export PYTHONPATH="$stub" SCHEMAS="${SCHEMAS:-../shared/golden/schemas.json}"
mkdir -p "$out/mutated" "$out/extras"
rm -f "$out"/*.jsonl "$out"/mutated/*.jsonl "$out"/extras/*.jsonl
run() { "$py" scripts/resample-golden.py "$@" 2>&1 | grep -v -i warn | tail -1; }
for mode in forward direct backward errors dtype-errors; do
  run "$mode" "$seed" "$out"
done
for f in core noncore; do
  run grad "$seed" "$out" "$out/$f.jsonl"
  run grad2 "$seed" "$out" "$out/$f.jsonl"
  run mutate "$seed" "$out/mutated" "$out/$f.jsonl"
done
pub=$(dirname "$SCHEMAS")/public
for f in core noncore; do
  run extras "$seed" "$out/extras" "$pub/$f.jsonl"
done
for f in core noncore; do
  run grad "$seed" "$out/extras" "$out/extras/$f.jsonl"
done
wc -l "$out"/*.jsonl "$out"/mutated/*.jsonl "$out"/extras/*.jsonl
GOLDEN_DIR="$out" go test -count=1 -run Conformance . || true
GOLDEN_DIR="$out/mutated" go test -count=1 -run 'Conformance$|ConformanceErrors' . || true
GOLDEN_DIR="$out/extras" go test -count=1 -run Conformance . || true

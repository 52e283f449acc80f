#!/usr/bin/env bash
# The elementwise peer comparison of issue 4: runs bench/elementwise_test.go
# (goaten, and gonum/floats where it has the op) with GOMAXPROCS 1 and 2,
# then the same shapes in PyTorch and numpy on one thread
# (bench/peers/elementwise_peers.py, Debian's /usr/bin/python3 with
# python3-torch and python3-numpy), in the same run, and prints the table of
# throughput ratios goaten/peer (bench/peers/compare_table.py).
#
#   bash bench/compare.sh            # BENCHTIME=10x COUNT=3 CPUS=1,2 by default
set -euo pipefail
cd "$(dirname "$0")/.."
PY=/usr/bin/python3
if ! "$PY" -c 'import numpy, torch' 2>/dev/null; then
  echo "compare.sh needs Debian's python3-torch and python3-numpy (apt-get install python3-torch python3-numpy)" >&2
  exit 1
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "# $(date -u +%Y-%m-%d) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $(go version | cut -d' ' -f3)"
echo "# goaten asm path: $(go run ./bench/peers/asmpath 2>/dev/null || echo unknown)"
go test -run XXX -bench 'Elementwise' -benchtime "${BENCHTIME:-10x}" -count "${COUNT:-3}" -cpu "${CPUS:-1,2}" ./bench/ >"$out/go.txt"
"$PY" bench/peers/elementwise_peers.py >"$out/peers.txt"
"$PY" bench/peers/compare_table.py "$out/go.txt" "$out/peers.txt"

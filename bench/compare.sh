#!/usr/bin/env bash
# The peer comparison of issue 4, in one run, printing the tables of
# bench/peers/compare_table.py:
#
# - elementwise: bench/elementwise_test.go (goaten, and gonum/floats where it
#   has the op) with GOMAXPROCS 1 and 2, then the same shapes in PyTorch and
#   numpy on one thread (bench/peers/elementwise_peers.py);
# - gemm: bench/gemm_test.go (square sgemm/dgemm through mm, and conv2d of
#   [8,64,56,56] with a 3×3 kernel; goaten on one and two cores, gonum on
#   one; on an AVX-512 machine goaten once more with GOATEN_NOAVX512=1, the
#   AVX2 kernels an AVX2-only CPU runs), then the same shapes in PyTorch and
#   numpy/OpenBLAS on one and two threads (bench/peers/gemm_peers.py); with
#   GOPEERS=1 also the Go peers of
#   bench/peers/gopeers (a module of its own; the first run downloads them).
#
# - ops: bench/ops_test.go, the op survey of bench/peers/ops_cases.json
#   (pooling, reductions over other dims, backward ops, indexing, norms,
#   convolution variants) with GOMAXPROCS 1 and 2, then the same cases in
#   PyTorch on one thread (bench/peers/ops_peers.py).
#
# - models: issue 24's model rows, bench/models_alt_test.go
#   (TestModelsAlternating: MLP training step, GPT forward and training step,
#   CNN forward and training step, GPT-2-small-shaped generation with a
#   kv-cache against the memory floor; eager, compiled with the Eager backend
#   and with the cpu backend, alternated call by call; allocations and minor
#   page faults per call) with GOMAXPROCS 1 and 2, then the same models in
#   PyTorch on one thread, eager and with TorchScript's legacy fuser
#   (bench/peers/models_torch.py). Its lines print as they come (not in the
#   tables below); not in the default PARTS (minutes). MODELS_REPS (default
#   5) rounds, MODELS=mlp,gpt,cnn,gen picks models.
#
# Peers run under Debian's /usr/bin/python3 with python3-torch and
# python3-numpy.
#
#   bash bench/compare.sh                     # every part
#   PARTS=gemm bash bench/compare.sh          # only GEMM and convolution
#   PARTS=elementwise bash bench/compare.sh   # only the elementwise tables
#   PARTS=ops bash bench/compare.sh           # only the op survey
#   PARTS=models bash bench/compare.sh        # only the model rows of issue 24
#
# Settings (defaults): BENCHTIME=10x COUNT=3 CPUS=1,2 for the elementwise
# benchmarks; GEMM_BENCHTIME (BENCHTIME if set, else 0.3s) and COUNT for the
# GEMM ones, which set GOMAXPROCS 1 and 2 themselves; PEER_MIN_TIME=0.5
# seconds per peer case; GOPEERS=1 adds the Go peers.
#
# Each GOMAXPROCS value of CPUS gets its own `go test` run: with b.Loop, a
# sub-benchmark's first measurement runs before go test applies -cpu, so
# under -cpu 1,2 the first "-cpu 1" result of each case would have run with
# the GOMAXPROCS the previous case left (2).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=/usr/bin/python3
if ! "$PY" -c 'import numpy, torch' 2>/dev/null; then
  echo "compare.sh needs Debian's python3-torch and python3-numpy (apt-get install python3-torch python3-numpy)" >&2
  exit 1
fi
PARTS=${PARTS:-elementwise,gemm,ops}
part() { [[ ",$PARTS," == *",$1,"* ]]; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
touch "$out/go.txt" "$out/peers.txt"
echo "# $(date -u +%Y-%m-%d) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $(go version | cut -d' ' -f3)"
asmpath=$(go run ./bench/peers/asmpath 2>/dev/null || echo unknown)
echo "# goaten asm path: $asmpath"
if part elementwise; then
  IFS=, read -ra cpus <<<"${CPUS:-1,2}"
  for c in "${cpus[@]}"; do
    go test -run XXX -bench 'Elementwise' -benchtime "${BENCHTIME:-10x}" -count "${COUNT:-3}" -cpu "$c" ./bench/ >>"$out/go.txt"
  done
  "$PY" bench/peers/elementwise_peers.py >"$out/peers.txt"
fi
if part gemm; then
  go test -run XXX -bench 'Benchmark(Gemm|Conv2d)$' -benchtime "${GEMM_BENCHTIME:-${BENCHTIME:-0.3s}}" \
    -count "${COUNT:-3}" -cpu 1 ./bench/ >>"$out/go.txt"
  if [[ "$asmpath" == avx512* ]]; then
    # The AVX2 kernels too: the path of an AVX2-only CPU (the issue's Zen 3).
    GOATEN_NOAVX512=1 go test -run XXX -bench 'Benchmark(Gemm|Conv2d)$/(goaten|kernel)/' \
      -benchtime "${GEMM_BENCHTIME:-${BENCHTIME:-0.3s}}" -count "${COUNT:-3}" -cpu 1 ./bench/ |
      sed 's#/goaten/#/goaten-avx2/#; s#/kernel/#/kernel-avx2/#' >>"$out/go.txt"
  fi
  if [[ "${GOPEERS:-0}" == 1 ]]; then
    (cd bench/peers/gopeers && GOFLAGS=-mod=mod go test -run XXX -bench . \
      -benchtime "${GEMM_BENCHTIME:-${BENCHTIME:-0.3s}}" -count "${COUNT:-3}" -cpu 1 .) >>"$out/go.txt"
  fi
  "$PY" bench/peers/gemm_peers.py --min-time "${PEER_MIN_TIME:-0.5}" >>"$out/peers.txt"
  grep '^# threads 1: ' "$out/peers.txt" | head -2 | sed 's/^# threads 1: /# peers: /' || true
fi
if part ops; then
  IFS=, read -ra cpus <<<"${CPUS:-1,2}"
  for c in "${cpus[@]}"; do
    go test -run XXX -bench 'BenchmarkOps$' -benchtime "${BENCHTIME:-10x}" -count "${COUNT:-3}" -cpu "$c" ./bench/ >>"$out/go.txt"
  done
  "$PY" bench/peers/ops_peers.py >>"$out/peers.txt"
fi
if part models; then
  IFS=, read -ra cpus <<<"${CPUS:-1,2}"
  for c in "${cpus[@]}"; do
    MODELS_REPS="${MODELS_REPS:-5}" go test -count=1 -run 'TestModelsAlternating$' -cpu "$c" -v ./bench/ |
      grep -E '^(model|#)'
  done
  REPS="${MODELS_REPS:-5}" "$PY" bench/peers/models_torch.py
fi
"$PY" bench/peers/compare_table.py "$out/go.txt" "$out/peers.txt"

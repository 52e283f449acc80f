"""Prints the tables of bench/compare.sh from `go test -bench` style files.

    compare_table.py GO_OUTPUT PEER_OUTPUT...

Two tables: ops through the public API, each allocating its result
(goaten, PyTorch, numpy, gonum/floats), and the kernels alone on
preallocated results (goaten's package asm, torch's out=, numpy's out=,
gonum/floats with a destination). Throughput in Gelem/s from the best
ns/op; ratios goaten/peer of throughput (above 1: goaten is faster), for
goaten on one core; the targets of issue 4 are checked against PyTorch.
"""
import re
import sys

LINE = re.compile(r"^Benchmark(\w+)/([\w.-]+)/(\w+)/([\w.x]+?)(?:-(\d+))?\s+\d+\s+([\d.]+) ns/op")
SIZES = {"16M": 1 << 24, "4096x1024": 4096 * 1024}
# goaten/PyTorch throughput targets on one core (issue 4).
TARGETS = {"add": 1.1, "tanh": 3.0, "softmax": 1.2, "layer_norm": 1.2}
UNARY = {"exp", "log", "tanh", "sigmoid", "silu", "gelu", "gelu_tanh", "erf", "relu", "abs", "neg",
         "sqrt", "rsqrt", "reciprocal", "sin", "cos"}


def table(best, ours, peers, title):
    ops = []
    for (impl, op, size, _) in best:
        if impl == ours and (op, size) not in ops:
            ops.append((op, size))
    procs2 = sorted({k[3] for k in best if k[0] == ours and k[3] > 1})

    def gel(impl, op, size, procs=1):
        ns = best.get((impl, op, size, procs))
        return None if ns is None else SIZES[size] / ns

    def fmt(v, spec="{:.2f}"):
        return "—" if v is None else spec.format(v)

    print(f"**{title}**")
    print()
    head = ["op", "size", ours] + [f"{ours} (GOMAXPROCS {p})" for p in procs2] + [name for _, name in peers] + \
        [f"goaten/{name}" for _, name in peers] + ["target (one core)"]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join(["---"] * 2 + ["---:"] * (len(head) - 3) + ["---"]) + "|")
    for op, size in ops:
        g = gel(ours, op, size)
        row = [op, size, fmt(g)] + [fmt(gel(ours, op, size, p)) for p in procs2]
        ps = [gel(impl, op, size) for impl, _ in peers]
        row += [fmt(p) for p in ps]
        row += [fmt(g / p if g and p else None, "{:.2f}×") for p in ps]
        t = ps[0]
        goal = TARGETS.get(op, 1.0 if op in UNARY else None)
        if goal is None or not (g and t):
            row.append("")
        else:
            row.append(f"≥ {goal:g}×: " + ("met" if g / t >= goal else "**not met**"))
        print("| " + " | ".join(row) + " |")
    print()


def main(paths):
    best = {}  # (impl, op, size, procs) -> ns
    for p in paths:
        for line in open(p):
            m = LINE.match(line.strip())
            if not m:
                continue
            _, impl, op, size, procs, ns = m.groups()
            key = (impl, op, size, int(procs or 1))
            best[key] = min(best.get(key, float("inf")), float(ns))
    table(best, "goaten", [("torch", "PyTorch"), ("numpy", "numpy"), ("gonum", "gonum (f64)")],
          "Ops through the API, each allocating its result (Gelem/s)")
    table(best, "kernel", [("torch-out", "PyTorch out="), ("numpy-out", "numpy out="), ("gonum-out", "gonum (f64)")],
          "Kernels alone, preallocated result: goaten's package asm (Gelem/s)")
    print("gonum/floats works on float64 (twice the bytes per element).")


if __name__ == "__main__":
    main(sys.argv[1:])

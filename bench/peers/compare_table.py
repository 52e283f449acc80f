"""Prints the tables of bench/compare.sh from `go test -bench` style files.

    compare_table.py FILE...

Reads every benchmark line of the files (goaten's `go test -bench` output and
the peers' lines, bench/peers/*_peers.py) and prints the tables it has data for.

Elementwise (bench/elementwise_test.go, bench/peers/elementwise_peers.py), two
tables: ops through the public API, each allocating its result (goaten,
PyTorch, numpy, gonum/floats), and the kernels alone on preallocated results
(goaten's package asm, torch's out=, numpy's out=, gonum/floats with a
destination). Throughput in Gelem/s from the best ns/op; ratios goaten/peer of
throughput (above 1: goaten is faster), for goaten on one core; the targets of
issue 4 are checked against PyTorch.

GEMM and convolution (bench/gemm_test.go, bench/peers/gemm_peers.py): square
sgemm/dgemm C = A·B through mm and the 3×3 conv2d of [8,64,56,56], goaten on
one and two cores, PyTorch and numpy (OpenBLAS) on one and two threads,
gonum (and other Go peers, bench/peers/gopeers) on one core; GFLOP/s from the
best ns/op; ratios goaten/peer on one core (and goaten/numpy on two), goaten's
two-core scaling t1/t2, and the targets of issue 4: sgemm N ≥ 512 at least
0.95× OpenBLAS (numpy) and scaling at least 1.85× on two cores, dgemm N ≥ 512
at least 0.9× OpenBLAS.

The core or thread count of a line is its /procs=P element (goaten's GEMM
benchmarks set GOMAXPROCS themselves), else its -P suffix (go test's -cpu,
the peers' thread count), else 1.
"""
import re
import sys

LINE = re.compile(r"^Benchmark(\w+)/([\w.-]+)/(\w+)/([\w.x]+?)(?:/procs=(\d+))?(?:-(\d+))?\s+\d+\s+([\d.]+) ns/op")
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


# GEMM and convolution: flops of one op, the targets of issue 4.
GEMM_OPS = ["sgemm", "dgemm", "conv2d"]
CONV_FLOPS = {"8x64x56x56": 2 * 8 * 64 * 56 * 56 * 64 * 3 * 3}
GEMM_TARGETS = {"sgemm": 0.95, "dgemm": 0.9}  # goaten/OpenBLAS (numpy) on one core, N >= 512
SCALING_TARGET = {"sgemm": 1.85}  # goaten t1/t2, N >= 512
TARGET_MIN_N = 512
# Go peers beyond gonum, from bench/peers/gopeers (GOPEERS=1), in this order if present.
GO_PEERS = [("gomlx", "GoMLX SimpleGo")]


def gemm_flops(op, size):
    if op == "conv2d":
        return CONV_FLOPS.get(size)
    return 2 * int(size) ** 3 if size.isdigit() else None


def gemm_goals(op, size, one, two, openblas):
    """The issue's targets for one row: one and two are goaten's GFLOP/s on
    one and two cores, openblas numpy's on one thread."""
    goals = []
    big = size.isdigit() and int(size) >= TARGET_MIN_N
    if big and op in GEMM_TARGETS and one and openblas:
        goal = GEMM_TARGETS[op]
        goals.append(f"≥ {goal:g}× OpenBLAS: " + ("met" if one / openblas >= goal else "**not met**"))
    if big and op in SCALING_TARGET and one and two:
        goal = SCALING_TARGET[op]
        goals.append(f"2 cores ≥ {goal:g}×: " + ("met" if two / one >= goal else "**not met**"))
    return "; ".join(goals)


def gemm_table(best):
    rows = sorted({(op, size) for (impl, op, size, _) in best if impl == "goaten"},
                  key=lambda r: (GEMM_OPS.index(r[0]) if r[0] in GEMM_OPS else len(GEMM_OPS), r[0],
                                 int(r[1]) if r[1].isdigit() else 0, r[1]))
    if not rows:
        return
    go_peers = [(impl, name) for impl, name in GO_PEERS if any(k[0] == impl for k in best)]
    peers1 = [("torch", "PyTorch"), ("numpy", "OpenBLAS"), ("gonum", "gonum")] + go_peers

    def gf(impl, op, size, procs=1):
        ns = best.get((impl, op, size, procs))
        fl = gemm_flops(op, size)
        return None if ns is None or fl is None else fl / ns

    def fmt(v, spec="{:.1f}"):
        return "—" if v is None else spec.format(v)

    def ratio(a, b):
        return fmt(a / b if a and b else None, "{:.2f}×")

    print("**GEMM and convolution, float32 (sgemm, conv2d) and float64 (dgemm) (GFLOP/s)**")
    print()
    head = ["op", "size", "goaten", "goaten (2 cores)", "PyTorch", "PyTorch (2 threads)",
            "numpy/OpenBLAS", "numpy/OpenBLAS (2 threads)", "gonum"] + [name for _, name in go_peers] + \
        [f"goaten/{name}" for _, name in peers1] + ["goaten/OpenBLAS (2 cores)", "goaten 2-core scaling (t1/t2)",
                                                   "target"]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join(["---"] * 2 + ["---:"] * (len(head) - 3) + ["---"]) + "|")
    for op, size in rows:
        g1, g2 = gf("goaten", op, size), gf("goaten", op, size, 2)
        t1, t2 = gf("torch", op, size), gf("torch", op, size, 2)
        n1, n2 = gf("numpy", op, size), gf("numpy", op, size, 2)
        ps = [gf(impl, op, size) for impl, _ in peers1]
        row = [op, size, fmt(g1), fmt(g2), fmt(t1), fmt(t2), fmt(n1), fmt(n2)] + [fmt(p) for p in ps[2:]]
        row += [ratio(g1, p) for p in ps] + [ratio(g2, n2), ratio(g2, g1)]
        row.append(gemm_goals(op, size, g1, g2, n1))
        print("| " + " | ".join(row) + " |")
    print()
    avx2_table(best, rows, gf, fmt, ratio)
    kernel_table(best, rows, gf, fmt, ratio)
    print("goaten and PyTorch allocate each result (mm, conv2d); numpy's a @ b too; gonum writes a "
          "preallocated C, on one core up to N = 1024 (GoMLX's SimpleGo backend likewise, "
          "GOPEERS=1). Debian's PyTorch calls the same OpenBLAS as numpy for mm, and oneDNN for conv2d.")


def avx2_table(best, rows, gf, fmt, ratio):
    """On an AVX-512 machine compare.sh also runs goaten with GOATEN_NOAVX512=1
    (lines renamed goaten-avx2): the AVX2+FMA kernels a Zen 3 runs, against the
    same OpenBLAS, which runs its Haswell (AVX2) kernels here too."""
    rows = [r for r in rows if any(k[0] == "goaten-avx2" and k[1:3] == r for k in best)]
    if not rows:
        return
    print("**The same with goaten's AVX2 kernels (GOATEN_NOAVX512=1), the path of an AVX2-only CPU such as the "
          "issue's Zen 3 (GFLOP/s)**")
    print()
    head = ["op", "size", "goaten AVX2", "goaten AVX2 (2 cores)", "numpy/OpenBLAS", "numpy/OpenBLAS (2 threads)",
            "goaten AVX2/OpenBLAS", "goaten AVX2/OpenBLAS (2 cores)", "2-core scaling (t1/t2)", "target"]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join(["---"] * 2 + ["---:"] * (len(head) - 3) + ["---"]) + "|")
    for op, size in rows:
        a1, a2 = gf("goaten-avx2", op, size), gf("goaten-avx2", op, size, 2)
        n1, n2 = gf("numpy", op, size), gf("numpy", op, size, 2)
        row = [op, size, fmt(a1), fmt(a2), fmt(n1), fmt(n2), ratio(a1, n1), ratio(a2, n2), ratio(a2, a1),
               gemm_goals(op, size, a1, a2, n1)]
        print("| " + " | ".join(row) + " |")
    print()


def kernel_table(best, rows, gf, fmt, ratio):
    """The GEMM alone: package asm's Sgemm/Dgemm into a preallocated C
    (kernel/..., and kernel-avx2/... with GOATEN_NOAVX512=1), without the
    result's allocation and zeroing, the dispatcher, or the garbage collector
    that a fresh 4-16 MiB result per call keeps busy on the second core."""
    impls = [(i, name) for i, name in [("kernel", "default path"), ("kernel-avx2", "AVX2")]
             if any(k[0] == i for k in best)]
    rows = [r for r in rows if r[0] in GEMM_TARGETS]
    if not impls or not rows:
        return
    print("**The GEMM kernels alone: package asm's Sgemm/Dgemm into a preallocated C (GFLOP/s)**")
    print()
    head = ["op", "size"]
    for _, name in impls:
        head += [f"{name}", f"{name} (2 cores)", f"{name}/OpenBLAS", f"{name} 2-core scaling (t1/t2)"]
    head.append("target (2 cores ≥ 1.85×, N ≥ 512)")
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join(["---"] * 2 + ["---:"] * (len(head) - 3) + ["---"]) + "|")
    for op, size in rows:
        row, goals = [op, size], []
        n1 = gf("numpy", op, size)
        for impl, name in impls:
            k1, k2 = gf(impl, op, size), gf(impl, op, size, 2)
            row += [fmt(k1), fmt(k2), ratio(k1, n1), ratio(k2, k1)]
            big = size.isdigit() and int(size) >= TARGET_MIN_N
            if big and op in SCALING_TARGET and k1 and k2:
                goal = SCALING_TARGET[op]
                goals.append(f"{name}: " + ("met" if k2 / k1 >= goal else "**not met**"))
        row.append("; ".join(goals))
        print("| " + " | ".join(row) + " |")
    print()


def main(paths):
    elem = {}  # (impl, op, size, procs) -> ns, bench/elementwise_test.go
    gemm = {}  # the same, bench/gemm_test.go
    ops = {}  # the same, bench/ops_test.go
    for p in paths:
        for line in open(p):
            m = LINE.match(line.strip())
            if not m:
                continue
            bench, impl, op, size, procs, suffix, ns = m.groups()
            if bench.startswith("Elementwise"):
                best = elem
            elif bench in ("Gemm", "Conv2d"):
                best = gemm
            elif bench == "Ops":
                best = ops
            else:
                continue
            key = (impl, op, size, int(procs or suffix or 1))
            best[key] = min(best.get(key, float("inf")), float(ns))
    if elem:
        table(elem, "goaten", [("torch", "PyTorch"), ("numpy", "numpy"), ("gonum", "gonum (f64)")],
              "Ops through the API, each allocating its result (Gelem/s)")
        table(elem, "kernel", [("torch-out", "PyTorch out="), ("numpy-out", "numpy out="), ("gonum-out", "gonum (f64)")],
              "Kernels alone, preallocated result: goaten's package asm (Gelem/s)")
        print("gonum/floats works on float64 (twice the bytes per element).")
        print()
    gemm_table(gemm)
    ops_table(ops)


def ops_table(best):
    """The op survey: time per call (ms) of goaten on one core (and on two
    when run) and of PyTorch on one thread, and the speed ratio (above 1:
    goaten is faster). No targets: issue 4 names none for these ops."""
    rows = [(op, size) for (impl, op, size, procs) in best if impl == "goaten" and procs == 1]
    if not rows:
        return
    print("**Op survey (bench/ops_test.go, bench/peers/ops_cases.json): ms per call**")
    print()
    print("| op | size | goaten | goaten (GOMAXPROCS 2) | PyTorch | goaten/PyTorch (speed) |")
    print("|---|---|---:|---:|---:|---:|")

    def ms(impl, op, size, procs=1):
        ns = best.get((impl, op, size, procs))
        return None if ns is None else ns / 1e6

    for op, size in rows:
        g1, g2, t = ms("goaten", op, size), ms("goaten", op, size, 2), ms("torch", op, size)
        cells = ["—" if v is None else f"{v:.3f}" for v in (g1, g2, t)]
        ratio = f"{t / g1:.2f}×" if g1 and t else "—"
        print(f"| {op} | {size} | " + " | ".join(cells) + f" | {ratio} |")
    print()


if __name__ == "__main__":
    main(sys.argv[1:])

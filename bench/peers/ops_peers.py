"""The op survey of bench/ops_test.go (cases in bench/peers/ops_cases.json)
in PyTorch.

Run with Debian's python3 (apt-get install python3-torch):
    /usr/bin/python3 bench/peers/ops_peers.py
PEER_FILTER (a regular expression, e.g. conv) runs only the cases it matches.
Prints `go test -bench` style lines, BenchmarkOps/torch/<case> N X ns/op,
each case called through torch.ops.aten.<op>.<overload> on one thread and
timed as the Go side is (`go test -benchtime 10x -count 3`): the best mean
of PEER_REPS batches of PEER_BATCH calls (3 and 10). Operands are random,
as the Go side's: float32 normal ("t") or positive ("p") values, int64
indices below "hi" ("i"), bools ("b"), or the transpose of a contiguous
tensor ("tT").

With PEER_PERCALL=1 each case is timed call by call instead, as bench's
TestOpsPerCall times goaten's.
"""
import json
import os
import re
import time

import pinthreads  # noqa: F401,E402  (first: pins the thread pools to THREADS, default 1)
import torch  # noqa: E402

REPS = int(os.environ.get("PEER_REPS", "3"))
BATCH = int(os.environ.get("PEER_BATCH", "10"))
HERE = os.path.dirname(os.path.abspath(__file__))
g = torch.Generator().manual_seed(1)


def arg(a):
    if isinstance(a, dict):
        if "t" in a:
            return torch.randn(a["t"], generator=g)
        if "p" in a:
            return torch.rand(a["p"], generator=g) + 0.1
        if "i" in a:
            return torch.randint(0, a["hi"], a["i"], generator=g)
        if "b" in a:
            return torch.rand(a["b"], generator=g) > 0.5
        if "tT" in a:
            return torch.randn(a["tT"][::-1], generator=g).t()
    if isinstance(a, list) and a and isinstance(a[0], dict):
        return [arg(x) for x in a]
    return a


def percall(name, fn, args):
    """The lines of bench's TestOpsPerCall: 300 single calls (10 for sort)."""
    ds = []
    for _ in range(10 if name.startswith("sort/") else 300):
        t0 = time.perf_counter_ns()
        fn(*args)
        ds.append(time.perf_counter_ns() - t0)
    ds.sort()
    q = [ds[0], ds[len(ds) // 4], ds[len(ds) // 2]]
    print("%-32s min %9.1f p25 %9.1f med %9.1f us" % (name, *(v / 1e3 for v in q)), flush=True)


def main():
    only = re.compile(os.environ.get("PEER_FILTER", ""))  # e.g. PEER_FILTER=conv
    for c in json.load(open(os.path.join(HERE, "ops_cases.json"))):
        if not only.search(c["name"]):
            continue
        name, ov = c["op"].split("::")[1].split(".")
        fn = getattr(getattr(torch.ops.aten, name), ov)
        args = [arg(a) for a in c["args"]]
        fn(*args)  # warm up
        if os.environ.get("PEER_PERCALL") == "1":
            percall(c["name"], fn, args)
            continue
        best = float("inf")
        for _ in range(REPS):
            t0 = time.perf_counter_ns()
            for _ in range(BATCH):
                fn(*args)
            best = min(best, (time.perf_counter_ns() - t0) / BATCH)
        print(f"BenchmarkOps/torch/{c['name']}\t{BATCH}\t{best:.0f} ns/op", flush=True)


if __name__ == "__main__":
    main()

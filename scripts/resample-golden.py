#!/usr/bin/env python3
# Resampled golden records: the public records' generator, re-run on this
# machine's torch 1.13 (Debian's python3-torch) with another seed, so the
# conformance tests can replay thousands of other samples of the same ops.
# A developer tool, not run by CI; scripts/resample-golden.sh runs every mode
# and then the conformance tests against the result.
#
#   python3 scripts/resample-golden.py MODE SEED OUTDIR [SRC|OPFILTER]
#
# MODE:
#   forward       OpInfo samples of every dtype run under a TorchDispatchMode;
#                 each ATen call of the golden schema list is a record
#                 (core.jsonl / noncore.jsonl), flags ties/duplicate_indices
#   direct        the same samples called directly on the golden overloads
#                 (composite ops such as matmul or layer_norm; flag direct)
#   backward      the backward calls of the float samples (flag backward_pass)
#   errors        OpInfo error_inputs: the innermost ATen call that raised
#   dtype-errors  samples in dtypes the OpInfo marks unsupported that raise
#   grad SRC      gradient records (order 1) of the forward records in SRC
#   grad2 SRC     order-2 records for the overloads the public set has them for
#   extras SRC    the public generator's "extras:" records of SRC re-run in
#                 the other dtypes of their overload's grid
#   mutate SRC    the records in SRC with one argument changed (dtype, layout,
#                 rank, empty dim, NaN/Inf, an int or list off by one): a
#                 forward record where torch accepts it, an error record where
#                 it raises
#
# Every record is rebuilt from its JSON text and recomputed (or re-raised)
# before it is written, as the public generator's self-check does.
#
# What its output still shows against goaten, and why it is left:
# - bfloat16 results of gelu, matmul/bmm/baddbmm/linear, layer/group/batch
#   norm statistics: Debian builds 1.13 with other flags than the pip wheel
#   the public records come from (goaten follows the public records, which
#   pass);
# - conv_transpose3d backward float32: 1.13's value is 1.6e-5 off the exact
#   one, goaten's 2e-6, just past the 1e-5 tolerance;
# - dtype-error records of bfloat16 conv_transpose: this machine's 1.13
#   takes oneDNN's bfloat16 path, which checks the weight as a forward
#   convolution's and raises (the public set has no bfloat16 conv_transpose);
# - relaid replays of fmod/remainder/floor division by a divisor whose
#   quotient overflows (1.13 gives NaN in its vectorized loop only) and of
#   float16/bfloat16 sums (1.13 rounds once per row of its loop): the
#   layout decides;
# - mutated records: 1.13 accepting what it should reject or reading
#   undefined memory (reflection_pad with short padding lists, masked_fill and
#   masked_scatter with a float mask read byte by byte, 2-d or bool
#   embedding_bag offsets, index_select of a 0-d tensor by an empty index,
#   negative output sizes, batch_norm running statistics of another length,
#   grid_sampler with an unknown mode, _reshape_alias to negative strides),
#   and Welford means (var_mean, layer_norm statistics) that turn an infinity
#   into NaN.
# torch.testing._internal imports expecttest, which Debian does not
# package; the shell wrapper stubs it.
import collections
import hashlib
import json
import math
import os
import random
import sys
import zlib

import numpy as np
import torch
from torch.utils._python_dispatch import TorchDispatchMode

MODE, SEED, OUT = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ARG = sys.argv[4] if len(sys.argv) > 4 else None
CAP = int(os.environ.get("CAP", "300"))  # records per overload and file
HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMAS = json.load(open(os.environ.get("SCHEMAS", os.path.join(HERE, "..", "..", "shared", "golden", "schemas.json"))))
DT = {torch.float32: "float32", torch.float64: "float64", torch.int64: "int64", torch.int32: "int32",
      torch.bool: "bool", torch.float16: "float16", torch.bfloat16: "bfloat16"}
RDT = {v: k for k, v in DT.items()}
DTYPES = list(DT)
NONDET = ("rand", "empty", "dropout", "bernoulli", "normal", "uniform", "exponential", "multinomial", "resize", "new_empty")
TIES = ("argmax", "argmin", "max", "min", "sort", "topk", "kthvalue", "median", "mode", "max_pool")
DUPS = ("index_put", "scatter", "index_copy", "index_add", "_index_put_impl", "index_reduce")
# The overloads the public set has order-2 gradient records for.
ORDER2 = {"aten::mul.Tensor", "aten::div.Tensor", "aten::exp.default", "aten::tanh.default", "aten::sigmoid.default",
          "aten::_log_softmax.default", "aten::log_softmax.int", "aten::_softmax.default", "aten::softmax.int",
          "aten::mm.default", "aten::addmm.default", "aten::pow.Tensor_Scalar", "aten::pow.Tensor_Tensor",
          "aten::sin.default", "aten::gelu.default", "aten::layer_norm.default", "aten::native_layer_norm.default",
          "aten::convolution.default", "aten::relu.default", "aten::sum.default", "aten::sum.dim_IntList",
          "aten::mean.default", "aten::mean.dim", "aten::var.correction", "aten::var.dim", "aten::var.default",
          "aten::logsumexp.default"}

random.seed(SEED)
torch.manual_seed(SEED)


class Unsupported(Exception):
    pass


# ---- encoding and decoding (../shared/golden/FORMAT.md) ----

def num(v, dt):
    if dt in (torch.int64, torch.int32):
        return int(v)
    if dt == torch.bool:
        return bool(v)
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if dt == torch.float32:
        return float(str(np.float32(v)))  # shortest decimal that round-trips
    return v


def enc(v, storage=False):
    if isinstance(v, torch.Tensor):
        if v.dtype not in DT or v.layout != torch.strided:
            raise Unsupported(str(v.dtype))
        d = {"dtype": DT[v.dtype], "shape": list(v.shape), "strides": list(v.stride()), "offset": v.storage_offset()}
        d["data"] = [num(x, v.dtype) for x in (v.detach().reshape(-1).tolist() if v.numel() else [])]
        if storage:
            st = torch.empty(0, dtype=v.dtype).set_(v.storage(), 0, (v.storage().size(),), (1,))
            d["storage"] = [num(x, v.dtype) for x in st.tolist()]
        return d
    if isinstance(v, (list, tuple)):
        return [enc(x) for x in v]
    if isinstance(v, torch.dtype):
        if v not in DT:
            raise Unsupported(str(v))
        return {"scalar_type": DT[v]}
    if isinstance(v, torch.memory_format):
        return {"memory_format": str(v).replace("torch.", "")}
    if isinstance(v, torch.layout):
        return {"layout": str(v).replace("torch.", "")}
    if isinstance(v, torch.device):
        return {"device": str(v)}
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return num(v, torch.float64)
    raise Unsupported(type(v).__name__)


def dec(v, ty=""):
    if isinstance(v, dict):
        if "dtype" in v and "shape" in v:
            dt = RDT[v["dtype"]]
            shape, strides, off = v["shape"], v["strides"], v["offset"]
            if "storage" in v:
                st = torch.tensor([float(x) if isinstance(x, str) else x for x in v["storage"]], dtype=dt)
                return st.as_strided(shape, strides, off)
            numel = math.prod(shape)
            size = off + 1 + sum((s - 1) * st for s, st in zip(shape, strides)) if numel else off
            base = torch.zeros(max(size, 0), dtype=dt)
            if numel:
                idx = torch.full(shape, off, dtype=torch.int64)
                for k, (sz, sd) in enumerate(zip(shape, strides)):
                    sh = [1] * len(shape)
                    sh[k] = sz
                    idx = idx + torch.arange(sz).reshape(sh) * sd
                base[idx.reshape(-1)] = torch.tensor([float(x) if isinstance(x, str) else x for x in v["data"]], dtype=dt)
            return base.as_strided(shape, strides, off)
        (k, x), = v.items()
        if k == "scalar_type":
            return RDT[x]
        if k in ("memory_format", "layout"):
            return getattr(torch, x)
        if k == "device":
            return torch.device(x)
    if isinstance(v, list):
        et = ty[:-2] if ty.endswith("[]") else ty.split("[")[0]
        return [dec(x, et) for x in v]
    if isinstance(v, str) and v in ("nan", "inf", "-inf") and not ty.startswith("str"):
        return float(v)
    return v


def decode_call(key, args, kwargs):
    sch = SCHEMAS[key]
    tys = [a["type"] for a in sch.get("arguments", [])]
    kwtys = {a["name"]: a["type"] for a in sch.get("arguments", [])}
    return ([dec(a, tys[i] if i < len(tys) else "") for i, a in enumerate(args)],
            {k: dec(v, kwtys.get(k, "")) for k, v in kwargs.items()})


def same(a, b):
    if isinstance(a, torch.Tensor):
        if not isinstance(b, torch.Tensor) or a.dtype != b.dtype or a.shape != b.shape:
            return False
        if a.numel() == 0:
            return True
        if a.is_floating_point():
            x, y = a.double(), b.double()
            return bool(((x == y) | (x.isnan() & y.isnan())).all() and (torch.signbit(x) == torch.signbit(y)).all())
        return bool((a == b).all())
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


def overload(key):
    name, ov = key.split("::")[1].split(".", 1)
    return getattr(getattr(torch.ops.aten, name), ov)


def tensors_in(v):
    if isinstance(v, torch.Tensor):
        yield v
    elif isinstance(v, (list, tuple)):
        for x in v:
            yield from tensors_in(x)


def has_dups(t):
    if t.numel() < 2:
        return False
    flat = t.reshape(-1).double() if t.is_floating_point() else t.reshape(-1)
    return torch.unique(flat).numel() < t.numel()


def flags_for(name, args):
    flags = []
    ts = list(tensors_in(list(args)))
    if any(name.startswith(s) for s in TIES) and any(has_dups(t) for t in ts):
        flags.append("ties")
    if any(s in name for s in DUPS) and any(has_dups(t) for t in ts if t.dtype == torch.int64):
        flags.append("duplicate_indices")
    return flags


# ---- writing ----

counts = collections.Counter()
seen = set()
files = {}


def write(kind, rec):
    if kind not in files:
        files[kind] = open(os.path.join(OUT, kind + ".jsonl"), "a")
    files[kind].write(json.dumps(rec) + "\n")
    counts[(kind, rec["op"])] += 1


def full_name(op):
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


def forward_record(key, func, args, kwargs, out, before, source, extra_flags=()):
    """Writes a forward record of func(args) = out after the self-check."""
    cat = SCHEMAS[key].get("category")
    name = key.split("::")[1].split(".")[0]
    if cat not in ("core", "noncore") or counts[(cat, key)] >= CAP or any(s in name for s in NONDET):
        return
    try:
        rec = {"op": key, "args": before[0], "kwargs": before[1], "out": enc(out)}
    except Unsupported:
        return
    flags = flags_for(name, list(args) + list(kwargs.values())) + list(extra_flags)
    if flags:
        rec["flags"] = flags
    mutated = {}
    for i, a in enumerate(args):
        if isinstance(a, torch.Tensor):
            e = enc(a)
            if e != before[0][i]:
                mutated[str(i)] = e
    if mutated:
        rec["mutated"] = mutated
    rec["source"] = source
    text = json.dumps(rec)
    h = hashlib.sha1(json.dumps([key, rec["args"], rec["kwargs"]]).encode()).hexdigest()
    if len(text) > 200000 or h in seen:
        return
    try:
        again = json.loads(text)
        a2, k2 = decode_call(key, again["args"], again["kwargs"])
        if not same(out, func(*a2, **k2)):
            return
    except Exception:
        return
    seen.add(h)
    write(cat, rec)


def error_record(key, func, snap, err, source, regex=None):
    """Writes an error record of func(snap) raising err, if it raises again."""
    if snap is None or SCHEMAS.get(key, {}).get("category") not in ("core", "noncore") or counts[("errors", key)] >= CAP:
        return
    rec = {"op": key, "args": snap[0], "kwargs": snap[1], "error_type": type(err).__name__,
           "error_regex": regex, "error_message": str(err).split("\n")[0][:300], "source": source}
    try:
        again = json.loads(json.dumps(rec))
        a2, k2 = decode_call(key, again["args"], again["kwargs"])
        func(*a2, **k2)
        return  # accepted when rebuilt
    except Exception as e2:
        if type(e2) is not type(err):
            return
    write("errors", rec)


def snapshot(key, args, kwargs):
    try:
        a = enc(list(args), storage=False)
        if key == "aten::as_strided.default" and args:
            a[0] = enc(args[0], storage=True)
        return a, {k: enc(v) for k, v in kwargs.items()}
    except Unsupported:
        return None


class Recorder(TorchDispatchMode):
    """Records the golden-list ATen calls made under it."""

    def __init__(self, source, flags=()):
        super().__init__()
        self.source, self.flags = source, flags

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        key = f"{func._schema.name}.{func._overloadname}"
        before = snapshot(key, args, kwargs) if key in SCHEMAS else None
        out = func(*args, **kwargs)
        if before is not None:
            try:
                forward_record(key, func, args, kwargs, out, before, self.source, self.flags)
            except Unsupported:
                pass
        return out


class Raised(TorchDispatchMode):
    """Remembers the innermost ATen call that raised, with its arguments."""

    def __init__(self):
        super().__init__()
        self.hit = None

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        key = f"{func._schema.name}.{func._overloadname}"
        snap = snapshot(key, args, kwargs)
        try:
            return func(*args, **kwargs)
        except Exception as e:
            if self.hit is None:
                self.hit = (key, func, snap, e)
            raise


# ---- modes over the OpInfo database ----

def op_samples(op, dt, requires_grad=False):
    torch.manual_seed(SEED * 1000003 + zlib.crc32(full_name(op).encode()) % 1000 + DTYPES.index(dt))
    return list(op.sample_inputs("cpu", dt, requires_grad=requires_grad))


def each_op():
    from torch.testing._internal.common_methods_invocations import op_db
    for op in op_db:
        if ARG and ARG not in full_name(op):
            continue
        try:
            sup = op.supported_dtypes("cpu")
        except Exception:
            continue
        yield op, sup


def direct_calls(op, s, source):
    name = (getattr(op, "aten_name", None) or op.name).split(".")[-1]
    for key in [k for k in SCHEMAS if k.split("::")[1].split(".")[0] == name]:
        fn = overload(key)
        args = [s.input] + list(s.args)
        before = snapshot(key, args, s.kwargs)
        if before is None:
            return
        try:
            out = fn(*args, **s.kwargs)
        except Exception:
            continue
        try:
            forward_record(key, fn, args, s.kwargs, out, before, source, ["direct"])
        except Unsupported:
            pass


def run_samples():
    for op, sup in each_op():
        for dt in DTYPES:
            if dt not in sup or (MODE == "backward" and dt not in (torch.float32, torch.float64)):
                continue
            try:
                samples = op_samples(op, dt, requires_grad=(MODE == "backward"))
            except Exception:
                continue
            for i, s in enumerate(samples):
                src = f"{full_name(op)}|{DT[dt]}|s{i}|r{SEED}"
                try:
                    if MODE == "direct":
                        direct_calls(op, s, src)
                    elif MODE == "backward":
                        outs = [t for t in tensors_in(op(s.input, *s.args, **s.kwargs)) if t.requires_grad]
                        if outs:
                            with Recorder(f"{full_name(op)}|{DT[dt]}|grad{i}|r{SEED}", ["backward_pass"]):
                                torch.autograd.backward(outs, [torch.randn_like(t) for t in outs])
                    else:
                        with Recorder(src):
                            op(s.input, *s.args, **s.kwargs)
                except Exception:
                    pass


def run_errors():
    for op, sup in each_op():
        cases = []
        if MODE == "errors" and op.error_inputs_func is not None:
            try:
                cases = [(ei.sample_input, ei.error_type, ei.error_regex, f"{full_name(op)}|err{i}")
                         for i, ei in enumerate(op.error_inputs("cpu"))]
            except Exception:
                cases = []
        if MODE == "dtype-errors":
            for dt in DTYPES:
                if dt in sup:
                    continue
                try:
                    cases += [(s, Exception, None, f"{full_name(op)}|{DT[dt]}|dterr{i}")
                              for i, s in enumerate(op_samples(op, dt)[:4])]
                except Exception:
                    pass
        for s, etype, regex, src in cases:
            m = Raised()
            try:
                with m:
                    op(s.input, *s.args, **s.kwargs)
            except Exception:
                pass
            if m.hit and isinstance(m.hit[3], etype):
                key, func, snap, err = m.hit
                if key in SCHEMAS:
                    error_record(key, func, snap, err, src, regex)


# ---- modes over existing records ----

def each_record(src):
    for line in open(src):
        r = json.loads(line)
        key = r["op"]
        if r.get("nondeterministic") or r.get("mutated") or any(s in key for s in NONDET):
            continue
        try:
            args, kwargs = decode_call(key, r["args"], r["kwargs"])
        except Exception:
            continue
        yield r, key, args, kwargs


def floats(v):
    return isinstance(v, torch.Tensor) and v.is_floating_point()


def widen(v):
    """float64 copy of a float tensor with its strides and offset."""
    if floats(v) and v.dtype != torch.float64:
        st = torch.empty(0, dtype=v.dtype).set_(v.storage(), 0, (v.storage().size(),), (1,)).double()
        return st.as_strided(v.shape, v.stride(), v.storage_offset())
    if isinstance(v, list):
        return [widen(x) for x in v]
    return v


def leaf(v):
    if floats(v):
        return v.detach().requires_grad_(True)
    if isinstance(v, list):
        return [leaf(x) for x in v]
    return v


def per_arg(args, values):
    """values (one per leaf, in order) nested like args, None elsewhere."""
    it = iter(values)

    def f(a):
        if floats(a) and a.requires_grad:
            v = next(it)
            return None if v is None else enc(v.detach())
        if isinstance(a, list):
            return [f(x) for x in a]
        return None
    return [f(a) for a in args]


def like_out(o, byid):
    if isinstance(o, torch.Tensor):
        return enc(byid[id(o)].detach()) if byid.get(id(o)) is not None else None
    if isinstance(o, (list, tuple)):
        return [like_out(x, byid) for x in o]
    return None


def run_grad(src, order):
    for r, key, args, kwargs in each_record(src):
        if order == 2 and key not in ORDER2:
            continue
        if counts[("grad", key)] >= CAP or key.endswith(".out") or any(f in ("ties", "duplicate_indices") for f in r.get("flags", [])):
            continue
        fl = [t for t in tensors_in(args) if t.is_floating_point()]
        if not fl:
            continue
        variants = []
        if all(t.dtype == torch.float32 for t in fl):
            variants.append((args, []))
        promoted = [] if all(t.dtype == torch.float64 for t in fl) else ["promoted_from:" + DT[fl[0].dtype]]
        variants.append(([widen(a) for a in args], promoted))
        fn = overload(key)
        for vargs, pflags in variants:
            try:
                largs = [leaf(a) for a in vargs]
                ins = [t for t in tensors_in(largs) if t.is_floating_point() and t.requires_grad]
                if order == 2 and not all(t.numel() and torch.isfinite(t).all() for t in ins):
                    continue
                with torch.enable_grad():
                    o = fn(*largs, **kwargs)
                outs = [t for t in tensors_in(o) if t.is_floating_point() and t.requires_grad]
                if not outs:
                    continue
                g = torch.Generator().manual_seed(zlib.crc32((key + r["source"]).encode()))
                gos = {id(t): torch.randn(t.shape, generator=g).to(t.dtype) for t in outs}
                rec = {"op": key, "order": order, "args": [enc(a, storage=(key == "aten::as_strided.default" and j == 0)) for j, a in enumerate(vargs)],
                       "kwargs": r["kwargs"], "requires_grad": [[floats(x) for x in a] if isinstance(a, list) else floats(a) for a in largs],
                       "out": enc(o), "grad_out": like_out(o, gos)}
                if order == 1:
                    grads = torch.autograd.grad(outs, ins, [gos[id(t)] for t in outs], allow_unused=True)
                    rec["grads"] = per_arg(largs, grads)
                else:
                    golist = [gos[id(t)].requires_grad_(True) for t in outs]
                    with torch.enable_grad():
                        grads = torch.autograd.grad(outs, ins, golist, allow_unused=True, create_graph=True)
                        vs = [None if x is None else torch.randn(x.shape, generator=g).to(x.dtype) for x in grads]
                        pairs = [(x, v) for x, v in zip(grads, vs) if x is not None and x.requires_grad]
                        if not pairs:
                            continue
                        g2 = torch.autograd.grad([p[0] for p in pairs], ins + golist, [p[1] for p in pairs], allow_unused=True)
                    rec["grads"] = per_arg(largs, grads)
                    rec["v"] = per_arg(largs, vs)
                    rec["grads2"] = per_arg(largs, g2[:len(ins)])
                    rec["grads2_grad_out"] = like_out(o, {id(t): x for t, x in zip(outs, g2[len(ins):])})
                rec["flags"] = r.get("flags", []) + pflags
                rec["source"] = r["source"] + ("|grad" if order == 1 else "|grad2")
            except Exception:
                continue
            if len(json.dumps(rec)) <= 400000:
                write("grad", rec)


def mutate_tensor(t):
    k, r = random.randrange(8), t.dim()
    if k == 0:
        return t.to(random.choice(DTYPES))
    if k == 1 and r >= 2:
        return t.transpose(-1, -2)
    if k == 2:
        return t.unsqueeze(random.randrange(r + 1))
    if k == 3 and r >= 1:
        return t.narrow(random.randrange(r), 0, 0)
    if k == 4 and r >= 1 and t.numel():
        return t.select(random.randrange(r), 0)
    if k == 5 and t.numel() and t.is_floating_point():
        c = t.clone()
        c.view(-1)[random.randrange(c.numel())] = random.choice([math.nan, math.inf, -math.inf, 0.0, -0.0, 1e30])
        return c
    if k == 6 and r >= 1:
        return t.flatten()
    if k == 7 and t.numel() and not t.is_floating_point() and t.dtype != torch.bool:
        c = t.clone()
        c.view(-1)[random.randrange(c.numel())] = random.choice([-1, -100, 5, 0])
        return c
    return t


def mutate_value(v):
    if isinstance(v, torch.Tensor):
        return mutate_tensor(v)
    if isinstance(v, bool):
        return not v
    if isinstance(v, int):
        return random.choice([v + 1, v - 1, -v, 0, -1, 100])
    if isinstance(v, float):
        return random.choice([-v, 0.0, math.nan, 2.5, -1.0])
    if isinstance(v, list) and v and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        return random.choice([v[:-1], v + [v[-1]], [x + 1 for x in v], [-x - 1 for x in v]])
    if isinstance(v, list) and v and all(isinstance(x, torch.Tensor) for x in v):
        w = list(v)
        i = random.randrange(len(w))
        w[i] = mutate_tensor(w[i])
        return w
    return v


def run_mutate(src):
    per_op = collections.Counter()
    for r, key, args, kwargs in each_record(src):
        if not args or per_op[key] >= 40:
            continue
        j = random.randrange(len(args))
        tys = [a["type"] for a in SCHEMAS[key].get("arguments", [])]
        if j < len(tys) and tys[j].startswith("str"):
            continue
        try:
            args[j] = mutate_value(args[j])
            fn = overload(key)
        except Exception:  # also the synthesized overloads 1.13 lacks
            continue
        snap = snapshot(key, args, kwargs)
        if snap is None:
            continue
        source = r["source"] + f"|mut{SEED}"
        per_op[key] += 1
        # 1.13 crashes on some bad inputs (native_layer_norm_backward with
        # statistics of another shape, ...): each call runs in a child.
        if os.fork() == 0:
            try:
                try:
                    out = fn(*args, **kwargs)
                except Exception as e:
                    error_record(key, fn, snap, e, source)
                else:
                    forward_record(key, fn, args, kwargs, out, snap, source)
                for f in files.values():
                    f.close()
            finally:
                os._exit(0)
        os.wait()


def retype(t, dt):
    """t converted to dt with its strides and storage offset."""
    st = torch.empty(0, dtype=t.dtype).set_(t.storage(), 0, (t.storage().size(),), (1,)).to(dt)
    return st.as_strided(t.shape, t.stride(), t.storage_offset())


def run_extras(src):
    """The public generator's "extras" records (source extras:OP|DTYPE|...)
    are points of a grid of dtypes, shapes, layouts and parameters per
    overload; each is re-run in the other dtypes its overload's grid has,
    converting the arguments of the record's dtype (not index, offset or
    target arguments)."""
    recs, dts = [], collections.defaultdict(set)
    for r, key, args, kwargs in each_record(src):
        f = r.get("source", "").split("|")
        if f[0].startswith("extras:") and len(f) > 1 and f[1] in RDT:
            recs.append((r, key, args, kwargs, f))
            dts[key].add(f[1])
    for r, key, args, kwargs, f in recs:
        try:
            fn = overload(key)
        except AttributeError:  # synthesized overloads (_native_batch_norm_legit)
            continue
        names = [a["name"] for a in SCHEMAS[key].get("arguments", [])]
        for d in sorted(dts[key] - {f[1]}):
            def conv(i, a):
                skip = i < len(names) and any(w in names[i] for w in ("ind", "offset", "target"))
                if isinstance(a, torch.Tensor) and DT.get(a.dtype) == f[1] and not skip:
                    return retype(a, RDT[d])
                return a
            vargs = [conv(i, a) for i, a in enumerate(args)]
            vkw = {k: conv(names.index(k) if k in names else -1, v) for k, v in kwargs.items()}
            snap = snapshot(key, vargs, vkw)
            if snap is None:
                continue
            source = "|".join([f[0], d] + f[2:]) + f"|xdt{SEED}"
            if os.fork() == 0:
                try:
                    try:
                        out = fn(*vargs, **vkw)
                    except Exception as e:
                        error_record(key, fn, snap, e, source)
                    else:
                        forward_record(key, fn, vargs, vkw, out, snap, source)
                    for fl in files.values():
                        fl.close()
                finally:
                    os._exit(0)
            os.wait()


if MODE in ("forward", "direct", "backward"):
    run_samples()
elif MODE in ("errors", "dtype-errors"):
    run_errors()
elif MODE in ("grad", "grad2"):
    run_grad(ARG, 1 if MODE == "grad" else 2)
elif MODE == "mutate":
    run_mutate(ARG)
elif MODE == "extras":
    run_extras(ARG)
else:
    sys.exit(f"unknown mode {MODE}")
for f in files.values():
    f.close()
if MODE in ("mutate", "extras"):  # the children wrote the records
    n = sum(1 for k in ("core", "noncore", "errors") if os.path.exists(os.path.join(OUT, k + ".jsonl"))
            for _ in open(os.path.join(OUT, k + ".jsonl")))
    print(MODE, n, "records in", OUT, file=sys.stderr)
else:
    print(MODE, sum(counts.values()), "records", file=sys.stderr)

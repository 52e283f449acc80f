#!/usr/bin/env python3
# Writes autograd/testdata/extra_grad.jsonl.gz: PyTorch 1.13 gradients, in the
# gradient record format of ../shared/golden/FORMAT.md, for edge cases the
# public grad.jsonl does not cover (zeros, infinities, NaN, empty and 0-d
# tensors, degenerate reductions, boundaries of piecewise functions, more
# double backward). autograd's TestExtraGradRecords replays them.
# Run with a Python that has torch 1.13: python3 scripts/autograd-extra-golden.py
import gzip, json, math, os, sys

import torch

torch.manual_seed(0)
A = torch.ops.aten
recs = []
nan, inf = float("nan"), float("inf")


def enc_num(v, d):
    if d.is_floating_point:
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return float(v)
    if d == torch.bool:
        return bool(v)
    return int(v)


def enc(x):
    if x is None:
        return None
    if isinstance(x, torch.Tensor):
        t = x.detach()
        if t._is_zerotensor():  # PyTorch's efficient zero tensor has no storage
            t = torch.zeros(t.shape, dtype=t.dtype)
        flat = t.reshape(-1)
        vals = flat.double().tolist() if t.dtype.is_floating_point else flat.tolist()
        return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape), "strides": list(t.stride()),
                "offset": t.storage_offset(), "data": [enc_num(v, t.dtype) for v in vals]}
    if isinstance(x, torch.dtype):
        return {"scalar_type": str(x).replace("torch.", "")}
    if isinstance(x, (list, tuple)):
        return [enc(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return x


def T(*v, shape=None, dtype=torch.float64):
    t = torch.tensor(v, dtype=dtype)
    return t.reshape(shape) if shape is not None else t


def R(*shape, dtype=torch.float64):
    return torch.randn(*shape, dtype=dtype)


def flat(o):
    if isinstance(o, (list, tuple)):
        r = []
        for e in o:
            r += flat(e)
        return r
    return [o]


def nest(o, vals):
    # rebuild the nesting of o from a flat iterator of values
    if isinstance(o, (list, tuple)):
        return [nest(e, vals) for e in o]
    return next(vals)


def grad(name, *args, order=1, **kwargs):
    base, _, overload = name.partition(".")
    op = getattr(getattr(A, base), overload or "default")
    leaves, rg, call = [], [], []
    for a in args:
        if isinstance(a, torch.Tensor) and a.dtype.is_floating_point:
            l = a.detach().requires_grad_()
            leaves.append(l)
            rg.append(True)
            call.append(l)
        elif isinstance(a, (list, tuple)) and a and all(isinstance(e, torch.Tensor) for e in a):
            flags, ls = [], []
            for e in a:
                if e.dtype.is_floating_point:
                    l = e.detach().requires_grad_()
                    leaves.append(l)
                    flags.append(True)
                    ls.append(l)
                else:
                    flags.append(False)
                    ls.append(e)
            rg.append(flags)
            call.append(ls)
        else:
            rg.append(False)
            call.append(a)
    try:
        out = op(*call, **kwargs)
        outs = flat(out)
        ys, gys, gslots = [], [], []
        for y in outs:
            if isinstance(y, torch.Tensor) and y.requires_grad:
                g = torch.randn(y.shape, dtype=torch.float32).to(y.dtype)
                if order == 2:
                    g.requires_grad_()
                ys.append(y)
                gys.append(g)
                gslots.append(g)
            else:
                gslots.append(None)
        if not ys:
            print("skip", name, "no output requires grad", file=sys.stderr)
            return
        gs = torch.autograd.grad(ys, leaves, gys, allow_unused=True, create_graph=order == 2)
    except Exception as e:
        print("skip", name, type(e).__name__, str(e)[:120], file=sys.stderr)
        return
    it = iter(gs)

    def per_arg(vals):
        it = iter(vals)
        r = []
        for f in rg:
            if f is True:
                r.append(next(it))
            elif isinstance(f, list):
                r.append([next(it) if b else None for b in f])
            else:
                r.append(None)
        return r

    r = {"op": "aten::%s.%s" % (base, overload or "default"), "order": order, "args": enc(list(args)),
         "kwargs": {k: enc(v) for k, v in kwargs.items()}, "requires_grad": rg, "out": enc(out),
         "grad_out": enc(nest(out, iter(gslots))) if isinstance(out, (list, tuple)) else enc(gslots[0]),
         "grads": enc(per_arg(gs)), "source": "autograd-extra:%s|%d" % (name, len(recs))}
    if order == 2:
        g1 = [g for g in gs]
        vs = [torch.randn(g.shape, dtype=torch.float32).to(g.dtype) if g is not None else None for g in g1]
        pairs = [(g, v) for g, v in zip(g1, vs) if g is not None and g.requires_grad]
        if pairs:
            try:
                g2 = torch.autograd.grad([p[0] for p in pairs], leaves + gys, [p[1] for p in pairs], allow_unused=True)
            except Exception as e:
                print("skip", name, "order 2:", type(e).__name__, str(e)[:120], file=sys.stderr)
                return
        else:
            g2 = [None] * (len(leaves) + len(gys))
        r["v"] = enc(per_arg(vs))
        r["grads2"] = enc(per_arg(g2[:len(leaves)]))
        it2 = iter(g2[len(leaves):])
        slots2 = [next(it2) if s is not None else None for s in gslots]
        r["grads2_grad_out"] = enc(nest(out, iter(slots2))) if isinstance(out, (list, tuple)) else enc(slots2[0])
    recs.append(r)


# ---- degenerate reductions ----
for corr in [1, 2, 3, 0]:
    grad("var.correction", R(2), None, correction=corr)
    grad("var.correction", R(2, 3), [1], correction=corr)
grad("var.correction", R(3, 1), [1], correction=1, keepdim=True)
grad("var.dim", R(1), [0], True)
grad("var.dim", R(2, 3), [], True)
grad("var.correction", R(2, 3), [], correction=1)
grad("var.correction", T(2.5), None, correction=0)
grad("std.correction", R(1), None, correction=1)
grad("std.correction", T(1.0, 1.0, 1.0), None, correction=1)
grad("prod.default", T(1.0, 0.0, 3.0))
grad("prod.default", T(0.0, 0.0, 3.0))
grad("prod.default", T(2.0))
grad("prod.dim_int", T(1.0, 0.0, 3.0, 4.0, 5.0, 6.0, shape=(2, 3)), 1)
grad("prod.dim_int", T(1.0, 0.0, 3.0, 0.0, 5.0, 6.0, shape=(2, 3)), 0, True)
grad("prod.dim_int", R(3, 0), 1)
grad("amax.default", T(1.0, 3.0, 3.0, 2.0, 2.0, 2.0, shape=(2, 3)), [1])
grad("amin.default", T(1.0, 1.0, nan, 2.0, 2.0, 2.0, shape=(2, 3)), [0, 1])
grad("amax.default", T(4.0), [])
grad("mean.dim", R(2, 0, 3), [1])
grad("sum.dim_IntList", R(0, 3), [0], True)
grad("sum.dim_IntList", R(2, 3), [-1, 0])
grad("cumsum.default", T(3.0), 0)
grad("cumsum.default", R(2, 1), 1)
grad("logsumexp.default", T(-inf, -inf, 1.0, 2.0, shape=(2, 2)), [1])
grad("logsumexp.default", T(inf, 1.0), [0])
grad("norm.ScalarOpt_dim", T(0.0, 0.0, 0.0), 2, [0])
grad("norm.ScalarOpt_dim", T(1.0, -3.0, 3.0), inf, [0])
grad("norm.ScalarOpt_dim", T(0.0, -2.0, 1.0), 1, [0])
grad("norm.ScalarOpt_dim", T(0.0, -2.0, 1.0), 0.5, [0])
grad("norm.ScalarOpt_dim", T(0.0, -2.0, 1.0), 3, [0])
grad("_softmax.default", T(-inf, 0.0, 1.0, -inf, -inf, -inf, shape=(2, 3)), 1, False)
grad("_log_softmax.default", T(-inf, 0.0, 1.0, 2.0, shape=(2, 2)), 1, False)

# ---- pointwise at zeros, infinities and NaN ----
edge = T(0.0, -0.0, 1.0, -1.0, inf, -inf, nan, 0.5, -2.0)  # index 8 is the scalar remainder for float64
for u in ["abs", "sqrt", "rsqrt", "log", "log2", "log10", "log1p", "reciprocal", "exp", "expm1", "sin", "cos", "tan",
          "tanh", "sigmoid", "relu", "sign", "erf", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
          "neg", "ceil", "floor", "round", "trunc", "gelu", "elu", "silu", "mish", "hardswish", "hardsigmoid",
          "softplus", "log_sigmoid"]:
    grad(u + ".default", edge.clone())
grad("gelu.default", edge.clone(), approximate="tanh")
grad("leaky_relu.default", T(0.0, -1.0, 2.0, nan), 0.2)
grad("hardtanh.default", T(-1.0, 1.0, 0.5, -2.0, 2.0), -1.0, 1.0)
grad("threshold.default", T(0.5, 1.0, 1.5, nan), 1.0, 7.0)
grad("clamp.default", T(0.0, 1.0, 2.0, 3.0, nan), 1.0, 2.0)
grad("clamp.default", T(0.0, 1.0, 2.0, 3.0), 2.5, 1.5)
grad("clamp.default", T(0.0, 1.0, 2.0, 3.0), None, 1.0)
grad("clamp.Tensor", T(0.0, 1.0, 2.0, 3.0), T(1.0, 1.0, 3.0, 0.0), T(2.0, 0.5, 2.5, 4.0))
grad("clamp.Tensor", T(0.0, 1.0, 2.0, 3.0), T(1.0, 1.0, 1.0, 1.0), None)
grad("maximum.default", T(1.0, 2.0, nan, 3.0), T(1.0, 3.0, 1.0, nan))
grad("minimum.default", T(1.0, 2.0, nan, 3.0), T(1.0, 3.0, 1.0, nan))
grad("pow.Tensor_Scalar", T(0.0, -1.0, 2.0, -0.5), 0.5)
grad("pow.Tensor_Scalar", T(0.0, -1.0, 2.0), -1)
grad("pow.Tensor_Scalar", T(0.0, -1.0, 2.0), 0)
grad("pow.Tensor_Tensor", T(0.0, 0.0, -1.0, 2.0, 0.0), T(0.0, 2.0, 0.5, -1.0, -1.0))
grad("pow.Scalar", 0.0, T(0.0, 1.0, -1.0))
grad("pow.Scalar", 2.0, T(0.0, 1.0, -1.0))
grad("div.Tensor", T(1.0, 0.0, -1.0), T(0.0, 0.0, 2.0))
grad("div.Tensor_mode", T(1.0, 5.0), T(2.0, 3.0), rounding_mode="floor")
grad("atan2.default", T(0.0, 1.0, 0.0), T(0.0, 0.0, -1.0))
grad("fmod.Tensor", T(5.0, -5.0, 3.0), T(3.0, 3.0, 0.5))
grad("remainder.Tensor", T(5.0, -5.0, 3.0), T(3.0, 3.0, -0.5))
grad("where.self", T(True, False, True, dtype=torch.bool), T(1.0, inf, 3.0), T(nan, 2.0, 0.0))
grad("lerp.Tensor", R(3), R(3), T(0.0, 0.5, 1.5))
grad("xlogy.Tensor", T(0.0, 1.0, 2.0), T(0.0, 0.0, 3.0))

# ---- empty and 0-d ----
for sh in [(0,), (2, 0)]:
    grad("mul.Tensor", R(*sh), R(*sh))
    grad("sum.dim_IntList", R(*sh), None)
    grad("exp.default", R(*sh))
grad("mm.default", R(0, 3), R(3, 2))
grad("mm.default", R(2, 0), R(0, 3))
grad("mul.Tensor", T(2.0), R(3))
grad("index_select.default", T(3.0), 0, torch.tensor([0, 0]))
grad("gather.default", T(3.0), 0, torch.tensor(0))
grad("cat.default", [R(0), R(2, 3), R(1, 3)], 0)
grad("cat.default", [R(2, 0), R(2, 3)], 1)
grad("native_layer_norm.default", R(0, 4), [4], R(4), R(4), 1e-5)

# ---- selection ops ----
grad("max.dim", T(1.0, nan, 3.0, 2.0, shape=(2, 2)), 1)
grad("sort.default", T(3.0, nan, 1.0, -inf))
grad("topk.default", T(3.0, 1.0, 2.0, 5.0), 2, 0, False)
grad("index.Tensor", R(3, 4), [torch.tensor([True, False, True])])
grad("index.Tensor", R(3, 4), [None, torch.tensor([[0, 3], [1, 1]])])
grad("index_put.default", R(3, 4), [torch.tensor([0, 2])], R(4), False)
grad("scatter_reduce.two", R(5), 0, torch.tensor([0, 1, 0, 1]), T(0.0, 2.0, 3.0, 0.0), "prod", include_self=False)
grad("scatter_reduce.two", T(1.0, 2.0, 3.0), 0, torch.tensor([0, 0, 2, 2]), T(1.0, 0.5, 3.0, 3.0), "amax")
grad("scatter_reduce.two", R(3), 0, torch.tensor([0, 0, 2]), R(3), "mean", include_self=False)
grad("masked_scatter.default", R(2, 3), torch.tensor([[True, False, True], [False, False, True]]), R(5))
grad("as_strided.default", R(6), [3, 3], [1, 1], 1)
grad("as_strided.default", R(3, 4).t(), [2, 2], [2, 1], 3)
grad("diagonal.default", R(3, 4, 2), -1, 2, 0)
grad("repeat.default", R(2, 1), [2, 1, 3])
grad("expand.default", R(3, 1), [2, 3, 4])
grad("constant_pad_nd.default", R(2, 3), [1, -1, -1, 2], 5.0)

# ---- nn ops ----
grad("cross_entropy_loss.default", R(3, 4), torch.tensor([0, -100, 3]), None, 1, -100, 0.2)
grad("nll_loss_forward.default", R(2, 3), torch.tensor([-100, -100]), None, 1, -100)
grad("mse_loss.default", T(1.0, 2.0), T(1.0, 0.0), 2)
grad("smooth_l1_loss.default", T(0.0, 1.0, 2.0, 0.5), T(1.0, 1.0, 1.0, 1.0), 1, 1.0)
grad("huber_loss.default", T(0.0, 1.0, 2.0, 0.5), T(1.0, 1.0, 1.0, 1.0), 1, 1.0)
grad("binary_cross_entropy.default", T(0.0, 0.5, 1.0), T(0.0, 1.0, 1.0))
grad("_cdist_forward.default", T(0.0, 0.0, 1.0, 1.0, shape=(2, 2)), T(0.0, 0.0, 1.0, 2.0, shape=(2, 2)), 2.0, None)
grad("_cdist_forward.default", T(0.0, 0.0, 1.0, 1.0, shape=(2, 2)), T(0.0, 0.0, 1.0, 2.0, shape=(2, 2)), 1.5, None)
grad("_cdist_forward.default", T(0.0, 0.0, 1.0, 1.0, shape=(2, 2)), T(0.0, 0.0, 1.0, 2.0, shape=(2, 2)), 0.5, None)
grad("_cdist_forward.default", T(0.0, 0.0, 1.0, 1.0, shape=(2, 2)), T(0.0, 0.0, 1.0, 2.0, shape=(2, 2)), inf, None)
grad("_pdist_forward.default", T(0.0, 0.0, 0.0, 0.0, 1.0, 2.0, shape=(3, 2)), 2.0)
grad("_pdist_forward.default", T(0.0, 0.0, 0.0, 0.0, 1.0, 2.0, shape=(3, 2)), 0.5)
grad("max_pool2d_with_indices.default", T(1.0, -inf, nan, 2.0, shape=(1, 1, 2, 2)), [2, 2])
grad("avg_pool2d.default", R(1, 1, 4, 4), [3, 3], [2, 2], [1, 1], True, False, None)
grad("avg_pool3d.default", R(1, 1, 3, 4, 4), [2, 2, 2], [2, 2, 2], [1, 0, 1], True, True, 3)
grad("upsample_bilinear2d.vec", R(1, 1, 3, 3), [1, 1], True, None)
grad("upsample_bilinear2d.vec", R(1, 2, 3, 3), None, False, [1.7, 0.6])
grad("upsample_nearest2d.vec", R(1, 2, 3, 3), None, [1.7, 0.6])
grid = T(-1.0, -1.0, 1.0, 1.0, 0.0, 0.0, -1.2, 0.3, shape=(1, 2, 2, 2))
for mode in [0, 1, 2]:
    for pad in [0, 1, 2]:
        for align in [False, True]:
            grad("grid_sampler_2d.default", R(1, 2, 3, 4), grid, mode, pad, align)
w = R(3, 2)
grad("_embedding_bag.default", w, torch.tensor([0, 2, 1, 2]), torch.tensor([0, 0, 2]), False, 2, False, None, False, -1)
grad("_embedding_bag.default", w, torch.tensor([0, 2, 1, 2]), torch.tensor([0, 1, 4]), False, 1, False, None, True, 2)
grad("_embedding_bag.default", w, torch.tensor([0, 2, 1, 2]), torch.tensor([0, 2]), True, 0, False, R(4), False, 1)
grad("embedding.default", R(4, 3), torch.tensor([[0, 2], [2, 3]]), 2, True)

# ---- double backward ----
grad("native_group_norm.default", R(2, 4, 3), R(4), R(4), 2, 4, 3, 2, 1e-5, order=2)
grad("native_batch_norm.default", R(4, 3, 2), R(3), R(3), None, None, True, 0.1, 1e-5, order=2)
grad("native_layer_norm.default", R(2, 3, 4), [3, 4], R(3, 4), None, 1e-5, order=2)
grad("convolution.default", R(2, 4, 5), R(6, 2, 3), R(6), [2], [1], [1], False, [0], 2, order=2)
grad("convolution.default", R(1, 2, 4, 3), R(2, 3, 2, 2), None, [2, 1], [0, 1], [1, 1], True, [1, 0], 1, order=2)
grad("avg_pool2d.default", R(1, 2, 4, 4), [2, 2], [2, 1], [1, 0], False, True, None, order=2)
grad("max_pool2d_with_indices.default", R(1, 1, 4, 4), [2, 2], [1, 1], order=2)
grad("_adaptive_avg_pool2d.default", R(1, 2, 5, 4), [2, 3], order=2)
grad("bmm.default", R(2, 3, 4), R(2, 4, 2), order=2)
grad("div.Tensor", R(3), R(3).abs() + 0.5, order=2)
grad("atan2.default", R(3), R(3), order=2)
grad("logsumexp.default", R(2, 3), [1], order=2)
grad("softplus.default", R(4), 2, 1, order=2)
grad("gelu.default", R(4), approximate="tanh", order=2)
grad("elu.default", R(4), order=2)
grad("cross_entropy_loss.default", R(3, 4), torch.tensor([0, 1, 3]), order=2)
grad("index.Tensor", R(3, 4), [torch.tensor([2, 0])], order=2)
grad("cat.default", [R(2, 3), R(1, 3)], 0, order=2)
grad("where.self", torch.tensor([True, False, True]), R(3), R(3), order=2)
grad("prod.dim_int", R(2, 3), 1, order=2)
grad("var.correction", R(3, 4), [1], correction=0, order=2)
grad("embedding_dense_backward.default", R(2, 3), torch.tensor([0, 2]), 4, -1, False, order=2)
grad("native_layer_norm_backward.default", R(2, 3), R(2, 3), [3], R(2, 1), R(2, 1).abs() + 0.5, R(3), R(3), [True, True, True])

# ---- non-core ops at their special points ----
edge2 = T(0.0, 1.0, -1.0, 0.5, nan, -3.0, inf, -inf, 2.0)  # NaN in the vectorized part of 1.13's loops
for u in ["sinc", "frac", "square", "deg2rad", "rad2deg", "sgn", "relu6", "selu", "hardshrink", "softshrink", "celu",
          "nan_to_num"]:
    grad(u + ".default", edge2.clone())
grad("logit.default", T(0.0, 0.3, 1.0, 1.5, -0.1))
grad("logit.default", T(0.0, 0.3, 1.0, 1.5, -0.1), 0.2)
grad("hardshrink.default", T(-0.5, 0.5, 0.6, -0.7), 0.5)
grad("softshrink.default", T(-0.5, 0.5, 0.6, -0.7), 0.5)
grad("threshold.default", T(-1.0, 0.0, 1.0), 0.0, -2.0)
grad("prelu.default", T(0.0, -1.0, 2.0, -3.0, shape=(1, 2, 2)), T(0.25, 0.5))
grad("glu.default", R(2, 4), 1)
grad("logaddexp.default", T(-inf, 1.0, inf, 0.0), T(-inf, 1.0, inf, -inf))
grad("logaddexp2.default", T(-inf, 1.0, 3.0), T(-inf, 1.0, -1.0))
grad("nansum.default", T(1.0, nan, 2.0, nan, shape=(2, 2)), [1])
grad("cumprod.default", T(1.0, 0.0, 3.0, 2.0, 0.0, 4.0, shape=(2, 3)), 1)
grad("cumprod.default", T(2.0, 3.0, 0.0, 5.0), 0)
grad("l1_loss.default", T(0.0, 1.0, 2.0), T(0.0, 2.0, 2.0))
grad("kl_div.default", T(-1.0, -2.0, 0.5), T(0.0, 0.5, 0.2))
grad("kl_div.default", T(-1.0, -2.0, 0.5), T(-inf, 0.5, 0.2), 1, True)
grad("poisson_nll_loss.default", T(0.0, 1.0, 2.0), T(0.0, 1.0, 3.0), True, False, 1e-8, 1)
grad("poisson_nll_loss.default", T(0.0, 1.0, 2.0), T(0.0, 1.0, 3.0), False, True, 1e-8, 1)
grad("binary_cross_entropy_with_logits.default", T(-100.0, 0.0, 100.0, inf), T(0.0, 1.0, 1.0, 1.0), None, T(1.0, 2.0, 0.5, 1.0), 1)
grad("soft_margin_loss.default", T(0.0, -50.0, 50.0), T(1.0, -1.0, 1.0))
grad("hinge_embedding_loss.default", T(0.0, 1.0, 0.5), T(1.0, -1.0, -1.0), 1.0)
grad("margin_ranking_loss.default", T(1.0, 2.0, 3.0), T(1.0, 3.0, 1.0), T(1.0, 1.0, -1.0), 0.0)
grad("cosine_similarity.default", T(0.0, 0.0, 1.0, 2.0, shape=(2, 2)), T(1.0, 1.0, 1.0, 0.0, shape=(2, 2)))
grad("pairwise_distance.default", T(0.0, 0.0, 1.0, 2.0, shape=(2, 2)), T(0.0, 0.0, 1.0, 0.0, shape=(2, 2)))
grad("triplet_margin_loss.default", R(3, 4), R(3, 4), R(3, 4), 1.0, 2.0, 1e-6, True)
grad("cosine_embedding_loss.default", R(3, 4), R(3, 4), T(1.0, -1.0, 1.0))
grad("huber_loss.default", R(4), R(4), 0, 0.5)
grad("smooth_l1_loss.default", R(4), R(4), 2, 0.0)
grad("addcdiv.default", R(3), R(3), T(1.0, 0.0, -2.0), value=0.5)
grad("addcmul.default", R(3), R(3), R(3), value=-2.0)
grad("lerp.Scalar", R(3), R(3), 0.3)
grad("trace.default", R(3, 4))
grad("dot.default", R(3), R(3))
grad("outer.default", R(3), R(2))
grad("mv.default", R(2, 3), R(3))
grad("matmul.default", R(3), R(2, 3, 4))
grad("matmul.default", R(2, 1, 3, 4), R(4))
grad("linear.default", R(2, 3), R(4, 3), R(4))
grad("einsum.default", "bij,bjk->bik", [R(2, 3, 4), R(2, 4, 2)])
grad("einsum.default", "ii->i", [R(3, 3)])
grad("baddbmm.default", R(2, 3, 2), R(2, 3, 4), R(2, 4, 2), beta=0.5, alpha=2.0)
grad("addr.default", R(3, 2), R(3), R(2), beta=0.0, alpha=2.0)
grad("var_mean.correction", R(3, 4), [1], correction=0)
grad("std_mean.correction", T(1.0, 1.0, 2.0, 3.0, shape=(2, 2)), [1], correction=1)
grad("std_mean.dim", R(3, 4), None, True)
grad("std.dim", T(1.0, 1.0, 1.0), [0], True)
grad("aminmax.default", T(1.0, 3.0, 3.0, 0.0), dim=0)
grad("max.default", T(1.0, 3.0, nan, 0.0))
grad("min.other", T(1.0, 3.0, 2.0), T(1.0, 0.0, nan))
grad("fmax.default", T(1.0, nan, 2.0), T(1.0, 0.0, nan)) if hasattr(A, "fmax") else None
grad("scaled_dot_product_attention.default", R(1, 2, 3, 4), R(1, 2, 5, 4), R(1, 2, 5, 4), None, 0.0, True) if hasattr(A, "scaled_dot_product_attention") else None
grad("instance_norm.default", R(2, 3, 4), R(3), R(3), None, None, True, 0.1, 1e-5, False)
grad("group_norm.default", R(2, 4, 3), 2, R(4), R(4), 1e-5, False)
grad("native_batch_norm.default", R(4, 3), R(3), R(3), torch.zeros(3), torch.ones(3), False, 0.1, 1e-5)
grad("pixel_shuffle.default", R(1, 4, 2, 3), 2)
grad("roll.default", R(3, 4), [1, -2], [0, 1])
grad("rot90.default", R(3, 4), 3, [0, 1])
grad("repeat_interleave.self_int", R(3), 2)
grad("take.default", R(2, 3), torch.tensor([0, 5, 5, 2]))
grad("index_add.default", R(4, 2), 0, torch.tensor([0, 3, 0]), R(3, 2), alpha=2.0)
grad("index_copy.default", R(4, 2), 0, torch.tensor([1, 3]), R(2, 2))
grad("index_fill.int_Scalar", R(4, 2), 0, torch.tensor([1, 3]), 2.0)
grad("masked_fill.Scalar", R(2, 3), torch.tensor([True, False, True]), 0.5)
grad("masked_fill.Tensor", R(2, 3), torch.tensor([True, False, True]), T(0.5))
grad("masked_select.default", R(2, 3), torch.tensor([True, False, True]))
grad("tril.default", R(3, 4), -1)
grad("diag_embed.default", R(2, 3), 1, 0, 2)
grad("movedim.intlist", R(2, 3, 4), [0, 2], [2, 0])
grad("flip.default", R(2, 3), [0, 1])
grad("narrow.default", R(4, 3), 0, 1, 2)
grad("unbind.int", R(3, 2), 1)
grad("chunk.default", R(5, 2), 3)
grad("stack.default", [R(2), R(2)], 1)
grad("pad.default", R(1, 2, 3), [1, 2], "circular") if True else None
grad("pad.default", R(1, 2, 3), [2, 1], "reflect")
grad("pad.default", R(1, 2, 3), [2, 1], "replicate")
grad("embedding_bag.padding_idx", R(4, 3), torch.tensor([0, 1, 1, 3]), torch.tensor([0, 2]), False, 1, False, None, False, 1)
grad("one_hot.default", torch.tensor([0, 2]), 3) if False else None
grad("_unsafe_view.default", R(2, 3).t(), [6])
grad("reshape.default", R(2, 3).t(), [6])
grad("conv1d.default", R(2, 3, 5), R(4, 3, 2), None, [1], [1], [2], 1)
grad("conv3d.default", R(1, 2, 3, 3, 3), R(2, 1, 2, 2, 2), R(2), [1, 1, 1], [0, 1, 0], [1, 1, 1], 2)
grad("conv_transpose1d.default", R(1, 2, 4), R(2, 3, 3), R(3), [2], [1], [1], 1, [1])
grad("max_pool1d.default", R(1, 2, 6), [3], [2], [1], [1], True)
grad("max_pool3d.default", R(1, 1, 3, 4, 4), [2, 2, 2], [1, 2, 2], [1, 0, 0], [1, 1, 1], False)
grad("adaptive_avg_pool2d.default", R(1, 2, 5, 7), [3, 2])
grad("adaptive_avg_pool3d.default", R(1, 2, 3, 5, 2), [2, 3, 1])

out = os.path.join(os.path.dirname(__file__), "..", "autograd", "testdata", "extra_grad.jsonl.gz")
with gzip.open(out, "wt") as f:
    for r in recs:
        f.write(json.dumps(r) + "\n")
print("wrote", len(recs), "records to", out, file=sys.stderr)

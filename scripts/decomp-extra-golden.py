#!/usr/bin/env python3
# Writes decomp/testdata/extra.jsonl.gz: PyTorch 1.13 results, in the golden
# record format (../shared/golden/FORMAT.md), for the non-core ops that the
# public golden set does not cover. decomp's TestExtraRecords replays them.
# Run with a Python that has torch 1.13: python3 scripts/decomp-extra-golden.py
import gzip, json, math, os, sys

import torch

torch.manual_seed(0)
A = torch.ops.aten
recs = []


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
    if isinstance(x, torch.Tensor):
        t = x.detach()
        flat = t.reshape(-1)
        vals = flat.double().tolist() if t.dtype.is_floating_point else flat.tolist()
        return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape), "strides": list(t.stride()),
                "offset": t.storage_offset(), "data": [enc_num(v, t.dtype) for v in vals]}
    if isinstance(x, torch.dtype):
        return {"scalar_type": str(x).replace("torch.", "")}
    if isinstance(x, torch.memory_format):
        return {"memory_format": str(x).replace("torch.", "")}
    if isinstance(x, (list, tuple)):
        return [enc(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return x


def rec(name, *args, **kwargs):
    base, _, overload = name.partition(".")
    op = getattr(getattr(A, base), overload or "default")
    eargs, ekw = enc(list(args)), {k: enc(v) for k, v in kwargs.items()}
    try:
        out = op(*args, **kwargs)
    except Exception as e:
        print("skip", name, type(e).__name__, str(e)[:100], file=sys.stderr)
        return
    r = {"op": "aten::%s.%s" % (base, overload or "default"), "args": eargs, "kwargs": ekw, "out": enc(out),
         "source": "decomp-extra:%s|%d" % (name, len(recs))}
    if "empty" in name:
        r["nondeterministic"] = True
        r["out"].pop("data")
    recs.append(r)


r = torch.randn
x34 = r(3, 4); x234 = r(2, 3, 4); nc = r(4, 3).t()  # non-contiguous
i34 = torch.randint(-5, 5, (3, 4))
bf = r(3, 4).bfloat16()
# shape
rec("reshape_as", x234, r(6, 4)); rec("reshape_as", nc, r(12))
rec("view_as", x234, r(4, 6)); rec("expand_as", r(3, 1), x34)
rec("unflatten.int", x234, 1, [3, 1]); rec("unflatten.int", x234, -1, [2, -1])
rec("ravel", nc); rec("ravel", x234)
rec("swapaxes", x234, 0, 2); rec("swapdims", x234, -1, 0)
rec("movedim.int", x234, 0, -1); rec("movedim.intlist", r(2, 3, 4, 5), [0, 1], [3, 0]); rec("movedim.intlist", r(2,3,4,5), [3], [1])
rec("narrow", x234, 1, 1, 2); rec("narrow", x234, -1, -3, 2)
rec("contiguous", nc); rec("contiguous", x34); rec("contiguous", r(2,3,4,5).permute(0,2,3,1), memory_format=torch.channels_last)
rec("detach", x34)
rec("tensor_split.sections", r(7, 3), 3); rec("tensor_split.sections", r(3, 7), 4, 1)
rec("tensor_split.indices", r(8, 2), [2, 5]); rec("tensor_split.indices", r(8, 2), [5, 2, -1])
rec("hsplit.int", r(4, 6), 3); rec("hsplit.int", r(6), 2); rec("vsplit.int", r(4, 6), 2)
rec("unbind.int", x234, 1); rec("unbind.int", nc, 0)
rec("vstack", [r(3), r(2, 3)]); rec("dstack", [r(3), r(1, 3)]); rec("dstack", [r(2,3), r(2,3)])
rec("column_stack", [r(3), r(3, 2), torch.tensor(1.).expand(3)])
rec("flipud", x34); rec("fliplr", x234)
rec("rot90", x34, 1, [0, 1]); rec("rot90", x234, -1, [2, 0]); rec("rot90", x34, 2, [0, 1]); rec("rot90", x34, 4, [0, 1]); rec("rot90", x34, 3, [1, 0])
rec("roll", x34, [1], [0]); rec("roll", x34, [-2, 5], [1, 0]); rec("roll", x34, [3], []); rec("roll", nc, [1], [1])
rec("diag_embed", r(2, 3)); rec("diag_embed", r(2, 3), 1); rec("diag_embed", r(2, 3), -2, 0, 2); rec("diag_embed", r(3), 0, 1, 0)
rec("pixel_shuffle", r(2, 8, 3, 3), 2); rec("pixel_unshuffle", r(2, 2, 4, 6), 2); rec("channel_shuffle", r(2, 6, 2, 2), 3)
rec("repeat_interleave.Tensor", torch.tensor([2, 0, 3, 1])); rec("repeat_interleave.Tensor", torch.tensor([0, 0, 2]))
rec("repeat_interleave.self_Tensor", x34, torch.tensor([1, 0, 2]), 0); rec("repeat_interleave.self_Tensor", x34, torch.tensor(2))
rec("repeat_interleave.self_int", x34, 2); rec("repeat_interleave.self_int", x34, 3, 1); rec("repeat_interleave.self_int", x34, 0, 0)
# pointwise extras
rec("square", i34); rec("square", x34)
rec("frac", r(5) * 3); rec("deg2rad", i34); rec("rad2deg", x34)
rec("sgn", x34); rec("heaviside", torch.tensor([-1., 0., 2., 0.]), torch.tensor([5., 6., 7., 8.]))
rec("isneginf", torch.tensor([1., -math.inf, math.inf, math.nan])); rec("isposinf", torch.tensor([1., -math.inf, math.inf, math.nan]))
rec("nan_to_num", torch.tensor([1., -math.inf, math.inf, math.nan])); rec("nan_to_num", torch.tensor([1., -math.inf, math.inf, math.nan]), 2.0, 3.0, -4.0)
rec("nan_to_num", torch.tensor([1., -math.inf, math.inf, math.nan]).double()); rec("nan_to_num", torch.tensor([1., -math.inf, math.inf, math.nan]).bfloat16())
rec("xlogy.Tensor", torch.tensor([0., 1., 2., 0.]), torch.tensor([0., 2., math.nan, math.nan])); rec("xlogy.Tensor", torch.tensor([0, 1, 2]), torch.tensor([3, 2, 1]))
rec("logaddexp", x34, r(4)); rec("logaddexp", torch.tensor([math.inf, -math.inf, 1.]), torch.tensor([math.inf, -math.inf, math.inf]))
rec("logaddexp2", x34, r(4)); rec("logaddexp2", bf, bf)
rec("sinc", torch.tensor([0., 0.5, 1., -2.3])); rec("sinc", torch.tensor([0, 1, 2]))
rec("logit", torch.rand(5)); rec("logit", torch.tensor([0., 0.3, 1.]), 0.1); rec("logit", torch.tensor([0, 1]))
rec("type_as", i34, x34)
rec("addcmul", x34, r(4), r(3, 1), value=0.5); rec("addcmul", i34, i34, i34, value=2); rec("addcmul", bf, bf, bf, value=2.5)
rec("addcdiv", x34, r(4), r(3, 1), value=-2.0); rec("addcdiv", x34.double(), x34, r(3,4))
rec("lerp.Scalar", x34, r(3, 4), 0.7); rec("lerp.Tensor", x34, r(3, 4), torch.rand(3, 4) * 2 - 0.5)
rec("where.ScalarOther", x34 > 0, x34, 2.5); rec("where.ScalarOther", x34 > 0, i34, 2.5); rec("where.ScalarSelf", x34 > 0, 3, i34); rec("where.Scalar", x34 > 0, 2, 3); rec("where.Scalar", x34 > 0, 2., 3)
rec("clamp_max", x34, 0.2); rec("clamp_max.Tensor", i34, torch.tensor([1, 2, 3, 4]))
rec("bitwise_or.Scalar_Tensor", 6, i34); rec("bitwise_xor.Scalar_Tensor", True, torch.tensor([True, False]))
rec("masked_fill.Scalar", i34, i34 > 0, 2.7); rec("masked_fill.Scalar", x34, torch.tensor([True, False, False, True]), -1.5)
# activations
rec("hardsigmoid", r(20) * 4); rec("hardsigmoid", bf * 4)
rec("selu", x34); rec("celu", x34); rec("celu", x34, 0.5)
rec("glu", r(3, 6)); rec("glu", r(4, 3), 0)
rec("relu6", x34 * 5); rec("hardshrink", x34); rec("hardshrink", x34, 1.0); rec("softshrink", torch.tensor([-2., -0.2, 0.3, 1.5, math.nan]), 0.5)
rec("threshold", x34, 0.1, 20.); rec("threshold", i34, 1.5, 7)
rec("log_sigmoid", r(10) * 10); rec("log_sigmoid_forward", x34)
rec("prelu", r(2, 3, 4), torch.tensor([0.1, 0.2, 0.3])); rec("prelu", r(5), torch.tensor([0.25]))
rec("dropout", x34, 0.5, False); rec("dropout", x34, 0.0, True); rec("feature_dropout", x34, 0.3, False); rec("alpha_dropout", x34, 0.2, False)
rec("silu_backward", x34, r(3, 4)); rec("hardtanh_backward", x34, r(3, 4), -0.5, 0.5); rec("leaky_relu_backward", x34, r(3, 4), 0.1, False)
rec("elu_backward", x34, 1.0, 1.0, 1.0, False, r(3, 4)); rec("elu_backward", x34, 0.7, 1.2, 0.5, True, r(3, 4)); rec("elu_backward", x34, 0.7, 1.2, 0.5, False, r(3, 4))
rec("hardsigmoid_backward", x34, r(3, 4) * 4); rec("hardswish_backward", x34, r(3, 4) * 4)
rec("softplus_backward", x34, r(3, 4) * 10, 1.5, 5); rec("log_sigmoid_backward", x34, r(3, 4), torch.exp(-r(3,4).abs()))
o = torch.softmax(x34, 1); rec("_softmax_backward_data", r(3, 4), o, 1, torch.float32)
o = torch.log_softmax(x34, 0); rec("_log_softmax_backward_data", r(3, 4), o, 0, torch.float32)
rec("gelu_backward", x34, r(3, 4), approximate="tanh")
# reductions
rec("var_mean.correction", x34, [1], correction=0, keepdim=True); rec("std_mean", x34); rec("std_mean.dim", x234, [0, 2], False, True); rec("std_mean.correction", x34, None, correction=2)
rec("norm.Scalar", x34); rec("norm.Scalar", x34, 1); rec("norm.ScalarOpt_dim_dtype", x34, 3, [1], True, dtype=torch.float64); rec("norm.ScalarOpt_dtype", x34, None, dtype=torch.float64)
rec("norm.ScalarOpt_dim", x34, math.inf, [0]); rec("norm.ScalarOpt_dim", x34, -math.inf, [1]); rec("norm.ScalarOpt_dim", x34, 0, [1]); rec("norm.ScalarOpt_dim", x34, -1.5, [1]); rec("norm.ScalarOpt_dim", bf, 2, [1])
rec("linalg_vector_norm", x34); rec("linalg_vector_norm", x234, 1, [0, 2], True); rec("linalg_vector_norm", x34, math.inf, [1]); rec("linalg_vector_norm", x34, 2, None, False, dtype=torch.float64)
rec("frobenius_norm.dim", x34, [0, 1]); rec("frobenius_norm.dim", x234, [1], True)
rec("aminmax", x34); rec("aminmax", x34, dim=1, keepdim=True); rec("aminmax", i34, dim=0)
rec("all", x34 > 0); rec("all", torch.tensor([1, 2], dtype=torch.uint8)); rec("all.dim", x34 > -1, 1); rec("all.dim", i34, 0, True)
rec("count_nonzero", i34); rec("count_nonzero", i34, 1); rec("count_nonzero.dim_IntList", i34, [0, 1])
rec("nansum", torch.tensor([1., math.nan, 2.])); rec("nansum", torch.tensor([[1., math.nan], [2., 3.]]), [1]); rec("nansum", i34, dtype=torch.float64)
rec("cumprod", r(6) + 1, 0); rec("cumprod", i34, 1); rec("cumprod", x234, 2, dtype=torch.float64); rec("cumprod", torch.tensor([True, True, False]), 0); rec("cumprod", r(20)*0.5+1, 0); rec("cumprod", torch.tensor(2.), 0)
rec("argsort", x34); rec("argsort", x34, 0, True); rec("msort", x34)
rec("trace", x34); rec("trace", i34)
# linalg extras
rec("bilinear", r(5, 3), r(5, 4), r(2, 3, 4), r(2)); rec("bilinear", r(2, 5, 3), r(2, 5, 4), r(6, 3, 4), None)
rec("mv", x34, r(4)); rec("outer", r(3), r(4)); rec("outer", torch.tensor([1, 2]), r(3))
rec("addr", x34, r(3), r(4)); rec("addr", x34, r(3), r(4), beta=0.5, alpha=2); rec("addr", torch.full((3, 4), math.nan), r(3), r(4), beta=0)
rec("addr", torch.tensor([[True, False]]), torch.tensor([True, False]), torch.tensor([False, True]))
rec("addbmm", x34, r(5, 3, 6), r(5, 6, 4)); rec("addbmm", r(4), r(2, 3, 5), r(2, 5, 4), beta=0.5, alpha=-1)
rec("cross", r(4, 3), r(4, 3)); rec("cross", r(3, 5), r(3, 5), 0); rec("linalg_cross", r(2, 3), r(1, 3))
rec("cdist", r(4, 3), r(5, 3)); rec("cdist", r(2, 4, 3), r(2, 5, 3), 1.0)
rec("pairwise_distance", r(4, 3), r(4, 3)); rec("pairwise_distance", r(4, 3), r(3), 1.0, 1e-6, True)
rec("cosine_similarity", r(4, 3), r(4, 3)); rec("cosine_similarity", r(4, 3), r(3), 0); rec("cosine_similarity", torch.zeros(2, 3), r(2, 3))
for eq, ops in [("ij,jk->ik", [r(2, 3), r(3, 4)]), ("ii->i", [r(3, 3)]), ("ii", [r(3, 3)]), ("bij,bjk->bik", [r(2, 3, 4), r(2, 4, 5)]),
                ("...ij,...jk", [r(2, 3, 4), r(4, 5)]), ("i,i->", [r(5), r(5)]), ("i,j->ij", [r(3), r(4)]), ("ijk->kji", [r(2, 3, 4)]),
                ("bn,anm,bm->ba", [r(2, 3), r(4, 3, 5), r(2, 5)]), ("a...b,...b->...a", [r(3, 2, 4), r(2, 4)]), ("iij,jk", [r(3,3,4), r(4,2)]),
                ("i,i,i->i", [r(4), r(4), r(4)]), ("ab,ab,c->", [r(2,3), r(2,3), r(4)])]:
    rec("einsum", eq, ops)
rec("einsum", "ab,bc,cd->ad", [r(2, 3), r(3, 4), r(4, 5)], path=[1, 2, 0, 1])
# norms
rec("group_norm", r(2, 6, 3, 3), 3); rec("group_norm", r(2, 4, 5), 2, r(4), r(4), 1e-3)
rec("batch_norm", r(4, 3, 2), r(3), r(3), torch.zeros(3), torch.ones(3), False, 0.1, 1e-5, True)
rec("batch_norm", r(4, 3), None, None, torch.zeros(3), torch.ones(3), True, 0.1, 1e-5, True)
rec("instance_norm", r(2, 3, 4, 4), r(3), r(3), None, None, True, 0.1, 1e-5, True)
rec("instance_norm", r(2, 3, 5), None, None, torch.zeros(3), torch.ones(3), True, 0.1, 1e-5, True)
# losses
rec("nll_loss_nd", torch.log_softmax(r(2, 3, 4, 5), 1), torch.randint(0, 3, (2, 4, 5))); rec("nll_loss_nd", torch.log_softmax(r(2, 3, 4), 1), torch.randint(0, 3, (2, 4)), None, 0)
rec("nll_loss2d", torch.log_softmax(r(2, 3, 4, 5), 1), torch.randint(0, 3, (2, 4, 5)), r(3).abs(), 2)
t = torch.randint(0, 4, (5,)); t[1] = -100
rec("nll_loss_backward", torch.tensor(1.3), torch.log_softmax(r(5, 4), 1), t, None, 1, -100, torch.tensor(4.))
rec("nll_loss_backward", r(5), torch.log_softmax(r(5, 4), 1), t, r(4).abs(), 0, -100, torch.tensor(0.))
rec("mse_loss_backward", r(3, 4), x34, r(3, 4), 1); rec("mse_loss_backward", torch.tensor(2.), x34, r(3, 4), 2)
rec("l1_loss", x34, r(3, 4)); rec("l1_loss", x34, r(3, 4), 0)
rec("smooth_l1_loss", x34, r(3, 4)); rec("smooth_l1_loss", x34, r(3, 4), 0, 0.5); rec("smooth_l1_loss", x34, r(3, 4), 2, 0.0)
rec("huber_loss", x34, r(3, 4)); rec("huber_loss", x34 * 3, r(3, 4), 0, 0.7)
p = torch.rand(3, 4)
rec("binary_cross_entropy", p, torch.rand(3, 4)); rec("binary_cross_entropy", p, torch.rand(3, 4), r(3, 4).abs(), 0); rec("binary_cross_entropy", torch.tensor([0., 1.]), torch.tensor([1., 0.]))
rec("binary_cross_entropy_with_logits", x34 * 5, torch.rand(3, 4)); rec("binary_cross_entropy_with_logits", x34 * 5, torch.rand(3, 4), r(4).abs(), r(4).abs(), 0)
rec("binary_cross_entropy_with_logits", x34, torch.rand(3, 4), None, r(4).abs(), 2)
rec("kl_div", torch.log_softmax(x34, 1), torch.softmax(r(3, 4), 1)); rec("kl_div", torch.log_softmax(x34, 1), torch.log_softmax(r(3, 4), 1), 0, log_target=True)
rec("soft_margin_loss", x34, torch.sign(r(3, 4))); rec("margin_ranking_loss", r(5), r(5), torch.sign(r(5)), 0.3, 1)
rec("hinge_embedding_loss", x34, torch.sign(r(3, 4)), 0.5, 1); rec("cosine_embedding_loss", r(4, 3), r(4, 3), torch.sign(r(4)), 0.1, 1)
rec("cosine_embedding_loss", r(3), r(3), torch.tensor(-1.), 0.0, 0)
rec("poisson_nll_loss", x34, torch.rand(3, 4) * 3, True, False, 1e-8, 1); rec("poisson_nll_loss", torch.rand(3, 4), torch.rand(3, 4) * 3, False, True, 1e-8, 2)
rec("triplet_margin_loss", r(4, 3), r(4, 3), r(4, 3)); rec("triplet_margin_loss", r(4, 3), r(4, 3), r(4, 3), 0.5, 1.0, 1e-6, True, 0)
rec("cross_entropy_loss", r(4, 5), torch.softmax(r(4, 5), 1), r(5).abs(), 1, -100, 0.2)
rec("cross_entropy_loss", r(4, 5), torch.tensor([0, 1, -100, 4]), r(5).abs(), 1, -100, 0.3)
rec("cross_entropy_loss", r(4, 5), torch.tensor([0, 1, -100, 4]), None, 0, -100, 0.3)
rec("cross_entropy_loss", r(2, 5, 3), torch.randint(0, 5, (2, 3)), None, 2, -100, 0.1)
# factories
rec("empty_like", x34); rec("new_empty", x34, [2, 2]); rec("eye", 3); rec("eye.m", 2, 4, dtype=torch.int64)
rec("linspace", 0, 1, 5); rec("linspace", -2.5, 7, 10, dtype=torch.float64); rec("linspace", 0, 10, 7, dtype=torch.int64); rec("linspace", 3, 3, 1); rec("linspace", 0, 1, 0)
rec("linspace", -1.1, 2.3, 11)
rec("logspace", 0, 2, 5); rec("logspace", 1, -1, 4, 2.0); rec("logspace", 0, 3, 4, 10.0, dtype=torch.int64)
rec("one_hot", torch.tensor([0, 2, 1])); rec("one_hot", torch.tensor([[0, 2], [1, 1]]), 4)
rec("zero", x34)
# index
rec("index_add", x34, 0, torch.tensor([0, 2, 0]), r(3, 4)); rec("index_add", x34, 1, torch.tensor([3, 1]), r(3, 2), alpha=2.0)
rec("index_add", torch.ones(5, dtype=torch.int64), 0, torch.tensor([0, 4], dtype=torch.int32), torch.tensor([2, 3]), alpha=3)
rec("index_copy", x34, 1, torch.tensor([3, 0]), r(3, 2)); rec("index_fill.int_Scalar", x34, 1, torch.tensor([0, 2]), -1.0)
rec("index_fill.int_Tensor", i34, 0, torch.tensor([1]), torch.tensor(9)); rec("take", x34, torch.tensor([[0, 11], [-1, 5]]))
rec("masked_select", x34, x34 > 0); rec("masked_select", x34, torch.tensor([True, False, True, False]))
# nn
rec("conv1d", r(2, 4, 9), r(6, 2, 3), r(6), [2], [1], [1], 2); rec("conv1d", r(4, 9), r(6, 4, 3))
rec("conv2d", r(2, 3, 6, 6), r(4, 3, 3, 3), None, 1, 1, 1, 1); rec("conv3d", r(1, 2, 4, 4, 4), r(3, 2, 2, 2, 2))
rec("conv2d.padding", r(2, 3, 6, 6), r(4, 3, 3, 2), r(4), 1, "same"); rec("conv1d.padding", r(2, 3, 7), r(4, 3, 4), None, [1], "same", [2])
rec("conv2d.padding", r(2, 3, 6, 6), r(4, 3, 3, 3), None, 1, "valid")
rec("conv_transpose1d", r(2, 4, 5), r(4, 3, 3), r(3), [2], [1], [1]); rec("conv_transpose2d.input", r(1, 2, 4, 4), r(2, 3, 3, 3), None, 2, 1, 1)
rec("max_pool1d", r(2, 3, 10), [3]); rec("max_pool1d", r(3, 10), [3], [2], [1], [1], True)
rec("max_pool2d", r(2, 3, 7, 7), [3, 3], [2, 2]); rec("max_pool3d", r(1, 2, 5, 5, 5), [2, 2, 2])
rec("adaptive_avg_pool2d", r(2, 3, 7, 5), [1, 1]); rec("adaptive_avg_pool2d", r(2, 3, 7, 5), [3, 2]); rec("adaptive_avg_pool3d", r(1, 2, 4, 4, 4), [1, 1, 1])
rec("pad", r(1, 2, 5), [1, 2]); rec("pad", r(1, 2, 5), [1, 2], "reflect"); rec("pad", r(1, 2, 5), [2, 3], "replicate"); rec("pad", r(1, 2, 5), [2, 3], "circular")
rec("pad", r(1, 2, 4, 5), [1, 2, 3, 1], "reflect"); rec("pad", r(2, 4, 5), [1, 2, 3, 1], "replicate"); rec("pad", r(1, 2, 4, 5), [1, 2, -1, 3], "circular"); rec("pad", r(1, 2, 3, 3, 3), [1, 1, 2, 0, 0, 2], "replicate")
rec("pad", r(2, 3), [1, -1, 2, 0], "constant", 2.5); rec("pad", r(1, 2, 3, 3, 3), [1, 1, 2, 0, 1, 2], "circular")
q, k, v = r(2, 3, 4, 8), r(2, 3, 5, 8), r(2, 3, 5, 6)
rec("_scaled_dot_product_attention", q, k, v); rec("_scaled_dot_product_attention", q, k, v, r(4, 5)); rec("_scaled_dot_product_attention", q, r(2,3,4,8), r(2,3,4,6), None, 0.0, True, True)
rec("_scaled_dot_product_attention_math", q, k, v, torch.rand(4, 5) > 0.3, 0.0, True)
rec("embedding_bag", r(10, 3), torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 4]), False, 1)
rec("embedding_bag.padding_idx", r(10, 3), torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 4]), False, 0, False, None, False, 2)
# reduced precision and float64
for dt in (torch.bfloat16, torch.float64):
    y = (r(4, 5) * 3).to(dt)
    for name in ("silu", "mish", "hardswish", "hardsigmoid", "softplus", "selu", "log_sigmoid", "frac", "sinc", "logit"):
        if dt == torch.bfloat16 and name == "mish":
            continue
        rec(name, y if name != "logit" else torch.rand(4, 5).to(dt))
    rec("gelu_backward", y, y.flip(0)); rec("gelu_backward", y, y.flip(1), approximate="tanh"); rec("sigmoid_backward", y, torch.sigmoid(y)); rec("tanh_backward", y, torch.tanh(y))
    rec("addcmul", y, y.flip(0), y.flip(1), value=0.3); rec("addcdiv", y, y.flip(0), y.flip(1) + 10, value=-2)
    rec("lerp.Scalar", y, y.flip(0), 0.3); rec("lerp.Scalar", y, y.flip(0), 0.8); rec("lerp.Tensor", y, y.flip(0), torch.rand(4, 5).to(dt))
    rec("logsumexp", y, [1]); rec("cumprod", y / 3, 1); rec("norm.ScalarOpt_dim", y, 2, [1]); rec("norm.ScalarOpt_dim", y, 3.5, [0]); rec("std.correction", y, [1], correction=1)
    rec("round.decimals", y, decimals=1); rec("round.decimals", y * 100, decimals=-1); rec("logaddexp", y, y.flip(0)); rec("xlogy.Tensor", y, y.abs())
    rec("softmax.int", y, 1); rec("log_softmax.int", y, 0); rec("softmax.int", y, 1, torch.float32)
    rec("mse_loss", y, y.flip(0)) if dt == torch.float64 else None
    rec("smooth_l1_loss", y, y.flip(0)); rec("huber_loss", y, y.flip(0), 1, 0.5)
# in-place
rec("addcmul_", r(3, 4), r(4), r(3, 1), value=0.5); rec("masked_fill_.Scalar", r(3, 4), torch.rand(3, 4) > 0.5, 0.0); rec("tril_", r(4, 4), -1); rec("clamp_min_", r(3, 4), 0.1)
rec("index_add_", r(3, 4), 0, torch.tensor([0, 2, 0]), r(3, 4)); rec("zero_", r(3, 4)); rec("silu_", r(5)); rec("floor_divide_.Tensor", r(3, 4), r(4))

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "decomp", "testdata", "extra.jsonl.gz")
os.makedirs(os.path.dirname(out), exist_ok=True)
with gzip.GzipFile(out, "wb", mtime=0) as f:
    for x in recs:
        f.write((json.dumps(x) + "\n").encode())
print(len(recs), "records ->", out, file=sys.stderr)

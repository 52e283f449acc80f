#!/usr/bin/env python3
# Records torch.nn layers for nn's tests (nn/torch_test.go):
#
#     /usr/bin/python3 scripts/record_nn.py     (PyTorch 1.13, from the repository root)
#
# For each case: torch.manual_seed(seed), the layer is built with some
# non-default options and its initial state dict recorded; inputs come from
# a separate generator (so the default stream is left to the layer, as
# dropout draws from it in forward); in each mode (train, and eval where it
# differs) the layer runs forward on fresh copies of the inputs after any
# "pre" training forwards, and the script records the output, a random
# grad_output G, the gradients of sum(output * G) with respect to the inputs
# and every parameter, and the state dict after the forward.
#
# Writes testdata/nn/<group>.safetensors (keys "<case>/state/<name>",
# "<case>/input/<i>", "<case>/pre/<j>/<i>", "<case>/<mode>/output",
# "<case>/<mode>/grad_output", "<case>/<mode>/grad/input/<i>",
# "<case>/<mode>/grad/param/<name>", "<case>/<mode>/state/<name>") and
# testdata/nn/index.json (the cases, their reprs, state keys, modes, and the
# error cases with PyTorch's exception class and message).
#
# RMSNorm is not in PyTorch 1.13: the RMSNorm class below is PyTorch 2.4's
# nn.RMSNorm and F.rms_norm, written in 1.13's ops.
import json
import math
import numbers
import os
import struct

import torch
import torch.nn as nn

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "testdata", "nn")


class RMSNorm(nn.Module):
    """PyTorch 2.4's torch.nn.RMSNorm (torch/nn/modules/normalization.py) and
    its F.rms_norm (aten/src/ATen/native/layer_norm.cpp, rms_norm_symint)."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if self.elementwise_affine:
            self.weight = nn.Parameter(torch.empty(self.normalized_shape, **factory_kwargs))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            nn.init.ones_(self.weight)

    def forward(self, x):
        n = len(self.normalized_shape)
        if x.dim() < n or tuple(x.shape[x.dim() - n:]) != self.normalized_shape:
            # rms_norm_symint checks its inputs with _check_layer_norm_inputs:
            # layer_norm raises the same error.
            torch.nn.functional.layer_norm(x, self.normalized_shape)
        dims = [x.dim() - i - 1 for i in range(len(self.normalized_shape))]
        eps = self.eps if self.eps is not None else torch.finfo(x.dtype).eps
        y = x.mul(torch.rsqrt(torch.pow(x, 2).mean(dims, keepdim=True).add_(eps)))
        if self.weight is not None:
            y = y.mul(self.weight)
        return y

    def extra_repr(self):
        return "{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}".format(**self.__dict__)


# Inputs, drawn from the case's own generator g.
def R(*shape, scale=1.0, dtype=torch.float32):
    return lambda g: torch.randn(shape, generator=g, dtype=dtype) * scale


def U(lo, hi, *shape, dtype=torch.float32):
    return lambda g: torch.rand(shape, generator=g, dtype=dtype) * (hi - lo) + lo


def I(values):
    return lambda g: torch.tensor(values, dtype=torch.long)


def NOGRAD(f):
    f.nograd = True
    return f


F64 = torch.float64
# Masks: True is a position that may not be attended.
KPM_2x4 = torch.tensor([[False, False, True, False], [False, True, False, True]])
CAUSAL_3x3 = torch.ones(3, 3, dtype=torch.bool).triu(1)
CAUSAL_3x4 = torch.ones(3, 4, dtype=torch.bool).triu(1)
ACT_IN = R(3, 8, scale=2.5)


def case(group, name, seed, build, inputs, run=None, modes=("train",), pre=()):
    return dict(group=group, name=name, seed=seed, build=build, inputs=inputs,
                run=run or (lambda m, xs: m(*xs)), modes=modes, pre=pre)


CASES = [
    # linear
    case("linear", "identity", 0, lambda: nn.Identity(), [R(2, 3)]),
    case("linear", "linear", 1, lambda: nn.Linear(5, 3), [R(2, 4, 5)]),
    case("linear", "linear_nobias_f64", 2, lambda: nn.Linear(4, 2, bias=False, dtype=F64), [R(3, 4, dtype=F64)]),
    case("linear", "linear_1d_input", 3, lambda: nn.Linear(6, 4), [R(6)]),
    case("linear", "bilinear", 4, lambda: nn.Bilinear(3, 4, 2), [R(5, 3), R(5, 4)]),
    case("linear", "bilinear_nobias", 5, lambda: nn.Bilinear(2, 3, 4, bias=False), [R(2, 2), R(2, 3)]),
    # conv
    case("conv", "conv1d_reflect", 10, lambda: nn.Conv1d(4, 6, 3, stride=2, padding=2, dilation=2, groups=2, padding_mode="reflect"), [R(2, 4, 9)]),
    case("conv", "conv1d_same_replicate", 11, lambda: nn.Conv1d(3, 2, 4, padding="same", padding_mode="replicate"), [R(2, 3, 7)]),
    case("conv", "conv1d_same_zeros", 12, lambda: nn.Conv1d(3, 4, 4, padding="same", dilation=2, bias=False), [R(1, 3, 8)]),
    case("conv", "conv2d", 13, lambda: nn.Conv2d(3, 4, (3, 2), stride=(2, 1), padding=(1, 2), bias=False), [R(2, 3, 7, 6)]),
    case("conv", "conv2d_default", 14, lambda: nn.Conv2d(2, 3, 3), [R(1, 2, 5, 5)]),
    case("conv", "conv2d_circular_groups", 15, lambda: nn.Conv2d(4, 6, 3, dilation=(2, 1), groups=2, padding=(2, 1), padding_mode="circular"), [R(1, 4, 8, 7)]),
    case("conv", "conv2d_replicate", 16, lambda: nn.Conv2d(2, 3, 3, padding=1, padding_mode="replicate"), [R(2, 2, 5, 5)]),
    case("conv", "conv2d_same", 17, lambda: nn.Conv2d(2, 4, (4, 3), padding="same", dilation=(1, 2)), [R(1, 2, 6, 6)]),
    case("conv", "conv2d_valid_unbatched", 18, lambda: nn.Conv2d(2, 3, 2, padding="valid"), [R(2, 5, 5)]),
    case("conv", "conv2d_depthwise_f64", 19, lambda: nn.Conv2d(3, 6, 3, padding=1, groups=3, dtype=F64), [R(2, 3, 5, 4, dtype=F64)]),
    case("conv", "conv3d", 20, lambda: nn.Conv3d(2, 2, (2, 3, 2), stride=(1, 2, 1), padding=(1, 0, 1)), [R(1, 2, 4, 5, 3)]),
    case("conv", "conv_transpose1d", 21, lambda: nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2), [R(2, 4, 5)]),
    case("conv", "conv_transpose2d", 22, lambda: nn.ConvTranspose2d(3, 4, (3, 2), stride=(2, 3), padding=(1, 0), output_padding=(1, 2), dilation=(1, 2)), [R(2, 3, 4, 3)]),
    case("conv", "conv_transpose2d_output_size", 23, lambda: nn.ConvTranspose2d(2, 3, 3, stride=2, bias=False), [R(1, 2, 4, 4)],
         run=lambda m, xs: m(xs[0], output_size=[10, 9])),
    case("conv", "conv_transpose3d", 24, lambda: nn.ConvTranspose3d(2, 2, 2, stride=2), [R(1, 2, 2, 3, 2)]),
    # norm
    case("norm", "batchnorm1d", 30, lambda: nn.BatchNorm1d(4, momentum=0.3), [R(5, 4)], modes=("train", "eval")),
    case("norm", "batchnorm1d_3d_cma", 31, lambda: nn.BatchNorm1d(3, momentum=None), [R(4, 3, 5)], modes=("train", "eval"),
         pre=[[R(4, 3, 5, scale=2.0)], [R(4, 3, 5, scale=0.5)]]),
    case("norm", "batchnorm2d_noaffine", 32, lambda: nn.BatchNorm2d(3, eps=1e-3, affine=False), [R(2, 3, 4, 4)], modes=("train", "eval")),
    case("norm", "batchnorm2d_nostats", 33, lambda: nn.BatchNorm2d(3, track_running_stats=False), [R(2, 3, 3, 4)], modes=("train", "eval")),
    case("norm", "batchnorm2d_f64", 34, lambda: nn.BatchNorm2d(2, dtype=F64), [R(3, 2, 2, 3, dtype=F64)], modes=("train", "eval")),
    case("norm", "batchnorm3d", 35, lambda: nn.BatchNorm3d(2), [R(2, 2, 2, 2, 3)], modes=("train", "eval")),
    case("norm", "layernorm", 36, lambda: nn.LayerNorm([3, 4], eps=1e-6), [R(2, 3, 4)]),
    case("norm", "layernorm_noaffine", 37, lambda: nn.LayerNorm(5, elementwise_affine=False), [R(3, 5)]),
    case("norm", "layernorm_f64", 38, lambda: nn.LayerNorm(6, dtype=F64), [R(2, 6, dtype=F64)]),
    case("norm", "groupnorm", 39, lambda: nn.GroupNorm(2, 6, eps=1e-4), [R(3, 6, 5)]),
    case("norm", "groupnorm_noaffine", 40, lambda: nn.GroupNorm(3, 3, affine=False), [R(2, 3, 2, 2)]),
    case("norm", "rmsnorm", 41, lambda: RMSNorm([4]), [R(3, 4)]),
    case("norm", "rmsnorm_eps_2d", 42, lambda: RMSNorm([2, 3], eps=1e-3), [R(2, 2, 3)]),
    case("norm", "rmsnorm_noaffine_f64", 43, lambda: RMSNorm(5, elementwise_affine=False, dtype=F64), [R(2, 5, dtype=F64)]),
    # sparse
    case("sparse", "embedding", 50, lambda: nn.Embedding(10, 4, padding_idx=2), [NOGRAD(I([[1, 2, 3, 2, 9], [0, 2, 4, 4, 1], [5, 6, 7, 8, 1]]))]),
    case("sparse", "embedding_max_norm", 51, lambda: nn.Embedding(8, 3, max_norm=1.0), [NOGRAD(I([1, 5, 5, 2, 7]))]),
    case("sparse", "embedding_max_norm_p1", 52, lambda: nn.Embedding(8, 3, max_norm=1.5, norm_type=1.0), [NOGRAD(I([0, 3, 6, 3]))]),
    case("sparse", "embedding_scale_grad", 53, lambda: nn.Embedding(6, 3, scale_grad_by_freq=True, padding_idx=-1), [NOGRAD(I([[1, 1, 5, 2], [1, 3, 3, 0]]))]),
    case("sparse", "embeddingbag_mean", 54, lambda: nn.EmbeddingBag(10, 3), [NOGRAD(I([1, 2, 4, 5, 4, 3, 2, 9])), NOGRAD(I([0, 4, 4]))]),
    case("sparse", "embeddingbag_sum_2d_weights", 55, lambda: nn.EmbeddingBag(10, 3, mode="sum", padding_idx=0), [NOGRAD(I([[1, 0, 4, 5], [4, 3, 0, 9], [7, 7, 2, 1]])), R(3, 4)],
         run=lambda m, xs: m(xs[0], per_sample_weights=xs[1])),
    case("sparse", "embeddingbag_max_last_offset", 56, lambda: nn.EmbeddingBag(10, 3, mode="max", include_last_offset=True), [NOGRAD(I([1, 2, 4, 5, 4, 3, 2, 9])), NOGRAD(I([0, 3, 5, 8]))]),
    # dropout
    case("dropout", "dropout", 60, lambda: nn.Dropout(0.3), [R(4, 5)], modes=("train", "eval")),
    case("dropout", "dropout_inplace", 61, lambda: nn.Dropout(p=0.6, inplace=True), [R(3, 6)], modes=("train", "eval"), run=lambda m, xs: m(xs[0].clone())),
    case("dropout", "dropout2d", 62, lambda: nn.Dropout2d(0.5), [R(2, 6, 2, 2)], modes=("train", "eval")),
    case("dropout", "dropout1d_unbatched", 64, lambda: nn.Dropout1d(0.5), [R(4, 5)], modes=("train", "eval")),
    case("dropout", "alpha_dropout", 63, lambda: nn.AlphaDropout(0.2), [R(3, 7)], modes=("train", "eval")),
    # activations
    case("activation", "relu", 70, lambda: nn.ReLU(), [ACT_IN]),
    case("activation", "relu_inplace", 70, lambda: nn.ReLU(inplace=True), [ACT_IN], run=lambda m, xs: m(xs[0].clone())),
    case("activation", "relu6", 70, lambda: nn.ReLU6(), [R(3, 8, scale=5.0)]),
    case("activation", "gelu", 70, lambda: nn.GELU(), [ACT_IN]),
    case("activation", "gelu_tanh", 70, lambda: nn.GELU(approximate="tanh"), [ACT_IN]),
    case("activation", "silu", 70, lambda: nn.SiLU(), [ACT_IN]),
    case("activation", "tanh", 70, lambda: nn.Tanh(), [ACT_IN]),
    case("activation", "sigmoid", 70, lambda: nn.Sigmoid(), [ACT_IN]),
    case("activation", "softmax", 70, lambda: nn.Softmax(dim=1), [ACT_IN]),
    case("activation", "softmax_dim0", 70, lambda: nn.Softmax(0), [ACT_IN]),
    case("activation", "log_softmax", 70, lambda: nn.LogSoftmax(dim=1), [ACT_IN]),
    case("activation", "softmin", 70, lambda: nn.Softmin(dim=-1), [ACT_IN]),
    case("activation", "softmax2d", 70, lambda: nn.Softmax2d(), [R(2, 3, 2, 2)]),
    case("activation", "leaky_relu", 70, lambda: nn.LeakyReLU(0.2), [ACT_IN]),
    case("activation", "leaky_relu_inplace", 70, lambda: nn.LeakyReLU(negative_slope=0.05, inplace=True), [ACT_IN], run=lambda m, xs: m(xs[0].clone())),
    case("activation", "elu", 70, lambda: nn.ELU(alpha=0.5), [ACT_IN]),
    case("activation", "celu", 70, lambda: nn.CELU(1.5), [ACT_IN]),
    case("activation", "selu", 70, lambda: nn.SELU(), [ACT_IN]),
    case("activation", "hardtanh", 70, lambda: nn.Hardtanh(-0.5, 2.0), [ACT_IN]),
    case("activation", "hardsigmoid", 70, lambda: nn.Hardsigmoid(), [ACT_IN]),
    case("activation", "hardswish", 70, lambda: nn.Hardswish(), [ACT_IN]),
    case("activation", "softplus", 70, lambda: nn.Softplus(beta=2, threshold=3), [ACT_IN]),
    case("activation", "mish", 70, lambda: nn.Mish(), [ACT_IN]),
    case("activation", "prelu", 71, lambda: nn.PReLU(3, init=0.1), [R(2, 3, 4)]),
    case("activation", "prelu_single", 72, lambda: nn.PReLU(), [ACT_IN]),
    case("activation", "softsign", 70, lambda: nn.Softsign(), [ACT_IN]),
    case("activation", "tanhshrink", 70, lambda: nn.Tanhshrink(), [ACT_IN]),
    case("activation", "threshold", 70, lambda: nn.Threshold(0.1, 20.0), [ACT_IN]),
    case("activation", "logsigmoid", 70, lambda: nn.LogSigmoid(), [ACT_IN]),
    case("activation", "glu", 70, lambda: nn.GLU(dim=1), [ACT_IN]),
    case("activation", "hardshrink", 70, lambda: nn.Hardshrink(0.3), [ACT_IN]),
    case("activation", "softshrink", 70, lambda: nn.Softshrink(lambd=0.3), [ACT_IN]),
    case("activation", "gelu_f64", 70, lambda: nn.GELU(), [R(3, 8, scale=2.5, dtype=F64)]),
    case("activation", "silu_f64", 70, lambda: nn.SiLU(), [R(3, 8, scale=2.5, dtype=F64)]),
    # pooling
    case("pooling", "maxpool2d", 80, lambda: nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True), [R(2, 2, 6, 7)]),
    case("pooling", "maxpool2d_dilation", 81, lambda: nn.MaxPool2d((2, 3), dilation=(1, 2)), [R(1, 3, 6, 8)]),
    case("pooling", "maxpool1d", 82, lambda: nn.MaxPool1d(3, stride=2), [R(2, 3, 9)]),
    case("pooling", "avgpool2d", 83, lambda: nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False), [R(2, 2, 6, 7)]),
    case("pooling", "avgpool2d_divisor", 84, lambda: nn.AvgPool2d(2, ceil_mode=True, divisor_override=3), [R(1, 2, 5, 5)]),
    case("pooling", "avgpool1d", 85, lambda: nn.AvgPool1d(3, stride=2, padding=1), [R(2, 3, 8)]),
    case("pooling", "adaptive_avgpool2d", 86, lambda: nn.AdaptiveAvgPool2d((3, 2)), [R(2, 3, 7, 5)]),
    case("pooling", "adaptive_avgpool2d_1", 87, lambda: nn.AdaptiveAvgPool2d(1), [R(2, 3, 4, 4)]),
    case("pooling", "adaptive_avgpool1d", 88, lambda: nn.AdaptiveAvgPool1d(4), [R(2, 3, 10)]),
    # shape
    case("shape", "flatten", 90, lambda: nn.Flatten(), [R(2, 3, 4)]),
    case("shape", "flatten_0_1", 91, lambda: nn.Flatten(0, 1), [R(2, 3, 4)]),
    case("shape", "unflatten", 92, lambda: nn.Unflatten(1, (2, 3)), [R(2, 6, 4)]),
    # containers
    case("container", "sequential_mlp", 100, lambda: nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.2), nn.Linear(8, 3), nn.LogSoftmax(dim=1)),
         [R(5, 4)], modes=("train", "eval")),
    case("container", "sequential_cnn", 101, lambda: nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
        nn.Sequential(nn.Conv2d(4, 4, 3, padding=1, groups=2, bias=False), nn.GroupNorm(2, 4), nn.GELU()),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 2)), [R(2, 1, 6, 6)], modes=("train", "eval")),
    # transformer (masks are built in the run functions, the same in nn/torch_test.go)
    case("transformer", "mha_self", 130, lambda: nn.MultiheadAttention(8, 2), [R(5, 2, 8)],
         run=lambda m, xs: m(xs[0], xs[0], xs[0])[0]),
    case("transformer", "mha_batch_first_masks", 131, lambda: nn.MultiheadAttention(8, 2, batch_first=True),
         [R(2, 3, 8), R(2, 4, 8), R(2, 4, 8), NOGRAD(R(3, 4))],
         run=lambda m, xs: m(xs[0], xs[1], xs[2], key_padding_mask=KPM_2x4, attn_mask=xs[3])[0]),
    case("transformer", "mha_per_head_weights", 132, lambda: nn.MultiheadAttention(8, 4, batch_first=True),
         [R(2, 3, 8), R(2, 4, 8)],
         run=lambda m, xs: m(xs[0], xs[1], xs[1], key_padding_mask=KPM_2x4, average_attn_weights=False)[1]),
    case("transformer", "mha_kdim_vdim_bias_kv", 133, lambda: nn.MultiheadAttention(8, 4, bias=False, add_bias_kv=True, kdim=6, vdim=5),
         [R(3, 2, 8), R(4, 2, 6), R(4, 2, 5)],
         run=lambda m, xs: m(xs[0], xs[1], xs[2], attn_mask=CAUSAL_3x4)[0]),
    case("transformer", "mha_kdim_weights", 134, lambda: nn.MultiheadAttention(6, 2, kdim=4, vdim=4, add_zero_attn=True),
         [R(3, 2, 6), R(4, 2, 4), NOGRAD(R(4, 2, 4))],
         run=lambda m, xs: m(xs[0], xs[1], xs[2])[1]),
    case("transformer", "mha_unbatched_dropout", 135, lambda: nn.MultiheadAttention(6, 3, dropout=0.3), [R(4, 6)],
         run=lambda m, xs: m(xs[0], xs[0], xs[0])[0], modes=("train", "eval")),
    case("transformer", "encoder_layer", 136, lambda: nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True),
         [R(2, 5, 8)], modes=("train", "eval")),
    case("transformer", "encoder_layer_gelu_norm_first", 137,
         lambda: nn.TransformerEncoderLayer(8, 2, 12, dropout=0.2, activation="gelu", layer_norm_eps=1e-6, norm_first=True),
         [R(4, 2, 8)], run=lambda m, xs: m(xs[0], src_key_padding_mask=KPM_2x4), modes=("train", "eval")),
    case("transformer", "encoder", 138,
         lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, dim_feedforward=16), 2, norm=nn.LayerNorm(8)),
         [R(3, 2, 8)], run=lambda m, xs: m(xs[0], mask=nn.Transformer.generate_square_subsequent_mask(3)), modes=("train", "eval")),
    case("transformer", "decoder_layer", 139, lambda: nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, batch_first=True),
         [R(2, 3, 8), R(2, 4, 8)], run=lambda m, xs: m(xs[0], xs[1], tgt_mask=CAUSAL_3x3), modes=("train", "eval")),
    case("transformer", "decoder_layer_gelu_norm_first", 140,
         lambda: nn.TransformerDecoderLayer(8, 2, dim_feedforward=12, dropout=0.0, activation="gelu", norm_first=True),
         [R(3, 2, 8), R(4, 2, 8)], run=lambda m, xs: m(xs[0], xs[1], memory_key_padding_mask=KPM_2x4)),
    # losses
    case("loss", "cross_entropy", 110, lambda: nn.CrossEntropyLoss(), [R(4, 5), NOGRAD(I([1, 0, 4, 2]))]),
    case("loss", "cross_entropy_weight_ignore_smooth", 111,
         lambda: nn.CrossEntropyLoss(weight=torch.tensor([0.5, 1.0, 2.0, 1.5, 0.25]), ignore_index=1, label_smoothing=0.2),
         [R(2, 5, 3), NOGRAD(I([[0, 1, 4], [1, 2, 3]]))]),
    case("loss", "cross_entropy_probs_sum", 112, lambda: nn.CrossEntropyLoss(reduction="sum", label_smoothing=0.1),
         [R(4, 5), NOGRAD(lambda g: torch.softmax(torch.randn(4, 5, generator=g), 1))]),
    case("loss", "cross_entropy_none", 113, lambda: nn.CrossEntropyLoss(reduction="none"), [R(3, 4), NOGRAD(I([3, 0, -100]))]),
    case("loss", "nll", 114, lambda: nn.NLLLoss(weight=torch.tensor([1.0, 2.0, 0.5]), reduction="sum", ignore_index=0),
         [lambda g: torch.log_softmax(torch.randn(5, 3, generator=g), 1), NOGRAD(I([0, 1, 2, 2, 1]))]),
    case("loss", "nll_mean_weight", 115, lambda: nn.NLLLoss(weight=torch.tensor([1.0, 2.0, 0.5])),
         [lambda g: torch.log_softmax(torch.randn(5, 3, generator=g), 1), NOGRAD(I([0, 1, 2, 2, 1]))]),
    case("loss", "mse", 116, lambda: nn.MSELoss(), [R(3, 4), NOGRAD(R(3, 4))]),
    case("loss", "mse_sum_broadcast", 117, lambda: nn.MSELoss(reduction="sum"), [R(3, 4), NOGRAD(R(4))]),
    case("loss", "l1_none", 118, lambda: nn.L1Loss(reduction="none"), [R(3, 4), NOGRAD(R(3, 4))]),
    case("loss", "smooth_l1", 119, lambda: nn.SmoothL1Loss(beta=0.5), [R(3, 4), NOGRAD(R(3, 4))]),
    case("loss", "huber", 120, lambda: nn.HuberLoss(delta=0.7, reduction="sum"), [R(3, 4), NOGRAD(R(3, 4))]),
    case("loss", "bce", 121, lambda: nn.BCELoss(weight=torch.tensor([1.0, 0.5, 2.0])), [U(0.05, 0.95, 4, 3), NOGRAD(U(0, 1, 4, 3))]),
    case("loss", "bce_logits_pos_weight", 122, lambda: nn.BCEWithLogitsLoss(weight=torch.tensor([[1.0], [0.5], [2.0], [1.0]]), pos_weight=torch.tensor([1.0, 3.0, 0.5])),
         [R(4, 3), NOGRAD(U(0, 1, 4, 3))]),
    case("loss", "kldiv_batchmean", 123, lambda: nn.KLDivLoss(reduction="batchmean"),
         [lambda g: torch.log_softmax(torch.randn(3, 4, generator=g), 1), NOGRAD(lambda g: torch.softmax(torch.randn(3, 4, generator=g), 1))]),
    case("loss", "kldiv_log_target_sum", 124, lambda: nn.KLDivLoss(reduction="sum", log_target=True),
         [lambda g: torch.log_softmax(torch.randn(3, 4, generator=g), 1), NOGRAD(lambda g: torch.log_softmax(torch.randn(3, 4, generator=g), 1))]),
    case("loss", "kldiv_mean", 125, lambda: nn.KLDivLoss(),
         [lambda g: torch.log_softmax(torch.randn(3, 4, generator=g), 1), NOGRAD(lambda g: torch.softmax(torch.randn(3, 4, generator=g), 1))]),
]


# Error cases: PyTorch's exception class and message.
ERRORS = [
    ("linear_bad_input", lambda: nn.Linear(3, 4)(torch.randn(2, 5))),
    ("linear_bad_keyword", lambda: nn.Linear(3, 4, stride=2)),
    ("conv_in_groups", lambda: nn.Conv2d(3, 4, 3, groups=2)),
    ("conv_out_groups", lambda: nn.Conv2d(4, 3, 3, groups=2)),
    ("conv_groups_zero", lambda: nn.Conv2d(4, 4, 3, groups=0)),
    ("conv_same_strided", lambda: nn.Conv2d(2, 2, 3, stride=2, padding="same")),
    ("conv_transpose_padding_mode", lambda: nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect")),
    ("conv_input_dims", lambda: nn.Conv2d(2, 3, 3)(torch.randn(2, 5))),
    ("conv_input_channels", lambda: nn.Conv2d(2, 3, 3)(torch.randn(1, 4, 5, 5))),
    ("conv_transpose_output_size", lambda: nn.ConvTranspose2d(2, 2, 3, stride=2)(torch.randn(1, 2, 4, 4), output_size=[20, 20])),
    ("batchnorm1d_dims", lambda: nn.BatchNorm1d(3)(torch.randn(2, 3, 4, 5))),
    ("batchnorm2d_dims", lambda: nn.BatchNorm2d(3)(torch.randn(2, 3, 4))),
    ("batchnorm_one_value", lambda: nn.BatchNorm1d(3)(torch.randn(1, 3))),
    ("layernorm_shape", lambda: nn.LayerNorm(4)(torch.randn(2, 3))),
    ("groupnorm_divisible", lambda: nn.GroupNorm(4, 6)),
    ("groupnorm_input", lambda: nn.GroupNorm(2, 6)(torch.randn(2, 4, 3))),
    ("rmsnorm_shape", lambda: RMSNorm([2, 3])(torch.randn(3, 2))),
    ("embedding_out_of_range", lambda: nn.Embedding(5, 2)(torch.tensor([1, 5]))),
    ("embeddingbag_2d_offsets", lambda: nn.EmbeddingBag(5, 2)(torch.tensor([[1, 2]]), torch.tensor([0]))),
    ("embeddingbag_1d_no_offsets", lambda: nn.EmbeddingBag(5, 2)(torch.tensor([1, 2]))),
    ("embeddingbag_weights_mean", lambda: nn.EmbeddingBag(5, 2)(torch.tensor([[1, 2]]), per_sample_weights=torch.ones(1, 2))),
    ("embeddingbag_mode", lambda: nn.EmbeddingBag(5, 2, mode="median")(torch.tensor([[1, 2]]))),
    ("dropout_p", lambda: nn.Dropout(1.5)),
    ("loss_reduction", lambda: nn.MSELoss(reduction="avg")(torch.randn(2), torch.randn(2))),
    ("bce_target_size", lambda: nn.BCELoss()(torch.rand(3), torch.rand(3, 1))),
    ("bce_logits_target_size", lambda: nn.BCEWithLogitsLoss()(torch.randn(3), torch.rand(3, 1))),
    ("unflatten_sizes", lambda: nn.Unflatten(1, (2, 4))(torch.randn(2, 6))),
    ("sequential_index", lambda: nn.Sequential(nn.ReLU(), nn.Tanh())[2]),
]

# TransformerDecoder and Transformer (issue 26): their own section, added to
# CASES and ERRORS. nn.Transformer redraws every parameter of more than one
# dimension with xavier_uniform_ after building its layers, so these cases
# also hold that order of draws.
SQUARE_3 = nn.Transformer.generate_square_subsequent_mask(3)
SQUARE_4 = nn.Transformer.generate_square_subsequent_mask(4)
KPM_2x3 = torch.tensor([[False, False, True], [False, False, False]])
KPM_4 = torch.tensor([False, True, False, False])

TRANSFORMER_CASES = [
    case("transformer", "decoder", 141,
         lambda: nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, dim_feedforward=16), 2, norm=nn.LayerNorm(8)),
         [R(3, 2, 8), R(4, 2, 8)],
         run=lambda m, xs: m(xs[0], xs[1], tgt_mask=SQUARE_3, memory_key_padding_mask=KPM_2x4), modes=("train", "eval")),
    case("transformer", "decoder_batch_first_gelu_norm_first", 142,
         lambda: nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 4, 12, dropout=0.2, activation="gelu", norm_first=True, batch_first=True), 3),
         [R(2, 3, 8), R(2, 4, 8)],
         run=lambda m, xs: m(xs[0], xs[1], tgt_mask=SQUARE_3, memory_mask=CAUSAL_3x4, tgt_key_padding_mask=KPM_2x3),
         modes=("train", "eval")),
    case("transformer", "transformer", 143,
         lambda: nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=16),
         [R(4, 2, 8), R(3, 2, 8)],
         run=lambda m, xs: m(xs[0], xs[1], src_key_padding_mask=KPM_2x4, tgt_mask=SQUARE_3, memory_key_padding_mask=KPM_2x4),
         modes=("train", "eval")),
    case("transformer", "transformer_batch_first_norm_first_gelu_f64", 144,
         lambda: nn.Transformer(8, 4, 1, 2, 12, dropout=0.15, activation="gelu", layer_norm_eps=1e-6, batch_first=True, norm_first=True, dtype=F64),
         [R(2, 4, 8, dtype=F64), R(2, 3, 8, dtype=F64)],
         run=lambda m, xs: m(xs[0], xs[1], src_mask=SQUARE_4.to(F64), tgt_mask=CAUSAL_3x3, memory_mask=CAUSAL_3x4),
         modes=("train", "eval")),
    case("transformer", "transformer_unbatched", 145,
         lambda: nn.Transformer(8, 2, 1, 1, 16, dropout=0.3),
         [R(4, 8), R(3, 8)],
         run=lambda m, xs: m(xs[0], xs[1], src_key_padding_mask=KPM_4, tgt_mask=SQUARE_3), modes=("train", "eval")),
    case("transformer", "transformer_custom_encoder", 146,
         lambda: nn.Transformer(8, 2, custom_encoder=nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 1),
                                num_decoder_layers=1, dim_feedforward=16, dropout=0.0),
         [R(4, 2, 8), R(3, 2, 8)]),
]

TRANSFORMER_ERRORS = [
    ("transformer_batch", lambda: nn.Transformer(8, 2, 1, 1, 16)(torch.randn(4, 2, 8), torch.randn(3, 3, 8))),
    ("transformer_batch_first_batch", lambda: nn.Transformer(8, 2, 1, 1, 16, batch_first=True)(torch.randn(2, 4, 8), torch.randn(3, 3, 8))),
    ("transformer_features", lambda: nn.Transformer(8, 2, 1, 1, 16)(torch.randn(4, 2, 8), torch.randn(3, 2, 6))),
    ("transformer_activation", lambda: nn.Transformer(8, 2, 1, 1, 16, activation="tanh")),
]

CASES += TRANSFORMER_CASES
ERRORS += TRANSFORMER_ERRORS


# Recurrent layers (nn.RNN, nn.LSTM, nn.GRU and their cells), recorded in
# the group "rnn" (nn/rnn_torch_test.go). A case's forward returns one
# tensor: a cell's output as it is, else every output the layer returns
# (output, h_n and, for an LSTM, c_n), flattened and concatenated, so that
# the gradients flow through all of them. Inputs after the first are the
# initial states: h_0, or h_0 and c_0 for an LSTM.
def _rnn_flat(r):
    if isinstance(r, torch.Tensor):
        return r
    ts = []

    def walk(x):
        if isinstance(x, tuple):
            for y in x:
                walk(y)
        else:
            ts.append(x.reshape(-1))

    walk(r)
    return torch.cat(ts)


def _rnn_run(m, xs):
    hx = None
    if len(xs) == 2:
        hx = xs[1]
    elif len(xs) == 3:
        hx = (xs[1], xs[2])
    return _rnn_flat(m(xs[0], hx))


def rnn_cases():
    def c(name, seed, build, inputs, modes=("train",)):
        return case("rnn", name, seed, build, inputs, run=_rnn_run, modes=modes)

    both = ("train", "eval")
    return [
        c("rnn_tanh", 150, lambda: nn.RNN(4, 5), [R(6, 2, 4)]),
        c("rnn_relu_2l_bidir_bf_h0", 151, lambda: nn.RNN(4, 5, num_layers=2, nonlinearity="relu", batch_first=True, bidirectional=True),
          [R(3, 5, 4), R(4, 3, 5)]),
        c("rnn_3l_nobias_dropout", 152, lambda: nn.RNN(3, 4, num_layers=3, bias=False, dropout=0.4), [R(5, 2, 3)], modes=both),
        c("rnn_unbatched_h0", 153, lambda: nn.RNN(3, 4, num_layers=2, batch_first=True), [R(5, 3), R(2, 4)]),
        c("lstm", 154, lambda: nn.LSTM(4, 5), [R(6, 2, 4)]),
        c("lstm_2l_bidir_bf_h0", 155, lambda: nn.LSTM(4, 5, num_layers=2, batch_first=True, bidirectional=True),
          [R(3, 5, 4), R(4, 3, 5), R(4, 3, 5)]),
        c("lstm_2l_bidir_dropout", 156, lambda: nn.LSTM(3, 4, num_layers=2, dropout=0.5, bidirectional=True), [R(5, 2, 3)], modes=both),
        c("lstm_nobias_unbatched_h0", 157, lambda: nn.LSTM(3, 4, bias=False), [R(5, 3), R(1, 4), R(1, 4)]),
        c("lstm_proj", 158, lambda: nn.LSTM(4, 6, proj_size=3), [R(5, 2, 4)]),
        c("lstm_proj_2l_bidir_bf_h0_dropout", 159,
          lambda: nn.LSTM(4, 6, num_layers=2, proj_size=3, batch_first=True, bidirectional=True, dropout=0.3),
          [R(2, 4, 4), R(4, 2, 3), R(4, 2, 6)], modes=both),
        c("lstm_f64", 160, lambda: nn.LSTM(3, 4, num_layers=2, dtype=F64), [R(5, 2, 3, dtype=F64)]),
        c("gru", 161, lambda: nn.GRU(4, 5), [R(6, 2, 4)]),
        c("gru_2l_bidir_bf_h0", 162, lambda: nn.GRU(4, 5, num_layers=2, batch_first=True, bidirectional=True), [R(3, 5, 4), R(4, 3, 5)]),
        c("gru_3l_dropout_h0", 163, lambda: nn.GRU(3, 4, num_layers=3, dropout=0.25), [R(5, 2, 3), R(3, 2, 4)], modes=both),
        c("gru_bidir_nobias_f64", 164, lambda: nn.GRU(3, 4, bias=False, bidirectional=True, dtype=F64), [R(5, 2, 3, dtype=F64)]),
        c("rnn_cell", 170, lambda: nn.RNNCell(4, 5), [R(3, 4), R(3, 5)]),
        c("rnn_cell_relu_nobias", 171, lambda: nn.RNNCell(4, 5, bias=False, nonlinearity="relu"), [R(3, 4)]),
        c("rnn_cell_unbatched", 172, lambda: nn.RNNCell(4, 5), [R(4), R(5)]),
        c("lstm_cell", 173, lambda: nn.LSTMCell(4, 5), [R(3, 4), R(3, 5), R(3, 5)]),
        c("lstm_cell_nobias_unbatched", 174, lambda: nn.LSTMCell(4, 5, bias=False), [R(4)]),
        c("gru_cell", 175, lambda: nn.GRUCell(4, 5), [R(3, 4), R(3, 5)]),
        c("gru_cell_nobias_unbatched", 176, lambda: nn.GRUCell(4, 5, bias=False), [R(4), R(5)]),
        c("gru_cell_f64", 177, lambda: nn.GRUCell(3, 4, dtype=F64), [R(2, 3, dtype=F64)]),
    ]


def rnn_errors():
    x = lambda *s: torch.randn(*s)  # noqa: E731
    return [
        ("rnn_input_size", lambda: nn.RNN(10, 20)(x(3, 2, 5))),
        ("rnn_input_dims", lambda: nn.GRU(10, 20)(x(3, 2, 10, 1))),
        ("rnn_empty_sequence", lambda: nn.LSTM(10, 20)(x(0, 2, 10))),
        ("rnn_hidden_size", lambda: nn.RNN(10, 20)(x(3, 2, 10), x(1, 3, 20))),
        ("rnn_batched_hx_dims", lambda: nn.GRU(10, 20)(x(3, 2, 10), x(2, 20))),
        ("rnn_unbatched_hx_dims", lambda: nn.RNN(10, 20)(x(3, 10), x(1, 1, 20))),
        ("lstm_c0_size", lambda: nn.LSTM(10, 20)(x(3, 2, 10), (x(1, 2, 20), x(1, 2, 21)))),
        ("lstm_proj_hidden_size", lambda: nn.LSTM(10, 20, proj_size=5)(x(3, 2, 10), (x(1, 2, 20), x(1, 2, 20)))),
        ("lstm_batched_hx_dims", lambda: nn.LSTM(10, 20)(x(3, 2, 10), (x(2, 20), x(1, 2, 20)))),
        ("lstm_unbatched_hx_dims", lambda: nn.LSTM(10, 20)(x(3, 10), (x(1, 20), x(1, 1, 20)))),
        ("rnn_proj_size", lambda: nn.RNN(10, 20, proj_size=2)),
        ("gru_proj_size", lambda: nn.GRU(10, 20, proj_size=2)),
        ("rnn_nonlinearity", lambda: nn.RNN(10, 20, nonlinearity="gelu")),
        ("rnn_dropout_range", lambda: nn.LSTM(10, 20, dropout=1.5)),
        ("lstm_proj_size_negative", lambda: nn.LSTM(10, 20, proj_size=-1)),
        ("lstm_proj_size_too_big", lambda: nn.LSTM(10, 20, proj_size=20)),
        ("rnn_bad_keyword", lambda: nn.LSTM(10, 20, nonlinearity="relu")),
        ("rnn_cell_input_size", lambda: nn.RNNCell(10, 20)(x(3, 5))),
        ("rnn_cell_batch", lambda: nn.GRUCell(10, 20)(x(3, 10), x(2, 20))),
        ("rnn_cell_hidden_size", lambda: nn.RNNCell(10, 20)(x(3, 10), x(3, 21))),
        ("rnn_cell_unbatched_hidden", lambda: nn.RNNCell(10, 20)(x(10), x(3, 20))),
        ("lstm_cell_hidden_size", lambda: nn.LSTMCell(10, 20)(x(3, 10), (x(3, 20), x(3, 21)))),
        ("rnn_cell_nonlinearity", lambda: nn.RNNCell(10, 20, nonlinearity="gelu")(x(3, 10))),
        ("rnn_cell_bad_keyword", lambda: nn.LSTMCell(10, 20, nonlinearity="relu")),
    ]


CASES += rnn_cases()
ERRORS += rnn_errors()


DTYPES = {torch.float32: "F32", torch.float64: "F64", torch.int64: "I64"}


# torch.nn.init (issue 26), in its own files: testdata/nn/init.safetensors
# (keys "<case>/out", the tensor the init function filled, and
# "<case>/after", torch.rand(4) drawn next from the default stream, which
# shows how many numbers the function drew) and testdata/nn/init.json (the
# cases with the call as written here, and the error cases). Each case
# runs after torch.manual_seed(seed) on torch.empty(shape, dtype)
# (nn/init/torch_test.go).
init = nn.init

INIT_CASES = [
    ("uniform", 200, (3, 5), torch.float32, lambda t: init.uniform_(t, -0.5, 2.0)),
    ("normal_f64", 201, (4, 6), F64, lambda t: init.normal_(t, 1.0, 0.3)),
    ("constant", 202, (2, 3), torch.float32, lambda t: init.constant_(t, 0.7)),
    ("ones", 202, (2, 3), torch.float32, lambda t: init.ones_(t)),
    ("zeros_f64", 202, (2, 3), F64, lambda t: init.zeros_(t)),
    ("xavier_uniform_gain", 203, (6, 4, 3, 3), torch.float32, lambda t: init.xavier_uniform_(t, gain=init.calculate_gain("tanh"))),
    ("xavier_normal", 204, (5, 7), torch.float32, lambda t: init.xavier_normal_(t)),
    ("kaiming_uniform_fan_out", 205, (8, 3, 2), torch.float32, lambda t: init.kaiming_uniform_(t, a=0.2, mode="fan_out")),
    ("kaiming_normal_relu_f64", 206, (6, 5), F64, lambda t: init.kaiming_normal_(t, mode="fan_in", nonlinearity="relu")),
    ("trunc_normal", 207, (40, 25), torch.float32, lambda t: init.trunc_normal_(t)),
    ("trunc_normal_args", 208, (6, 7), torch.float32, lambda t: init.trunc_normal_(t, mean=0.5, std=2.0, a=-1.0, b=3.0)),
    ("trunc_normal_bf16", 220, (5, 8), torch.bfloat16, lambda t: init.trunc_normal_(t, std=0.5)),
    ("trunc_normal_f64", 209, (30, 20), F64, lambda t: init.trunc_normal_(t, mean=-0.2, std=0.02, a=-0.24, b=-0.17)),
    ("eye", 210, (3, 5), torch.float32, lambda t: init.eye_(t)),
    ("eye_tall_f64", 210, (4, 2), F64, lambda t: init.eye_(t)),
    ("dirac_1d", 211, (4, 2, 3), torch.float32, lambda t: init.dirac_(t)),
    ("dirac_2d_groups", 211, (6, 4, 3, 4), torch.float32, lambda t: init.dirac_(t, groups=2)),
    ("dirac_3d_groups", 211, (6, 1, 2, 3, 3), F64, lambda t: init.dirac_(t, 3)),
    ("orthogonal", 212, (3, 5), torch.float32, lambda t: init.orthogonal_(t)),
    ("orthogonal_tall_f64", 213, (6, 4), F64, lambda t: init.orthogonal_(t)),
    ("orthogonal_square", 214, (10, 10), torch.float32, lambda t: init.orthogonal_(t)),
    ("orthogonal_conv_gain", 215, (4, 3, 2, 2), torch.float32, lambda t: init.orthogonal_(t, gain=2.0)),
    ("orthogonal_relu_gain_f64", 216, (20, 8), F64, lambda t: init.orthogonal_(t, gain=init.calculate_gain("relu"))),
    ("orthogonal_empty", 217, (0, 3), torch.float32, lambda t: init.orthogonal_(t)),
    ("sparse", 218, (6, 5), torch.float32, lambda t: init.sparse_(t, 0.3)),
    ("sparse_f64", 219, (10, 4), F64, lambda t: init.sparse_(t, sparsity=0.5, std=0.1)),
]

INIT_ERRORS = [
    ("eye_dims", lambda: init.eye_(torch.empty(3))),
    ("dirac_dims", lambda: init.dirac_(torch.empty(3, 3))),
    ("dirac_groups", lambda: init.dirac_(torch.empty(5, 2, 3), groups=2)),
    ("orthogonal_dims", lambda: init.orthogonal_(torch.empty(4))),
    ("sparse_dims", lambda: init.sparse_(torch.empty(2, 3, 4), 0.1)),
    ("xavier_dims", lambda: init.xavier_uniform_(torch.empty(5))),
    ("kaiming_mode", lambda: init.kaiming_normal_(torch.empty(3, 4), mode="fan_avg")),
    ("gain_nonlinearity", lambda: init.calculate_gain("gelu")),
    ("eye_bfloat16", lambda: init.eye_(torch.empty(2, 3, dtype=torch.bfloat16))),
    ("orthogonal_half", lambda: init.orthogonal_(torch.empty(2, 3, dtype=torch.half))),
    ("trunc_normal_half", lambda: init.trunc_normal_(torch.empty(2, 3, dtype=torch.half))),
]


def record_init():
    tensors, cases = {}, []
    for name, seed, shape, dtype, f in INIT_CASES:
        torch.manual_seed(seed)
        t = torch.empty(shape, dtype=dtype)
        f(t)
        # bfloat16 is stored as float32, which holds it exactly.
        tensors[name + "/out"] = t.float() if dtype == torch.bfloat16 else t.clone()
        tensors[name + "/after"] = torch.rand(4)
        cases.append(dict(name=name, seed=seed, shape=list(shape), dtype="BF16" if dtype == torch.bfloat16 else DTYPES[dtype]))
    save_safetensors(os.path.join(OUT, "init.safetensors"), tensors)
    errors = []
    for name, f in INIT_ERRORS:
        try:
            f()
        except Exception as e:  # noqa: BLE001 -- recording what PyTorch raises
            errors.append(dict(name=name, kind=type(e).__name__, message=str(e)))
            continue
        raise SystemExit(f"error case {name} raised nothing")
    with open(os.path.join(OUT, "init.json"), "w") as f:
        json.dump(dict(torch=torch.__version__, cases=cases, errors=errors), f, indent=1)
        f.write("\n")
    print(f"init: {len(cases)} cases, {len(errors)} error cases")


def save_safetensors(path, tensors):
    header, blobs, off = {}, [], 0
    for k in sorted(tensors):
        t = tensors[k].detach().contiguous()
        data = t.numpy().tobytes()
        header[k] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [off, off + len(data)]}
        blobs.append(data)
        off += len(data)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def record(c, out):
    name = c["name"]
    torch.manual_seed(c["seed"])
    m = c["build"]()
    g = torch.Generator().manual_seed(10000 + c["seed"])
    inputs = [f(g) for f in c["inputs"]]
    grads = [x.is_floating_point() and not getattr(f, "nograd", False) for f, x in zip(c["inputs"], inputs)]
    pre = [[f(g) for f in p] for p in c["pre"]]
    sd = m.state_dict()
    for k, v in sd.items():
        out[f"{name}/state/{k}"] = v.clone()
    for i, x in enumerate(inputs):
        out[f"{name}/input/{i}"] = x
    for j, p in enumerate(pre):
        for i, x in enumerate(p):
            out[f"{name}/pre/{j}/{i}"] = x
    params = [k for k, _ in m.named_parameters()]
    for mode in c["modes"]:
        m.train(mode == "train")
        m.zero_grad(set_to_none=True)
        for p in pre:
            with torch.no_grad():
                c["run"](m, p)
        xs = [x.detach().clone().requires_grad_(r) for x, r in zip(inputs, grads)]
        y = c["run"](m, xs)
        go = torch.randn(y.shape, generator=g, dtype=y.dtype)
        (y * go).sum().backward()
        out[f"{name}/{mode}/output"] = y.detach()
        out[f"{name}/{mode}/grad_output"] = go
        for i, (x, r) in enumerate(zip(xs, grads)):
            if r:
                out[f"{name}/{mode}/grad/input/{i}"] = x.grad
        for k, p in m.named_parameters():
            if p.grad is not None:
                out[f"{name}/{mode}/grad/param/{k}"] = p.grad
        for k, v in m.state_dict().items():
            out[f"{name}/{mode}/state/{k}"] = v.clone()
    return dict(name=name, group=c["group"], seed=c["seed"], repr=repr(m), modes=list(c["modes"]),
                inputs=len(inputs), grad_inputs=grads, pre=len(pre), state=list(sd.keys()), params=params)


def main():
    os.makedirs(OUT, exist_ok=True)
    groups, index = {}, []
    names = set()
    for c in CASES:
        assert c["name"] not in names, c["name"]
        names.add(c["name"])
        index.append(record(c, groups.setdefault(c["group"], {})))
    for grp, tensors in groups.items():
        save_safetensors(os.path.join(OUT, grp + ".safetensors"), tensors)
    errors = []
    for name, f in ERRORS:
        try:
            f()
        except Exception as e:  # noqa: BLE001 -- recording what PyTorch raises
            errors.append(dict(name=name, kind=type(e).__name__, message=str(e)))
            continue
        raise SystemExit(f"error case {name} raised nothing")
    with open(os.path.join(OUT, "index.json"), "w") as f:
        json.dump(dict(torch=torch.__version__, cases=index, errors=errors), f, indent=1)
        f.write("\n")
    total = sum(os.path.getsize(os.path.join(OUT, g + ".safetensors")) for g in groups)
    print(f"{len(index)} cases, {len(errors)} error cases, {total} bytes in {len(groups)} files")
    record_init()


if __name__ == "__main__":
    main()

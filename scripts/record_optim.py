#!/usr/bin/python3
# Records PyTorch 1.13's torch.optim on small fixed parameters and gradients
# into optim/testdata/torch113.json.gz, which optim's tests replay:
#
#   optimizers  parameters (and state) after each of four steps of SGD, Adam,
#               AdamW, RMSprop and Adagrad (single-tensor path), float32 and
#               float64, one or two parameter groups;
#   schedulers  each group's learning rate (and momentum or beta1) after
#               construction and after each step(), or step(epoch);
#   plateau     ReduceLROnPlateau's learning rates after each metric;
#   clip        clip_grad_norm_'s total norm and clipped gradients, and
#               clip_grad_value_'s;
#   errors      the ValueError text of invalid arguments;
#   long        300 steps of Adam, AdamW, RMSprop and Adagrad on a quadratic
#               (gradient w·(p - target), computed from the parameter each
#               step), the parameter every 50 steps and at the end: long
#               enough for the running averages (addcmul's fused multiply-add)
#               to compound any difference in rounding.
#
# Run with Debian's PyTorch 1.13 (apt-get install python3-torch):
#   /usr/bin/python3 scripts/record_optim.py
# Tests do not need this script or PyTorch.
import gzip
import json
import math
import os
import warnings

import torch

warnings.simplefilter("ignore")
torch.set_num_threads(1)

# The third parameter is long enough for PyTorch's vectorized CPU loops.
P0 = [[0.5, -1.25, 2.0, 0.0, 3.5], [[0.1, -0.2], [0.3, 7.0]], [((i * 7) % 11 - 5) * 0.37 for i in range(37)]]


def long_grad(k):
    return [((i * 5 + 3 * k) % 13 - 6) * 0.21 / (k + 1) for i in range(37)]


# GRADS[step][param]; None: the parameter has no gradient at that step.
GRADS = [
    [[0.25, -0.5, 1.5, -2.0, 0.125], [[1.0, 0.0], [-3.0, 0.5]], long_grad(0)],
    [[-0.75, 0.5, 0.25, 4.0, -0.125], None, long_grad(1)],
    [[0.1, 0.2, -0.3, 0.4, -0.5], [[-0.01, 2.5], [0.0, -1.0]], None],
    [[1e-3, -1e-4, 1e-5, 0.0, 3.0], [[0.5, -0.5], [0.25, 0.125]], long_grad(3)],
]

O = torch.optim
# (name, class, constructor kwargs, extra groups: [(param indices, kwargs)]
# splitting the parameters; None: one group of all three).
OPTIMIZERS = [
    ("sgd", O.SGD, dict(lr=0.1), None),
    ("sgd momentum", O.SGD, dict(lr=0.05, momentum=0.9), None),
    ("sgd momentum dampening", O.SGD, dict(lr=0.05, momentum=0.8, dampening=0.3), None),
    ("sgd nesterov weight decay", O.SGD, dict(lr=0.02, momentum=0.9, nesterov=True, weight_decay=0.01), None),
    ("sgd weight decay maximize", O.SGD, dict(lr=0.1, weight_decay=0.5, maximize=True), None),
    ("sgd groups", O.SGD, dict(lr=0.1, momentum=0.5), [([0, 2], {}), ([1], dict(lr=0.01, momentum=0.0))]),
    ("adam", O.Adam, dict(), None),
    ("adam lr", O.Adam, dict(lr=0.01), None),
    ("adam weight decay", O.Adam, dict(lr=0.1, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1), None),
    ("adam amsgrad", O.Adam, dict(lr=0.05, amsgrad=True), None),
    ("adam maximize", O.Adam, dict(lr=0.01, maximize=True, weight_decay=0.02), None),
    ("adam beta1 zero", O.Adam, dict(lr=0.01, betas=(0.0, 0.99)), None),
    ("adam groups", O.Adam, dict(lr=0.01), [([1], dict(betas=(0.5, 0.9))), ([0, 2], dict(lr=0.1, amsgrad=True))]),
    ("adamw", O.AdamW, dict(lr=0.01), None),
    ("adamw no decay", O.AdamW, dict(lr=0.01, weight_decay=0.0), None),
    ("adamw amsgrad", O.AdamW, dict(lr=0.1, betas=(0.5, 0.9), eps=1e-4, weight_decay=0.3, amsgrad=True), None),
    ("rmsprop", O.RMSprop, dict(), None),
    ("rmsprop alpha eps", O.RMSprop, dict(lr=0.001, alpha=0.9, eps=1e-6), None),
    ("rmsprop momentum", O.RMSprop, dict(lr=0.01, momentum=0.9), None),
    ("rmsprop centered", O.RMSprop, dict(lr=0.01, centered=True), None),
    ("rmsprop centered momentum weight decay", O.RMSprop, dict(lr=0.02, centered=True, momentum=0.5, weight_decay=0.1), None),
    ("rmsprop maximize", O.RMSprop, dict(lr=0.01, maximize=True, momentum=0.3), None),
    ("rmsprop groups", O.RMSprop, dict(lr=0.01), [([0], dict(centered=True)), ([1, 2], dict(momentum=0.9, alpha=0.5))]),
    ("adagrad", O.Adagrad, dict(), None),
    ("adagrad lr decay", O.Adagrad, dict(lr=0.1, lr_decay=0.5), None),
    ("adagrad weight decay accumulator", O.Adagrad, dict(lr=0.05, weight_decay=0.2, initial_accumulator_value=0.1), None),
    ("adagrad eps maximize", O.Adagrad, dict(lr=0.1, eps=1e-3, maximize=True), None),
    ("adagrad groups", O.Adagrad, dict(lr=0.1, initial_accumulator_value=0.5), [([2, 0], dict(lr_decay=0.1)), ([1], dict(lr=0.05, eps=1e-3))]),
]


def flat(t):
    return t.detach().to(torch.float64).reshape(-1).tolist()


def jsonable(v):
    if isinstance(v, tuple):
        return list(v)
    return v


def record_optimizer(name, cls, kw, groups, dtype):
    ps = [torch.tensor(p, dtype=dtype) for p in P0]
    if groups is None:
        opt = cls(ps, **kw)
        order = [0, 1, 2]
    else:
        opt = cls([dict(params=[ps[i] for i in idx], **gkw) for idx, gkw in groups], **kw)
        order = [i for idx, _ in groups for i in idx]
    steps = []
    for grads in GRADS:
        for p, g in zip(ps, grads):
            p.grad = None if g is None else torch.tensor(g, dtype=dtype)
        opt.step()
        steps.append([flat(p) for p in ps])
    # Final state by the parameter's index in opt's order (Go's Params()).
    state = {}
    for k, i in enumerate(order):
        st = opt.state.get(ps[i], {})
        entry = {}
        for key, v in st.items():
            if key == "step":
                entry["step"] = int(v.item()) if torch.is_tensor(v) else int(v)
            elif torch.is_tensor(v):
                entry[key] = flat(v)
        if entry:
            state[str(k)] = entry
    return dict(
        name=name, optimizer=cls.__name__, kwargs={k: jsonable(v) for k, v in kw.items()},
        groups=None if groups is None else [dict(params=idx, kwargs={k: jsonable(v) for k, v in g.items()}) for idx, g in groups],
        dtype=str(dtype).replace("torch.", ""), steps=steps, state=state)


# (name, class, kwargs) of the long runs; their quadratic is LONG_TARGET and
# LONG_WEIGHT over 67 elements (past PyTorch's vectorized blocks).
LONG = [
    ("adam long", O.Adam, dict(lr=0.01)),
    ("adam long amsgrad weight decay", O.Adam, dict(lr=0.02, betas=(0.8, 0.95), weight_decay=0.01, amsgrad=True)),
    ("adamw long", O.AdamW, dict(lr=0.01, weight_decay=0.05)),
    ("rmsprop long centered momentum", O.RMSprop, dict(lr=0.002, centered=True, momentum=0.5)),
    ("adagrad long", O.Adagrad, dict(lr=0.05, lr_decay=0.01)),
]
LONG_STEPS = 300
LONG_P0 = [((i * 13) % 17 - 8) * 0.23 for i in range(67)]
LONG_TARGET = [((i * 7) % 19 - 9) * 0.11 for i in range(67)]
LONG_WEIGHT = [0.05 + ((i * 3) % 23) * 0.137 for i in range(67)]


def record_long(name, cls, kw, dtype):
    p = torch.tensor(LONG_P0, dtype=dtype)
    target = torch.tensor(LONG_TARGET, dtype=dtype)
    w = torch.tensor(LONG_WEIGHT, dtype=dtype)
    opt = cls([p], **kw)
    checkpoints = {}
    for k in range(1, LONG_STEPS + 1):
        p.grad = (p.detach() - target) * w
        opt.step()
        if k % 50 == 0:
            checkpoints[str(k)] = flat(p)
    return dict(name=name, optimizer=cls.__name__, kwargs={k: jsonable(v) for k, v in kw.items()},
                dtype=str(dtype).replace("torch.", ""), steps=LONG_STEPS, checkpoints=checkpoints)


S = O.lr_scheduler
# (name, optimizer kwargs per group, optimizer class, scheduler builder, steps, epochs for step(epoch))
SCHEDULERS = [
    ("steplr", O.SGD, [dict(lr=0.1), dict(lr=0.03)], ("StepLR", dict(step_size=3)), 10, None),
    ("steplr gamma", O.SGD, [dict(lr=0.1)], ("StepLR", dict(step_size=2, gamma=0.7)), 9, None),
    ("steplr closed", O.SGD, [dict(lr=0.1)], ("StepLR", dict(step_size=2, gamma=0.7)), 0, [1, 2, 5, 3, 8, 0, 13]),
    ("multisteplr", O.SGD, [dict(lr=1.0), dict(lr=0.2)], ("MultiStepLR", dict(milestones=[2, 5, 5, 9], gamma=0.5)), 11, None),
    ("multisteplr closed", O.SGD, [dict(lr=1.0)], ("MultiStepLR", dict(milestones=[2, 5, 5, 9], gamma=0.3)), 0, [1, 2, 4, 5, 6, 9, 12, 3]),
    ("exponentiallr", O.SGD, [dict(lr=0.1), dict(lr=0.5)], ("ExponentialLR", dict(gamma=0.9)), 12, None),
    ("exponentiallr closed", O.SGD, [dict(lr=0.1)], ("ExponentialLR", dict(gamma=0.9)), 0, [1, 5, 12, 30, 2]),
    ("cosine", O.SGD, [dict(lr=0.1), dict(lr=0.01)], ("CosineAnnealingLR", dict(T_max=10)), 25, None),
    ("cosine eta_min", O.SGD, [dict(lr=0.05)], ("CosineAnnealingLR", dict(T_max=7, eta_min=0.001)), 30, None),
    ("cosine closed", O.SGD, [dict(lr=0.05)], ("CosineAnnealingLR", dict(T_max=7, eta_min=0.001)), 0, [1, 3, 7, 8, 14, 20, 2]),
    ("linearlr", O.SGD, [dict(lr=0.1), dict(lr=0.02)], ("LinearLR", dict()), 8, None),
    ("linearlr warmup", O.Adam, [dict(lr=1e-3)], ("LinearLR", dict(start_factor=0.1, end_factor=1.0, total_iters=4)), 7, None),
    ("linearlr decay", O.SGD, [dict(lr=0.5)], ("LinearLR", dict(start_factor=1.0, end_factor=0.25, total_iters=6)), 8, None),
    ("linearlr closed", O.SGD, [dict(lr=0.5)], ("LinearLR", dict(start_factor=0.2, end_factor=0.9, total_iters=6)), 0, [1, 2, 5, 6, 9, 3]),
    ("onecycle sgd", O.SGD, [dict(lr=0.1, momentum=0.9), dict(lr=0.1, momentum=0.9)], ("OneCycleLR", dict(max_lr=[0.1, 0.05], total_steps=20)), 19, None),
    ("onecycle adam linear", O.Adam, [dict(lr=1e-3)], ("OneCycleLR", dict(max_lr=0.01, total_steps=15, anneal_strategy="linear", pct_start=0.4)), 14, None),
    ("onecycle three phase", O.SGD, [dict(lr=0.1, momentum=0.9)], ("OneCycleLR", dict(max_lr=0.2, epochs=3, steps_per_epoch=7, three_phase=True, div_factor=10.0, final_div_factor=100.0, base_momentum=0.8, max_momentum=0.9)), 20, None),
    ("onecycle no momentum", O.Adagrad, [dict(lr=0.1)], ("OneCycleLR", dict(max_lr=0.3, total_steps=10, cycle_momentum=False)), 9, None),
    ("onecycle rmsprop", O.RMSprop, [dict(lr=0.01)], ("OneCycleLR", dict(max_lr=0.05, total_steps=12, base_momentum=[0.7], max_momentum=0.9)), 11, None),
    ("chained steplr exponentiallr", O.SGD, [dict(lr=0.1)], ("chain", None), 9, None),
    ("sequential warmup cosine", O.SGD, [dict(lr=0.1), dict(lr=0.02)], ("SequentialLR", None), 15, None),
]


def build_scheduler(kind, args, opt):
    if kind == "chain":
        return [S.StepLR(opt, step_size=3, gamma=0.5), S.ExponentialLR(opt, gamma=0.9)]
    if kind == "SequentialLR":
        warm = S.LinearLR(opt, start_factor=0.25, total_iters=3)
        cos = S.CosineAnnealingLR(opt, T_max=8, eta_min=1e-4)
        return [S.SequentialLR(opt, [warm, cos], milestones=[3])]
    return [getattr(S, kind)(opt, **args)]


def momenta(opt):
    out = []
    for g in opt.param_groups:
        if "betas" in g:
            out.append(g["betas"][0])
        else:
            out.append(g.get("momentum", 0.0))
    return out


def record_scheduler(name, cls, groups, kind_args, steps, epochs):
    kind, args = kind_args
    ps = [torch.zeros(2) for _ in groups]
    opt = cls([dict(params=[p], **g) for p, g in zip(ps, groups)])
    scheds = build_scheduler(kind, args, opt)
    lrs = [[g["lr"] for g in opt.param_groups]]
    mom = [momenta(opt)]
    for e in (range(steps) if epochs is None else epochs):
        opt.step()
        for s in scheds:
            if epochs is None:
                s.step()
            else:
                s.step(e)
        lrs.append([g["lr"] for g in opt.param_groups])
        mom.append(momenta(opt))
        assert lrs[-1] == scheds[-1].get_last_lr()
    return dict(name=name, optimizer=cls.__name__, groups=groups, scheduler=kind,
                args=None if args is None else {k: jsonable(v) for k, v in args.items()},
                epochs=epochs, lrs=lrs, momenta=mom,
                initial_lr=[g["initial_lr"] for g in opt.param_groups])


PLATEAU = [
    ("plateau min", [dict(lr=0.1), dict(lr=0.05)], dict(patience=2), [1.0, 0.9, 0.95, 0.91, 0.92, 0.93, 0.8, 0.85, 0.86, 0.87, 0.88, 0.89, 0.9]),
    ("plateau max abs cooldown", [dict(lr=1.0)], dict(mode="max", threshold_mode="abs", threshold=0.05, patience=1, cooldown=2, factor=0.5),
     [0.1, 0.2, 0.22, 0.23, 0.24, 0.25, 0.26, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]),
    ("plateau min_lr eps", [dict(lr=0.01), dict(lr=1e-3)], dict(patience=0, factor=0.5, min_lr=[1e-3, 4e-4], eps=1e-4),
     [5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0]),
    ("plateau max rel", [dict(lr=0.3)], dict(mode="max", patience=1, threshold=0.1), [1.0, 1.05, 1.2, 1.25, 1.3, 1.5, 1.5, 1.5]),
]


def record_plateau(name, groups, kw, metrics):
    ps = [torch.zeros(2) for _ in groups]
    opt = O.SGD([dict(params=[p], **g) for p, g in zip(ps, groups)])
    s = S.ReduceLROnPlateau(opt, **kw)
    lrs = []
    for m in metrics:
        s.step(m)
        lrs.append([g["lr"] for g in opt.param_groups])
    return dict(name=name, groups=groups, kwargs=kw, metrics=metrics, lrs=lrs)


CLIP_GRADS = [[0.3, -4.0, 1.25, 0.0, 2.5], None, [((i * 3) % 7 - 3) * 0.41 for i in range(37)], [[-0.2, 0.9], [1.7, -0.05]]]
CLIP = [
    ("norm 2", dict(max_norm=1.0)),
    ("norm 2 no clip", dict(max_norm=100.0)),
    ("norm 1", dict(max_norm=2.0, norm_type=1.0)),
    ("norm inf", dict(max_norm=0.5, norm_type=math.inf)),
    ("norm 3.5", dict(max_norm=1.5, norm_type=3.5)),
    ("value", dict(clip_value=0.75)),
]


def record_clip(name, kw, dtype):
    ps = []
    for g in CLIP_GRADS:
        p = torch.zeros(torch.tensor(g if g is not None else [0.0]).shape, dtype=dtype, requires_grad=True)
        p.grad = None if g is None else torch.tensor(g, dtype=dtype)
        ps.append(p)
    out = dict(name=name, kwargs={k: ("inf" if v == math.inf else v) for k, v in kw.items()}, dtype=str(dtype).replace("torch.", ""))
    if "clip_value" in kw:
        torch.nn.utils.clip_grad_value_(ps, **kw)
    else:
        total = torch.nn.utils.clip_grad_norm_(ps, **kw)
        out["total_norm"] = total.item()
    out["grads"] = [None if p.grad is None else flat(p.grad) for p in ps]
    return out


def error_of(f):
    try:
        f()
    except (ValueError, TypeError, RuntimeError) as e:
        return str(e)
    raise AssertionError("no error")


def p1():
    return [torch.zeros(2, requires_grad=True)]


ERRORS = [
    ("SGD", dict(lr=-0.1)),
    ("SGD", dict()),
    ("SGD", dict(lr=0.1, momentum=-0.5)),
    ("SGD", dict(lr=0.1, weight_decay=-1e-05)),
    ("SGD", dict(lr=0.1, nesterov=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, nesterov=True)),
    ("Adam", dict(lr=-1.0)),
    ("Adam", dict(eps=-1e-08)),
    ("Adam", dict(betas=(1.0, 0.999))),
    ("Adam", dict(betas=(0.9, -0.25))),
    ("Adam", dict(weight_decay=-0.5)),
    ("AdamW", dict(lr=-0.001)),
    ("RMSprop", dict(lr=-0.01)),
    ("RMSprop", dict(eps=-1.0)),
    ("RMSprop", dict(momentum=-0.1)),
    ("RMSprop", dict(weight_decay=-0.1)),
    ("RMSprop", dict(alpha=-0.99)),
    ("Adagrad", dict(lr=-0.01)),
    ("Adagrad", dict(lr_decay=-0.5)),
    ("Adagrad", dict(weight_decay=-0.5)),
    ("Adagrad", dict(initial_accumulator_value=-0.5)),
    ("Adagrad", dict(eps=-1e-10)),
    ("SGD", dict(lr=0.1, betas=(0.9, 0.99))),
]


def record_errors():
    out = []
    for cls, kw in ERRORS:
        msg = error_of(lambda: getattr(O, cls)(p1(), **kw))
        out.append(dict(optimizer=cls, kwargs={k: jsonable(v) for k, v in kw.items()}, error=msg))
    return out


def main():
    out = dict(torch_version=torch.__version__, params0=P0, grads=GRADS,
               clip_grads=CLIP_GRADS, optimizers=[], schedulers=[], plateau=[], clip=[],
               long_p0=LONG_P0, long_target=LONG_TARGET, long_weight=LONG_WEIGHT, long=[])
    for dtype in (torch.float32, torch.float64):
        for case in OPTIMIZERS:
            out["optimizers"].append(record_optimizer(*case, dtype))
        for name, kw in CLIP:
            out["clip"].append(record_clip(name, kw, dtype))
        for case in LONG:
            out["long"].append(record_long(*case, dtype))
    for case in SCHEDULERS:
        out["schedulers"].append(record_scheduler(*case))
    for case in PLATEAU:
        out["plateau"].append(record_plateau(*case))
    out["errors"] = record_errors()
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "optim", "testdata", "torch113.json.gz")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    data = json.dumps(out, indent=None, separators=(",", ":"), allow_nan=False).encode()
    with open(path, "wb") as f:
        # mtime=0: the same records give the same bytes.
        with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as gz:
            gz.write(data)
    print("wrote", os.path.normpath(path), len(data), "bytes of JSON")


if __name__ == "__main__":
    main()

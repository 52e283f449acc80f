package decomp

import (
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// Factories over full, full_like, empty_strided, arange.start_step and
// scalar_tensor.

func init() {
	def("aten::zeros", fullWith(0, args.ZerosOfOf))
	def("aten::ones", fullWith(1, func(a []any) args.ZerosOf { return args.ZerosOf(args.OnesOfOf(a)) }))
	def("aten::zeros_like", fullLikeWith(0, args.ZerosLikeOf))
	def("aten::ones_like", fullLikeWith(1, func(a []any) args.ZerosLike { return args.ZerosLike(args.OnesLikeOf(a)) }))
	def("aten::empty_like", emptyLike)
	def("aten::new_zeros", newFullWith(0, args.NewZerosOf))
	def("aten::new_ones", newFullWith(1, func(a []any) args.NewZeros { return args.NewZeros(args.NewOnesOf(a)) }))
	def("aten::new_full", newFull)
	def("aten::new_empty", newEmpty)
	def("aten::arange", arangeEnd)
	def("aten::arange.start", arangeStart)
	def("aten::eye", eye)
	def("aten::eye.m", eyeM)
	def("aten::linspace", linspace)
	def("aten::logspace", logspace)
	def("aten::one_hot", oneHot)
	def("aten::zero", zeroOp)
}

// factoryKw turns a factory's dtype and device arguments into keyword
// arguments, with dtype defaulted to d.
func factoryKw(dtype args.Opt[tensor.DType], device args.Opt[tensor.Device], d tensor.DType) map[string]any {
	kw := map[string]any{"dtype": dtype.Or(d)}
	if device.Ok {
		kw["device"] = device.V
	}
	return kw
}

// fullWith is zeros and ones; of reads the op's view (ones' converts to
// zeros').
func fullWith(v int, of func([]any) args.ZerosOf) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		p := of(a)
		return callKw("aten::full", []any{p.Size, v}, factoryKw(p.Dtype, p.Device, tensor.DefaultFloat))
	}
}

// likeKw is the keyword arguments of a *_like factory: those given.
func likeKw(p args.ZerosLike) map[string]any {
	kw := map[string]any{}
	if p.Dtype.Ok {
		kw["dtype"] = p.Dtype.V
	}
	if p.Device.Ok {
		kw["device"] = p.Device.V
	}
	if p.MemoryFormat.Ok {
		kw["memory_format"] = p.MemoryFormat.V
	}
	return kw
}

// fullLikeWith is zeros_like and ones_like; of reads the op's view
// (ones_like's converts to zeros_like's).
func fullLikeWith(v int, of func([]any) args.ZerosLike) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		p := of(a)
		return callKw("aten::full_like", []any{p.Self, v}, likeKw(p))
	}
}

// emptyLike keeps self's layout (dense strides) unless a memory format says otherwise.
func emptyLike(op *tensor.Op, a []any) any {
	p := args.EmptyLikeOf(a)
	x := p.Self
	m := p.MemoryFormat.Or(tensor.PreserveFormat)
	kw := map[string]any{"dtype": p.Dtype.Or(x.DType()), "device": p.Device.Or(x.Device())}
	return callKw("aten::empty_strided", []any{x.Shape(), core.LikeStrides(x, m)}, kw)
}

// newKw is the keyword arguments of a new_* factory: self's dtype and
// device unless given.
func newKw(x *T, dtype args.Opt[tensor.DType], device args.Opt[tensor.Device]) map[string]any {
	return map[string]any{"dtype": dtype.Or(x.DType()), "device": device.Or(x.Device())}
}

// newFullWith is new_zeros and new_ones; of reads the op's view
// (new_ones' converts to new_zeros').
func newFullWith(v int, of func([]any) args.NewZeros) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		p := of(a)
		return callKw("aten::full", []any{p.Size, v}, newKw(p.Self, p.Dtype, p.Device))
	}
}

func newFull(op *tensor.Op, a []any) any {
	p := args.NewFullOf(a)
	return callKw("aten::full", []any{p.Size, p.FillValue}, newKw(p.Self, p.Dtype, p.Device))
}

func newEmpty(op *tensor.Op, a []any) any {
	p := args.NewEmptyOf(a)
	return callKw("aten::empty.memory_format", []any{p.Size}, newKw(p.Self, p.Dtype, p.Device))
}

// arangeKw is the keyword arguments of a factory calling arange: the dtype
// and device given.
func arangeKw(dtype args.Opt[tensor.DType], device args.Opt[tensor.Device]) map[string]any {
	kw := map[string]any{}
	if dtype.Ok {
		kw["dtype"] = dtype.V
	}
	if device.Ok {
		kw["device"] = device.V
	}
	return kw
}

func arangeEnd(op *tensor.Op, a []any) any {
	p := args.ArangeEndOf(a)
	return callKw("aten::arange.start_step", []any{0, p.End, 1}, arangeKw(p.Dtype, p.Device))
}

func arangeStart(op *tensor.Op, a []any) any {
	p := args.ArangeStartOf(a)
	return callKw("aten::arange.start_step", []any{p.Start, p.End, 1}, arangeKw(p.Dtype, p.Device))
}

func eye(op *tensor.Op, a []any) any {
	p := args.EyeOf(a)
	return eyeOf(p.N, p.N, p.Dtype, p.Device)
}

func eyeM(op *tensor.Op, a []any) any {
	p := args.EyeMOf(a)
	return eyeOf(p.N, p.M, p.Dtype, p.Device)
}

func eyeOf(n, m int, dtype args.Opt[tensor.DType], device args.Opt[tensor.Device]) *T {
	if n < 0 {
		tensor.Panicf("n must be greater or equal to 0, got %d", n)
	}
	if m < 0 {
		tensor.Panicf("m must be greater or equal to 0, got %d", m)
	}
	// 1.13's CPU eye kernel dispatches over every type but BFloat16.
	if d := dtype.Or(tensor.DefaultFloat); d == tensor.BFloat16 {
		core.NotImplementedFor("eye", d)
	}
	kw := arangeKw(dtype, device)
	kw["dtype"] = tensor.Int64
	rows := callKw("aten::arange.start_step", []any{0, n, 1}, kw)
	cols := callKw("aten::arange.start_step", []any{0, m, 1}, kw)
	return rows.Unsqueeze(1).Eq(cols).To(dtype.Or(tensor.DefaultFloat))
}

// spaced fills steps points the way the CPU linspace kernel does: the first
// half counts up from start, the second half down from end, in the dtype's
// arithmetic (double for integer dtypes).
func spaced(dtype args.Opt[tensor.DType], device args.Opt[tensor.Device], start, end float64, steps int, f func(*T) *T) *T {
	tensor.Check(steps >= 0, "number of steps must be non-negative")
	d := dtype.Or(tensor.DefaultFloat)
	cd := d
	if !d.IsFloat() {
		cd = tensor.Float64
	}
	kw := arangeKw(dtype, device)
	kw["dtype"] = cd
	idx := callKw("aten::arange.start_step", []any{0, steps, 1}, kw)
	if steps <= 1 {
		return f(idx.MulScalar(0).AddScalar(start)).To(d)
	}
	s, e := opmathScalar(start, cd), opmathScalar(end, cd)
	step := (e - s) / float64(steps-1)
	if cd != tensor.Float64 {
		step = float64(float32(float32(e-s) / float32(steps-1)))
	}
	lo := idx.MulScalar(step).AddScalar(s)
	hi := rsub(float64(steps-1), idx).MulScalar(step).Neg().AddScalar(e)
	half := steps / 2
	return f(tensor.Where(idx.LtScalar(half), lo, hi)).To(d)
}

func linspace(op *tensor.Op, a []any) any {
	p := args.LinspaceOf(a)
	return spaced(p.Dtype, p.Device, p.Start.Float64(), p.End.Float64(), p.Steps, func(x *T) *T { return x })
}

func logspace(op *tensor.Op, a []any) any {
	p := args.LogspaceOf(a)
	base := p.Base
	return spaced(p.Dtype, p.Device, p.Start.Float64(), p.End.Float64(), p.Steps, func(x *T) *T {
		return tensor.PowScalarBase(opmathScalar(base, x.DType()), x)
	})
}

// oneHot compares each index with arange(num_classes); num_classes -1 means
// max + 1, which reads the data.
func oneHot(op *tensor.Op, a []any) any {
	p := args.OneHotOf(a)
	x, n := p.Self, p.NumClasses
	tensor.Check(x.DType() == tensor.Int64, "one_hot is only applicable to index tensor.")
	if x.Numel() == 0 {
		tensor.Check(n > 0, "Can not infer total number of classes from empty tensor.")
		return fullOn(x, append(x.Shape(), n), 0, tensor.Int64)
	}
	item := func(t *T) int64 { return tensor.Call("aten::_local_scalar_dense", t).(tensor.Scalar).Int64() }
	tensor.Check(item(x.Amin()) >= 0, "Class values must be non-negative.")
	if n == -1 {
		n = int(item(x.Amax())) + 1
	} else {
		tensor.Check(int64(n) > item(x.Amax()), "Class values must be smaller than num_classes.")
	}
	return x.Unsqueeze(-1).Eq(arangeOn(x, n)).To(tensor.Int64)
}

func zeroOp(op *tensor.Op, a []any) any { return args.ZeroOf(a).Self.FullLike(0) }

package decomp

import (
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// Factories over full, full_like, empty_strided, arange.start_step and
// scalar_tensor.

func init() {
	def("aten::zeros", fullWith(0))
	def("aten::ones", fullWith(1))
	def("aten::zeros_like", fullLikeWith(0))
	def("aten::ones_like", fullLikeWith(1))
	def("aten::empty_like", emptyLike)
	def("aten::new_zeros", newFullWith(0))
	def("aten::new_ones", newFullWith(1))
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

// factoryKw turns the trailing (dtype, layout, device, pin_memory) arguments
// starting at i into keyword arguments, with dtype defaulted to d.
func factoryKw(a []any, i int, d tensor.DType) map[string]any {
	kw := map[string]any{"dtype": tensor.OptDType(a[i], d), "device": a[i+2]}
	if kw["device"] == nil {
		delete(kw, "device")
	}
	return kw
}

func fullWith(v int) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		return callKw("aten::full", []any{a[0], v}, factoryKw(a, 1, tensor.DefaultFloat))
	}
}

func likeKw(a []any) map[string]any {
	kw := map[string]any{"dtype": a[1], "device": a[3], "memory_format": a[5]}
	for k, v := range kw {
		if v == nil {
			delete(kw, k)
		}
	}
	return kw
}

func fullLikeWith(v int) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		return callKw("aten::full_like", []any{ten(a, 0), v}, likeKw(a))
	}
}

// emptyLike keeps self's layout (dense strides) unless a memory format says otherwise.
func emptyLike(op *tensor.Op, a []any) any {
	x := ten(a, 0)
	m := tensor.PreserveFormat
	if a[5] != nil {
		m = a[5].(tensor.MemoryFormat)
	}
	kw := map[string]any{"dtype": tensor.OptDType(a[1], x.DType()), "device": x.Device()}
	if a[3] != nil {
		kw["device"] = a[3]
	}
	return callKw("aten::empty_strided", []any{x.Shape(), core.LikeStrides(x, m)}, kw)
}

// newKw is the keyword arguments of a new_* factory: self's dtype and
// device unless given.
func newKw(x *T, a []any, i int) map[string]any {
	kw := map[string]any{"dtype": tensor.OptDType(a[i], x.DType()), "device": x.Device()}
	if a[i+2] != nil {
		kw["device"] = a[i+2]
	}
	return kw
}

func newFullWith(v int) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		return callKw("aten::full", []any{a[1], v}, newKw(ten(a, 0), a, 2))
	}
}

func newFull(op *tensor.Op, a []any) any {
	return callKw("aten::full", []any{a[1], a[2]}, newKw(ten(a, 0), a, 3))
}

func newEmpty(op *tensor.Op, a []any) any {
	return callKw("aten::empty.memory_format", []any{a[1]}, newKw(ten(a, 0), a, 2))
}

func arangeKw(a []any, i int) map[string]any {
	kw := map[string]any{"dtype": a[i], "device": a[i+2]}
	for k, v := range kw {
		if v == nil {
			delete(kw, k)
		}
	}
	return kw
}

func arangeEnd(op *tensor.Op, a []any) any {
	return callKw("aten::arange.start_step", []any{0, a[0], 1}, arangeKw(a, 1))
}

func arangeStart(op *tensor.Op, a []any) any {
	return callKw("aten::arange.start_step", []any{a[0], a[1], 1}, arangeKw(a, 2))
}

func eye(op *tensor.Op, a []any) any {
	n := a[0].(int)
	return eyeOf(n, n, a, 1)
}

func eyeM(op *tensor.Op, a []any) any { return eyeOf(a[0].(int), a[1].(int), a, 2) }

func eyeOf(n, m int, a []any, i int) *T {
	tensor.Check(n >= 0, "n must be greater or equal to 0, got %d", n)
	tensor.Check(m >= 0, "m must be greater or equal to 0, got %d", m)
	kw := arangeKw(a, i)
	kw["dtype"] = tensor.Int64
	rows := callKw("aten::arange.start_step", []any{0, n, 1}, kw)
	cols := callKw("aten::arange.start_step", []any{0, m, 1}, kw)
	return rows.Unsqueeze(1).Eq(cols).To(tensor.OptDType(a[i], tensor.DefaultFloat))
}

// spaced fills steps points the way the CPU linspace kernel does: the first
// half counts up from start, the second half down from end, in the dtype's
// arithmetic (double for integer dtypes).
func spaced(a []any, kwAt int, start, end float64, steps int, f func(*T) *T) *T {
	tensor.Check(steps >= 0, "number of steps must be non-negative")
	d := tensor.OptDType(a[kwAt], tensor.DefaultFloat)
	cd := d
	if !d.IsFloat() {
		cd = tensor.Float64
	}
	kw := arangeKw(a, kwAt)
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
	return spaced(a, 3, sc(a, 0).Float64(), sc(a, 1).Float64(), a[2].(int), func(x *T) *T { return x })
}

func logspace(op *tensor.Op, a []any) any {
	base := a[3].(float64)
	return spaced(a, 4, sc(a, 0).Float64(), sc(a, 1).Float64(), a[2].(int), func(x *T) *T {
		return tensor.PowScalarBase(opmathScalar(base, x.DType()), x)
	})
}

// oneHot compares each index with arange(num_classes); num_classes -1 means
// max + 1, which reads the data.
func oneHot(op *tensor.Op, a []any) any {
	x, n := ten(a, 0), a[1].(int)
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

func zeroOp(op *tensor.Op, a []any) any { return ten(a, 0).FullLike(0) }

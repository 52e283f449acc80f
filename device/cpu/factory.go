package cpu

import (
	"math"

	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// fillValue writes v, converted to t's dtype, into every element of t.
func fillValue(t *tensor.Tensor, v tensor.Scalar) {
	if t.Numel() == 0 {
		return
	}
	one := tensor.FromScalar(v, t.DType())
	switch t.DType().ItemSize() {
	case 1:
		fillTyped(t, data[uint8](one)[0])
	case 2:
		fillTyped(t, data[uint16](one)[0])
	case 4:
		fillTyped(t, data[uint32](one)[0])
	case 8:
		fillTyped(t, data[uint64](one)[0])
	}
}

func fillTyped[T uint8 | uint16 | uint32 | uint64](t *tensor.Tensor, x T) {
	d := data[T](t)
	if core.IsNonOverlappingAndDense(t.Sizes(), t.Strides()) {
		// A dense tensor covers [offset, offset+numel) of its storage.
		lo := t.StorageOffset()
		for i, s := range t.Strides() {
			if s < 0 {
				lo += s * (t.Sizes()[i] - 1)
			}
		}
		asm.Fill(d[lo:lo+t.Numel()], x)
		return
	}
	loopOver(t).run(func(offs *[maxArgs]int, n int, inner *[maxArgs]int) {
		o, st := offs[0], inner[0]
		for i := 0; i < n; i++ {
			d[o+i*st] = x
		}
	})
}

func fillKernel(out *tensor.Tensor, op *tensor.Op, a []any) {
	var v tensor.Scalar
	switch op.Schema.Name {
	case "full":
		v = args.FullOf(a).FillValue
	case "full_like":
		v = args.FullLikeOf(a).FillValue
	case "fill":
		v = args.FillOf(a).Value
	default: // scalar_tensor
		v = args.ScalarTensorOf(a).S
	}
	fillValue(out, v) // every element
}

func emptyKernel(op *tensor.Op, a []any) any { return allocMeta(op, a) }

func arangeKernel(op *tensor.Op, a []any) any {
	out := allocMeta(op, a)
	p := args.ArangeOf(a)
	start, end, step := p.Start, p.End, p.Step
	dt := out.DType()
	n, istart, istep, fstart, fstep := core.ArangeParams(start, end, step, dt)
	if n == 0 {
		return out
	}
	if !dt.IsFloat() {
		var buf [256]int64
		for lo := 0; lo < n; lo += len(buf) {
			m := min(len(buf), n-lo)
			for i := range buf[:m] {
				buf[i] = istart + istep*int64(lo+i)
			}
			storeI64(out.Storage(), dt, lo, 1, buf[:m])
		}
		return out
	}
	vals := make([]float64, n)
	arangeFloat(vals, dt, fstart, fstep)
	storeF64(out.Storage(), dt, 0, 1, vals)
	return out
}

// arangeFloat writes start + step*i into v bit for bit as PyTorch 1.13's
// CPU kernel (AVX2 build) computes it for float dtype dt. Its vectorised
// loop handles pairs of 32-byte vectors, each from a base value
// start + step*i rounded to dt, then base + j*step within the vector; the
// tail is start + step*i. float16/bfloat16 accumulate in float32 (so their
// vector bases are rounded to 16 bits first), float32 and float64 in
// float64. GCC contracts the multiply-adds into FMAs, except for the 16-bit
// types' in-vector steps.
func arangeFloat(v []float64, dt tensor.DType, start, step float64) {
	n := len(v)
	width := 32 / dt.ItemSize()
	nvec := 0
	if n >= 2*width {
		nvec = ((n-2*width)/(2*width) + 1) * 2 * width
	}
	round := func(x float64) float64 {
		switch dt {
		case tensor.Float32:
			return float64(float32(x))
		case tensor.Float16:
			return float64(tensor.HalfToFloat32(tensor.Float32ToHalf(float32(x))))
		case tensor.BFloat16:
			return float64(tensor.BF16ToFloat32(tensor.Float32ToBF16(float32(x))))
		}
		return x
	}
	if dt.IsReduced() {
		// float32 fused multiply-adds: the product of two float32s is exact
		// in float64, so one float64 FMA rounded to float32 matches.
		s, st := float64(float32(start)), float64(float32(step))
		fma32 := func(a, b, c float64) float64 { return float64(float32(math.FMA(a, b, c))) }
		for b := 0; b < nvec; b += width {
			base := round(fma32(st, float64(b), s))
			for j := 0; j < width; j++ {
				// No FMA here: the 16-bit vector types add in float32 steps.
				v[b+j] = round(float64(float32(base) + float32(float32(j)*float32(st))))
			}
		}
		for i := nvec; i < n; i++ {
			v[i] = round(fma32(st, float64(i), s))
		}
		return
	}
	for b := 0; b < nvec; b += width {
		base := round(math.FMA(step, float64(b), start))
		for j := 0; j < width; j++ {
			v[b+j] = round(math.FMA(float64(j), step, base))
		}
	}
	for i := nvec; i < n; i++ {
		v[i] = round(math.FMA(step, float64(i), start))
	}
}

func init() {
	impls(emptyKernel, "aten::empty.memory_format", "aten::empty_strided.default")
	for _, name := range []string{"aten::full.default", "aten::full_like.default", "aten::scalar_tensor.default", "aten::fill.Scalar"} {
		implOut(name, fillKernel)
	}
	// new_zeros and new_ones decompose into full (decomp's newFullWith),
	// with no kernel of their own; a plan fills the result it laid out.
	core.Op("aten::new_zeros").ImplOut(tensor.CPU, func(outs []*tensor.Tensor, _ *tensor.Op, _ []any) { clearElems(outs[0]) })
	core.Op("aten::new_ones").ImplOut(tensor.CPU, func(outs []*tensor.Tensor, _ *tensor.Op, _ []any) {
		fillValue(outs[0], tensor.Int(1))
	})
	impl("aten::arange.start_step", arangeKernel)
	impl("aten::sym_size.int", core.SymSize)
	impl("aten::sym_stride.int", core.SymStride)
	impl("aten::sym_numel.default", core.SymNumel)
	impl("aten::sym_storage_offset.default", core.SymStorageOffset)
	impl("aten::sym_is_contiguous.default", core.SymIsContiguous)
}

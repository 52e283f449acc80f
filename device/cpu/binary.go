package cpu

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/internal/parallel"
	"github.com/goaten/goaten/tensor"
)

// CPU kernels of the binary pointwise family. Each op is a slice kernel,
// written once generically and instantiated for float32, float64 and int64.
// The drivers below pick how to feed it:
//
//   - a fast path when the common dtype is float32, float64 or int64, the
//     output has it and each input either has it and is contiguous with the
//     output's shape, or is a single element (a scalar): the kernel then runs
//     on the storages directly;
//   - otherwise the strided pointwise loop, which casts every input to the
//     common dtype first (as TensorIterator does) and converts the result to
//     the output's dtype. float16/bfloat16 compute in float32, like PyTorch's
//     opmath, and narrow integers compute in int64 and wrap.

// binaryArgs returns the two operands of a binary op (args.BinaryOf),
// turning a Scalar second operand into a wrapped-number tensor.
func binaryArgs(a []any) (*tensor.Tensor, *tensor.Tensor) {
	p := args.BinaryOf(a)
	switch b := p.Other.(type) {
	case *tensor.Tensor:
		return p.Self, b
	case tensor.Scalar:
		return p.Self, tensor.WrappedNumber(b)
	}
	panic("binaryArgs: bad operand")
}

// binElem are the element types the fast path computes in.
type binElem interface{ float32 | float64 | int64 }

// binFloat are the float compute types.
type binFloat interface{ float32 | float64 }

// binKernels is one binary slice kernel per compute type; d, x and y have equal lengths.
type binKernels struct {
	f32 func(d, x, y []float32)
	f64 func(d, x, y []float64)
	// s32 and s64, where set, are f32 and f64 with non-temporal stores
	// (asm.AddStreamF32, ...), for binRows's large results; r32 and r64
	// the same over rows with y repeated (asm.AddRowsStreamF32, ...),
	// which report false where they cannot stream.
	s32 func(d, x, y []float32)
	s64 func(d, x, y []float64)
	r32 func(d, x, y []float32) bool
	r64 func(d, x, y []float64) bool
	i64 func(d, x, y []int64) // nil for float-only ops
	// reduced, when set, builds the float16/bfloat16 kernel from a function
	// rounding a float32 to that dtype: for ops whose result jumps (trunc,
	// floor), the rounding of every intermediate step, as c10::Half and
	// c10::BFloat16 arithmetic does, must be reproduced.
	reduced func(rnd func(float32) float32) func(d, x, y []float32)
}

// binBoolKernels is binKernels for ops with a bool result (comparisons, logical ops).
type binBoolKernels struct {
	f32 func(d []bool, x, y []float32)
	f64 func(d []bool, x, y []float64)
	i64 func(d []bool, x, y []int64)
}

// binConstChunk is how many copies of a scalar operand the fast path lays out at once.
const binConstChunk = 1024

// binFast runs k directly on the storages when out (dtype ct, element O)
// is contiguous and each input is either a contiguous ct tensor of out's
// shape or a single element. It reports whether it did. ks, where set, is
// k with non-temporal stores at any length: the goroutines' pieces of a
// result of asm.StreamBytes and more run it, as one core's whole result
// streams.
func binFast[T binElem, O tensor.Elem](out, a, b *tensor.Tensor, ct tensor.DType, k, ks func(d []O, x, y []T)) bool {
	n := out.Numel()
	if !out.IsContiguous() {
		return false
	}
	xs, xv, xc, ok := binFastOperand[T](a, out, ct)
	if !ok {
		return false
	}
	ys, yv, yc, ok := binFastOperand[T](b, out, ct)
	if !ok {
		return false
	}
	off := out.StorageOffset()
	d := data[O](out)[off : off+n]
	if xc && yc {
		x, y := [1]T{xv}, [1]T{yv}
		for i := range d {
			k(d[i:i+1], x[:], y[:])
		}
		return true
	}
	if n < 2*grain {
		binFastRange(d, xs, ys, xv, yv, xc, k)
		return true
	}
	if ks != nil && n*int(unsafe.Sizeof(d[0])) >= asm.StreamBytes() {
		// Each goroutine's piece may be below the streaming size on its
		// own: a large result streams whole, as on one core.
		k = ks
	}
	parallel.Range(n, grain, 64, func(lo, hi int) {
		x, y := xs, ys
		if !xc {
			x = xs[lo:hi]
		}
		if !yc {
			y = ys[lo:hi]
		}
		binFastRange(d[lo:hi], x, y, xv, yv, xc, k)
	})
	return true
}

// binFastRange is binFast's work on d: from slices xs and ys of d's
// length, or with one operand a value (xv when xc, yv when ys is nil) laid
// out in chunks.
func binFastRange[T binElem, O tensor.Elem](d []O, xs, ys []T, xv, yv T, xc bool, k func(d []O, x, y []T)) {
	n := len(d)
	if xs != nil && ys != nil {
		k(d, xs, ys)
		return
	}
	// c escapes (k is a func value): as long as one chunk of d, not always
	// binConstChunk, so that a small op allocates bytes, not kilobytes.
	m := min(n, binConstChunk)
	c := make([]T, m)
	v := yv
	if xc {
		v = xv
	}
	for i := range c[:m] {
		c[i] = v
	}
	for i := 0; i < n; i += binConstChunk {
		j := min(i+binConstChunk, n)
		if xc {
			k(d[i:j], c[:j-i], ys[i:j])
		} else {
			k(d[i:j], xs[i:j], c[:j-i])
		}
	}
}

// binFastOperand returns t as a slice (a contiguous ct tensor of out's shape)
// or as a single value converted to ct (a one-element tensor).
func binFastOperand[T binElem](t, out *tensor.Tensor, ct tensor.DType) (s []T, v T, scalar, ok bool) {
	if t.DType() == ct && t.IsContiguous() && slices.Equal(t.Sizes(), out.Sizes()) {
		off := t.StorageOffset()
		return data[T](t)[off : off+out.Numel()], v, false, true
	}
	if t.Numel() != 1 {
		return nil, v, false, false
	}
	var z T
	if _, isInt := any(z).(int64); isInt {
		var b [1]int64
		loadAnyI64(b[:], t.Storage(), t.DType(), t.StorageOffset(), 0)
		return nil, T(b[0]), true, true
	}
	var b [1]float64
	loadF64(b[:], t.Storage(), t.DType(), t.StorageOffset(), 0)
	return nil, T(b[0]), true, true
}

// binRunFloat computes out = k(a, b) for a floating common dtype ct.
func binRunFloat(out *tensor.Tensor, ct tensor.DType, a, b *tensor.Tensor, k binKernels) {
	if out.Numel() == 0 {
		return
	}
	if out.DType() == ct {
		switch ct {
		case tensor.Float32:
			if binFast(out, a, b, ct, k.f32, k.s32) {
				return
			}
		case tensor.Float64:
			if binFast(out, a, b, ct, k.f64, k.s64) {
				return
			}
		}
	}
	if out.DType() == ct && a.DType() == ct && b.DType() == ct {
		switch {
		case ct == tensor.Float32 && binRows(out, a, b, k.f32, k.s32, k.r32):
			return
		case ct == tensor.Float64 && binRows(out, a, b, k.f64, k.s64, k.r64):
			return
		}
	}
	ins := []*tensor.Tensor{a, b}
	if ct == tensor.Float64 {
		pointwiseF64(out, ct, ins, func(d []float64, s [][]float64) { k.f64(d, s[0], s[1][:len(d)]) })
		return
	}
	f := k.f32
	switch {
	case k.reduced != nil && ct == tensor.Float16:
		f = k.reduced(binRoundHalf)
	case k.reduced != nil && ct == tensor.BFloat16:
		f = k.reduced(binRoundBF16)
	}
	round := out.DType() != ct // atan2.out: the result is in ct before out's dtype
	var typed func(d []float32, s [][]float32)
	if ct == tensor.Float32 { // float32 operands of other shapes: the typed path, no conversion
		typed = func(d []float32, s [][]float32) { f(d, s[0], s[1][:len(d)]) }
	}
	pointwiseFloat(out, ct, ins, func(d []float64, s [][]float64) {
		sc := binScratchPool.Get().(*binScratch)
		defer binScratchPool.Put(sc)
		n := len(d)
		for i, v := range s[0][:n] {
			sc.x[i] = float32(v)
		}
		for i, v := range s[1][:n] {
			sc.y[i] = float32(v)
		}
		f(sc.d[:n], sc.x[:n], sc.y[:n])
		for i := range d {
			d[i] = float64(sc.d[i])
		}
		if round {
			roundF64(d, ct)
		}
	}, typed)
}

// binRowsBlock is the size in bytes of the pieces of a streamed result
// that binRows hands its streaming kernel one call at a time.
const binRowsBlock = 32 << 10

// binRows computes out = k(a, b) row by row when out is contiguous and a
// and b (out's dtype) broadcast to it so that, once the loop coalesces
// dims, all three are unit-stride along the inner dim and one input
// repeats its row down the next dim while out and the other run on: a
// bias added to each row of a matrix, or y [64, 1, 1024] times x [64, 64,
// 1024]. Each row goes to k directly (the general walk hands it the same
// slices through more machinery). A result of asm.StreamBytes and more
// goes to ks, when set, with non-temporal stores: all of a piece's rows of
// a group in one call of kr where it can (b repeats its row, and the rows
// are whole aligned vectors), else blocks of rows against a buffer
// holding the repeated row as many times, so that each call, and so each
// fence, covers binRowsBlock bytes rather than one row. It reports
// whether it ran.
func binRows[T float32 | float64](out, a, b *tensor.Tensor, k, ks func(d, x, y []T), kr func(d, x, y []T) bool) bool {
	if k == nil || !out.IsContiguous() {
		return false
	}
	var l loop
	l.over(out, a, b)
	r := l.rank
	if r < 2 || l.done {
		return false
	}
	n, m := l.shape[r-1], l.shape[r-2]
	if l.strides[0][r-1] != 1 || l.strides[1][r-1] != 1 || l.strides[2][r-1] != 1 || l.strides[0][r-2] != n {
		return false
	}
	var rep int // the input whose row repeats: 1 (a) or 2 (b)
	switch {
	case l.strides[1][r-2] == n && l.strides[2][r-2] == 0:
		rep = 2
	case l.strides[1][r-2] == 0 && l.strides[2][r-2] == n:
		rep = 1
	default:
		return false
	}
	// groups: the offsets of each m×n block of out and the inputs, over
	// the outer dims in order.
	var g loop
	g.init(l.shape[:r-2], [][]int{l.strides[0][:r-2], l.strides[1][:r-2], l.strides[2][:r-2]}, l.base[:3])
	groups := make([][3]int, 0, g.numel())
	for g.next() {
		for i := range g.n {
			groups = append(groups, [3]int{g.offs[0] + i*g.inner[0], g.offs[1] + i*g.inner[1], g.offs[2] + i*g.inner[2]})
		}
	}
	od, ad, bd := data[T](out), data[T](a), data[T](b)
	size := int(unsafe.Sizeof(od[0]))
	stream := ks != nil && out.Numel()*size >= asm.StreamBytes()
	block := max(1, binRowsBlock/(n*size)) // rows per streaming call
	parallel.Range(len(groups)*m, max(1, grain/n), 1, func(lo, hi int) {
		var tile []T  // the repeated row, block times, when streaming blocks
		tileOff := -1 // the offset of the row in tile
		for i := lo; i < hi; {
			gr := groups[i/m]
			j := i % m
			cnt := min(m-j, hi-i) // rows of this group in the piece
			o, oa, ob := gr[0]+j*n, gr[1], gr[2]
			if rep == 2 {
				oa += j * n
			} else {
				ob += j * n
			}
			if stream && rep == 2 && kr != nil && kr(od[o:o+cnt*n], ad[oa:oa+cnt*n], bd[ob:ob+n]) {
				i += cnt
				continue
			}
			for c := 0; c < cnt; {
				w := 1
				if stream {
					w = min(block, cnt-c)
				}
				d := od[o : o+w*n]
				x, y := ad[oa:oa+n], bd[ob:ob+n] // the repeated one keeps this length
				if rep == 2 {
					x = ad[oa : oa+w*n]
				} else {
					y = bd[ob : ob+w*n]
				}
				switch {
				case !stream:
					k(d, x, y)
				case w == 1:
					ks(d, x, y)
				default:
					row, at := x, oa
					if rep == 2 {
						row, at = y, ob
					}
					if tileOff != at {
						if tile == nil {
							tile = make([]T, block*n)
						}
						for q := range block {
							copy(tile[q*n:(q+1)*n], row)
						}
						tileOff = at
					}
					if rep == 2 {
						ks(d, x, tile[:w*n])
					} else {
						ks(d, tile[:w*n], y)
					}
				}
				o += w * n
				if rep == 2 {
					oa += w * n
				} else {
					ob += w * n
				}
				c += w
			}
			i += cnt
		}
	})
	return true
}

// binScratch is the scratch of one block of the binary drivers' generic
// paths, pooled: blocks may run in parallel, and a per-call array would
// escape to the heap (it is handed to a kernel through a func value).
type binScratch struct {
	x, y, d [blockLen]float32
	b       [blockLen]bool
}

var binScratchPool = sync.Pool{New: func() any { return new(binScratch) }}

// binRunInt computes out = k(a, b) for an integral or bool common dtype ct.
func binRunInt(out *tensor.Tensor, ct tensor.DType, a, b *tensor.Tensor, k func(d, x, y []int64)) {
	if out.Numel() == 0 {
		return
	}
	if ct == tensor.Int64 && out.DType() == ct && binFast(out, a, b, ct, k, nil) {
		return
	}
	pointwiseI64(out, ct, []*tensor.Tensor{a, b}, func(d []int64, s [][]int64) { k(d, s[0], s[1][:len(d)]) })
}

// binRun dispatches on the common dtype ct.
func binRun(out *tensor.Tensor, ct tensor.DType, a, b *tensor.Tensor, k binKernels) {
	if ct.IsFloat() {
		binRunFloat(out, ct, a, b, k)
		return
	}
	binRunInt(out, ct, a, b, k.i64)
}

// binRunBool computes a bool out from inputs compared in the common dtype ct.
func binRunBool(out *tensor.Tensor, ct tensor.DType, a, b *tensor.Tensor, k binBoolKernels) {
	if out.Numel() == 0 {
		return
	}
	switch ct {
	case tensor.Float32:
		if binFast(out, a, b, ct, k.f32, nil) {
			return
		}
	case tensor.Float64:
		if binFast(out, a, b, ct, k.f64, nil) {
			return
		}
	case tensor.Int64:
		if binFast(out, a, b, ct, k.i64, nil) {
			return
		}
	}
	ins := []*tensor.Tensor{a, b}
	if ct.IsFloat() {
		// Values rounded to ct compare exactly in float64.
		pointwiseF64(out, ct, ins, func(d []float64, s [][]float64) {
			sc := binScratchPool.Get().(*binScratch)
			defer binScratchPool.Put(sc)
			r := sc.b[:len(d)]
			k.f64(r, s[0], s[1][:len(d)])
			for i, v := range r {
				d[i] = binBoolF64(v)
			}
		})
		return
	}
	pointwiseI64(out, ct, ins, func(d []int64, s [][]int64) {
		sc := binScratchPool.Get().(*binScratch)
		defer binScratchPool.Put(sc)
		r := sc.b[:len(d)]
		k.i64(r, s[0], s[1][:len(d)])
		for i, v := range r {
			d[i] = int64(binBoolF64(v))
		}
	})
}

func binBoolF64(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func binRoundHalf(v float32) float32 { return tensor.HalfToFloat32(tensor.Float32ToHalf(v)) }
func binRoundBF16(v float32) float32 { return tensor.BF16ToFloat32(tensor.Float32ToBF16(v)) }
func binNoRound[T binFloat](v T) T   { return v }

// binRoundTo rounds v to float dtype ct, as converting a Scalar to scalar_t does.
func binRoundTo(v float64, ct tensor.DType) float64 {
	b := [1]float64{v}
	roundF64(b[:], ct)
	return b[0]
}

// --- arithmetic ---

func addK[T binElem](d, x, y []T) {
	for i := range d {
		d[i] = x[i] + y[i]
	}
}

// The scaled adds fuse the multiply into the add, as PyTorch's fmadd does
// (asm's axpy: alpha·y + x rounded once).
func addScaled32(al float32) func(d, x, y []float32) {
	return func(d, x, y []float32) { asm.AxpyF32(d, al, y, x) }
}

func addScaled64(al float64) func(d, x, y []float64) {
	return func(d, x, y []float64) { asm.AxpyF64(d, al, y, x) }
}

func addScaledI(al int64) func(d, x, y []int64) {
	return func(d, x, y []int64) {
		for i := range d {
			d[i] = x[i] + al*y[i]
		}
	}
}

// addKernels is add's kernel for alpha in the common dtype ct (sub passes -alpha).
func addKernels(alpha tensor.Scalar, ct tensor.DType) binKernels {
	if ct.IsFloat() {
		al := binRoundTo(alpha.Float64(), ct)
		switch al {
		case 1:
			return binKernels{f32: asm.AddF32, f64: asm.AddF64, s32: asm.AddStreamF32, s64: asm.AddStreamF64,
				r32: asm.AddRowsStreamF32, r64: asm.AddRowsStreamF64}
		case -1:
			return binKernels{f32: asm.SubF32, f64: asm.SubF64, s32: asm.SubStreamF32, s64: asm.SubStreamF64,
				r32: asm.SubRowsStreamF32, r64: asm.SubRowsStreamF64}
		}
		k := binKernels{f32: addScaled32(float32(al)), f64: addScaled64(al)}
		if ct == tensor.Float16 {
			// c10::Half arithmetic rounds the product before the add.
			a := float32(al)
			k.reduced = func(rnd func(float32) float32) func(d, x, y []float32) {
				return func(d, x, y []float32) {
					for i := range d {
						d[i] = x[i] + rnd(a*y[i])
					}
				}
			}
		}
		return k
	}
	al := alpha.Int64()
	if ct == tensor.Bool && al != 0 {
		al = 1 // alpha.to<bool>()
	}
	if al == 1 {
		return binKernels{i64: addK[int64]}
	}
	return binKernels{i64: addScaledI(al)}
}

// addKernel is the kernel of an add overload, or with sub of a sub
// overload (add's with -alpha); alphaOf reads alpha from the overload's view.
func addKernel(sub bool, alphaOf func([]any) tensor.Scalar) outKernel {
	return func(out *tensor.Tensor, op *tensor.Op, a []any) {
		x, y := binaryArgs(a)
		alpha := alphaOf(a)
		if sub {
			alpha = core.NegScalar(alpha)
		}
		addRun(out, x, y, alpha)
	}
}

// addRun computes a + alpha·b into out. For bfloat16 with alpha other than
// ±1, 1.13's vectorized loop fuses the multiply into the add (fmadd in
// float32) while its scalar loop runs BFloat16 arithmetic, a + bf16(alpha·b),
// rounding the product first: the elements of the scalar loop (all of a run
// shorter than 32) are recomputed that way.
func addRun(out, a, b *tensor.Tensor, alpha tensor.Scalar) {
	ct := out.DType()
	al := float32(binRoundTo(alpha.Float64(), ct))
	if ct != tensor.BFloat16 || al == 1 || al == -1 {
		binRun(out, ct, a, b, addKernels(alpha, ct))
		return
	}
	va, vb := operandValues(out, a, b)
	binRun(out, ct, a, b, addKernels(alpha, ct))
	vecLoopFixup(out, ct, a, b, va, vb, false, func(x, y float64) (float64, bool) {
		return float64(float32(x) + binRoundBF16(al*float32(y))), true
	})
}

func mulK[T binElem](d, x, y []T) {
	for i := range d {
		d[i] = x[i] * y[i]
	}
}

// modKernel is sameKernel through modRun.
func modKernel(k binKernels) outKernel {
	return func(out *tensor.Tensor, op *tensor.Op, list []any) {
		a, b := binaryArgs(list)
		modRun(out, out.DType(), a, b, k)
	}
}

// sameKernel makes the kernel of an op whose output has the common dtype.
func sameKernel(k binKernels) outKernel {
	return func(out *tensor.Tensor, op *tensor.Op, list []any) {
		a, b := binaryArgs(list)
		binRun(out, out.DType(), a, b, k)
	}
}

// --- division ---

// divTruncK truncates the quotient rounded by rnd (to the common dtype).
func divTruncK[T binFloat](rnd func(T) T) func(d, x, y []T) {
	return func(d, x, y []T) {
		for i := range d {
			d[i] = T(math.Trunc(float64(rnd(x[i] / y[i]))))
		}
	}
}

// divFloorK is Python's floor division on floats (div_floor_floating):
// computed from fmod so that the result is exact, with IEEE results for a
// zero divisor. rnd rounds each intermediate to the common dtype.
func divFloorK[T binFloat](rnd func(T) T) func(d, x, y []T) {
	return func(d, x, y []T) {
		for i := range d {
			a, b := x[i], y[i]
			if b == 0 {
				d[i] = rnd(a / b)
				continue
			}
			mod := T(math.Mod(float64(a), float64(b)))
			div := rnd(rnd(a-mod) / b)
			if mod != 0 && (b < 0) != (mod < 0) {
				div = rnd(div - 1)
			}
			if div == 0 {
				d[i] = T(math.Copysign(0, float64(a/b)))
				continue
			}
			fl := T(math.Floor(float64(div)))
			if rnd(div-fl) > 0.5 {
				fl = rnd(fl + 1)
			}
			d[i] = fl
		}
	}
}

func binZeroDivision() { tensor.Panicf("ZeroDivisionError") }

func divTruncI(d, x, y []int64) {
	for i := range d {
		if y[i] == 0 {
			binZeroDivision()
		}
		d[i] = x[i] / y[i]
	}
}

func divFloorI(d, x, y []int64) {
	for i := range d {
		a, b := x[i], y[i]
		if b == 0 {
			binZeroDivision()
		}
		q := a / b
		if (a < 0) != (b < 0) && q*b != a {
			q--
		}
		d[i] = q
	}
}

func divKernel(out *tensor.Tensor, op *tensor.Op, list []any) {
	mode := core.DivMode(op, list)
	a, b := binaryArgs(list)
	ct := out.DType()
	switch mode {
	case "":
		binRunFloat(out, ct, a, b, binKernels{f32: asm.DivF32, f64: asm.DivF64, s32: asm.DivStreamF32, s64: asm.DivStreamF64,
			r32: asm.DivRowsStreamF32, r64: asm.DivRowsStreamF64})
	case "trunc":
		binRun(out, ct, a, b, binKernels{f32: divTruncK(binNoRound[float32]), f64: divTruncK(binNoRound[float64]),
			i64: divTruncI, reduced: divTruncK[float32]})
	case "floor":
		modRun(out, ct, a, b, binKernels{f32: divFloorK(binNoRound[float32]), f64: divFloorK(binNoRound[float64]),
			i64: divFloorI, reduced: divFloorK[float32]})
	}
}

// --- fmod, remainder ---

func fmodK[T binFloat](d, x, y []T) {
	for i := range d {
		d[i] = T(math.Mod(float64(x[i]), float64(y[i])))
	}
}

func fmodI(d, x, y []int64) {
	for i := range d {
		if y[i] == 0 {
			binZeroDivision()
		}
		d[i] = x[i] % y[i]
	}
}

// fmod, remainder and floor division all start from fmod, which 1.13's
// vectorized loops take from Sleef_fmodf8/Sleef_fmodd4 (float32, bfloat16 in
// float32, float64; float16 runs std::fmod). Sleef is exact except where its
// first quotient estimate overflows: |x/y| beyond the dtype's largest finite
// value (x = 5.25, y = the smallest normal float: make_tensor's replacement
// of a zero divisor) gives NaN there, and the exact result in the scalar
// remainder loop of the same run. modRun reproduces that by position.

// modRun is binRun for the fmod-based ops: where an element's operands make
// Sleef's quotient overflow and 1.13's vectorized loop computes it, the
// result is NaN.
func modRun(out *tensor.Tensor, ct tensor.DType, a, b *tensor.Tensor, k binKernels) {
	if ct != tensor.Float32 && ct != tensor.Float64 && ct != tensor.BFloat16 {
		binRun(out, ct, a, b, k)
		return
	}
	// An in-place call (fmod_) computes into a itself: keep the operands'
	// values for the fixup below.
	va, vb := operandValues(out, a, b)
	var hit atomic.Bool // some element overflows Sleef's quotient
	f32, f64, reduced := k.f32, k.f64, k.reduced
	// The scans run before the kernels, whose d may be x (in place).
	k.f32 = func(d, x, y []float32) {
		sleefScan(&hit, x, y, sleefOverflows32)
		f32(d, x, y)
	}
	k.f64 = func(d, x, y []float64) {
		sleefScan(&hit, x, y, sleefOverflows64)
		f64(d, x, y)
	}
	if reduced != nil {
		k.reduced = func(rnd func(float32) float32) func(d, x, y []float32) {
			f := reduced(rnd)
			return func(d, x, y []float32) {
				sleefScan(&hit, x, y, sleefOverflows32)
				f(d, x, y)
			}
		}
	}
	binRun(out, ct, a, b, k)
	if !hit.Load() {
		return
	}
	over := sleefOverflows64
	if ct != tensor.Float64 {
		over = func(x, y float64) bool { return sleefOverflows32(float32(x), float32(y)) }
	}
	vecLoopFixup(out, ct, a, b, va, vb, true, func(x, y float64) (float64, bool) {
		return math.NaN(), over(x, y)
	})
}

// operandValues is a and b, each copied where it shares out's storage (an
// in-place call computes into it), for a fixup that reads them after the
// kernel has run.
func operandValues(out, a, b *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor) {
	vs := []*tensor.Tensor{a, b}
	for i, v := range vs {
		if v.Storage() == out.Storage() {
			c := tensor.Empty(v.DType(), v.Sizes()...)
			copyInto(c, v)
			vs[i] = c
		}
	}
	return vs[0], vs[1]
}

// vecLoopFixup recomputes the elements of out that 1.13's cpu_kernel_vec
// computes in its vectorized loop (vec true) or in its scalar loop (vec
// false), for operands laid out as a and b: fix(x, y), given their values
// from va and vb in ct, returns the element's value and whether to set it.
func vecLoopFixup(out *tensor.Tensor, ct tensor.DType, a, b, va, vb *tensor.Tensor, vec bool, fix func(x, y float64) (float64, bool)) {
	idx := make([]int, out.Dim())
	for _, v := range vecLoopElements(ct.ItemSize(), a, b) {
		if v == vec {
			if r, ok := fix(binElemAt(va, idx, ct), binElemAt(vb, idx, ct)); ok {
				out.SetAt(tensor.Float(r), idx...)
			}
		}
		for d := len(idx) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < out.Size(d) {
				break
			}
			idx[d] = 0
		}
	}
}

func sleefScan[T binFloat](hit *atomic.Bool, x, y []T, over func(x, y T) bool) {
	if hit.Load() {
		return
	}
	for i, v := range x {
		if over(v, y[i]) {
			hit.Store(true)
			return
		}
	}
}

// binElemAt is the element of t (broadcast to a shape of len(idx) dims) at
// idx, converted to the common dtype ct.
func binElemAt(t *tensor.Tensor, idx []int, ct tensor.DType) float64 {
	off := len(idx) - t.Dim()
	at := make([]int, t.Dim())
	for d := range at {
		if t.Size(d) != 1 {
			at[d] = idx[off+d]
		}
	}
	return binRoundTo(t.At(at...).Float64(), ct)
}

// sleefOverflows reports whether Sleef's fmod gives NaN for finite x and
// nonzero y where the exact remainder is a number: its first quotient,
// toward0(|x|)·toward0(1/|y|) in T (both operands scaled by scale when |y|
// is below the smallest normal: 2^25 for float32, 2^54 for float64),
// overflows.
func sleefOverflows[T binFloat](x, y, minNormal, scale T) bool {
	nu, de := T(math.Abs(float64(x))), T(math.Abs(float64(y)))
	if de == 0 || nu < de || math.IsInf(float64(nu), 1) || de != de {
		return false
	}
	if de < minNormal {
		nu, de = nu*scale, de*scale
	}
	return math.IsInf(float64(towardZero(nu)*towardZero(1/de)), 1)
}

func sleefOverflows32(x, y float32) bool { return sleefOverflows(x, y, 0x1p-126, 0x1p25) }
func sleefOverflows64(x, y float64) bool { return sleefOverflows(x, y, 0x1p-1022, 0x1p54) }

// towardZero is the float next to v > 0 towards zero (Sleef's vtoward0).
func towardZero[T binFloat](v T) T {
	switch p := any(&v).(type) {
	case *float32:
		*p = math.Float32frombits(math.Float32bits(*p) - 1)
	case *float64:
		*p = math.Float64frombits(math.Float64bits(*p) - 1)
	}
	return v
}

// remK is Python's modulus: the sign follows the divisor.
func remK[T binFloat](d, x, y []T) {
	for i := range d {
		b := y[i]
		mod := T(math.Mod(float64(x[i]), float64(b)))
		if mod != 0 && (b < 0) != (mod < 0) {
			mod += b
		}
		d[i] = mod
	}
}

func remI(d, x, y []int64) {
	for i := range d {
		b := y[i]
		if b == 0 {
			binZeroDivision()
		}
		r := x[i] % b
		if r != 0 && (r < 0) != (b < 0) {
			r += b
		}
		d[i] = r
	}
}

// --- pow ---

func powK[T binFloat](d, x, y []T) {
	for i := range d {
		d[i] = T(math.Pow(float64(x[i]), float64(y[i])))
	}
}

// powInt is integer pow by squaring with C++'s wrap-around; a negative
// exponent gives 1 for base 1, ±1 for base -1 and 0 otherwise.
func powInt(a, b int64) int64 {
	if b < 0 {
		switch a {
		case 1:
			return 1
		case -1:
			if b%2 != 0 {
				return -1
			}
			return 1
		}
		return 0
	}
	r := int64(1)
	for b != 0 {
		if b&1 != 0 {
			r *= a
		}
		b /= 2
		a *= a
	}
	return r
}

func powI(d, x, y []int64) {
	for i := range d {
		d[i] = powInt(x[i], y[i])
	}
}

var powKernels = binKernels{f32: powK[float32], f64: powK[float64], i64: powI}

// powScalarK is pow with a fixed float exponent, with PyTorch's special
// cases (square, cube, sqrt, reciprocal, ...); y is ignored.
// powScalarSIMD is powScalarK's float32 kernel for the exponents 1.13
// special-cases with plain arithmetic (x·x, x·x·x, √x, 1/√x, 1/x): one
// kernel of package asm over the whole slice (d may be x), the same
// operations in the same order, a large result streamed past the caches as
// the elementwise kernels stream theirs; nil for others.
func powScalarSIMD[T binFloat](e T) func(d, x, y []T) {
	if _, ok := any(e).(float32); !ok {
		return nil
	}
	var f func(d, x []float32)
	switch e {
	case 2:
		f = func(d, x []float32) { asm.MulF32(d, x, x) }
	case 3:
		f = asm.CubeF32
	case 0.5:
		f = asm.SqrtF32
	case -0.5:
		f = asm.RsqrtF32
	case -1:
		f = asm.ReciprocalF32
	default:
		return nil
	}
	return func(d, x, _ []T) { f(any(d).([]float32), any(x).([]float32)) }
}

// powScalarStream is powScalarSIMD's kernel with non-temporal stores at any
// length, where package asm has one (x·x, x·x·x); nil for other exponents.
func powScalarStream(e float32) func(d, x, y []float32) {
	switch e {
	case 2:
		return func(d, x, _ []float32) { asm.MulStreamF32(d, x, x) }
	case 3:
		return func(d, x, _ []float32) { asm.CubeStreamF32(d, x) }
	}
	return nil
}

func powScalarK[T binFloat](e T) func(d, x, y []T) {
	if k := powScalarSIMD(e); k != nil {
		return k
	}
	switch e {
	case 2:
		return func(d, x, _ []T) {
			for i, v := range x {
				d[i] = v * v
			}
		}
	case 3:
		return func(d, x, _ []T) {
			for i, v := range x {
				d[i] = v * v * v
			}
		}
	case -2:
		return func(d, x, _ []T) {
			for i, v := range x {
				d[i] = 1 / (v * v)
			}
		}
	case 0.5:
		return func(d, x, _ []T) {
			for i, v := range x {
				d[i] = T(math.Sqrt(float64(v)))
			}
		}
	case -0.5:
		return func(d, x, _ []T) {
			for i, v := range x {
				d[i] = 1 / T(math.Sqrt(float64(v)))
			}
		}
	case -1:
		return func(d, x, _ []T) {
			for i, v := range x {
				d[i] = 1 / v
			}
		}
	}
	ef := float64(e)
	return func(d, x, _ []T) {
		for i, v := range x {
			d[i] = T(math.Pow(float64(v), ef))
		}
	}
}

func powTensorScalarKernel(op *tensor.Op, list []any) any {
	out := allocMetaUninit(op, list) // every branch below writes every element
	p := args.PowScalarOf(list)
	a, exp := p.Self, p.Exponent
	ct := out.DType()
	switch core.PowScalarExponentKind(exp) {
	case 0:
		fillValue(out, tensor.Int(1))
		return out
	case 1:
		copyInto(out, a)
		return out
	}
	if ct.IsFloat() {
		e := exp.Float64()
		if ct != tensor.Float64 {
			e = binRoundTo(e, ct)
		}
		binRunFloat(out, ct, a, a, binKernels{f32: powScalarK(float32(e)), f64: powScalarK(e), s32: powScalarStream(float32(e))})
		return out
	}
	binRunInt(out, ct, a, tensor.FromScalar(exp, ct), powI)
	return out
}

func powScalarKernel(op *tensor.Op, a []any) any {
	out := allocMetaUninit(op, a) // fillValue or binRun writes every element
	p := args.PowScalarBaseOf(a)
	base, e := p.Self, p.Exponent
	if core.ScalarEquals(base, 1) {
		fillValue(out, tensor.Int(1))
		return out
	}
	binRun(out, out.DType(), tensor.WrappedNumber(base), e, powKernels)
	return out
}

// --- atan2 ---

func atan2K[T binFloat](d, x, y []T) {
	for i := range d {
		d[i] = T(math.Atan2(float64(x[i]), float64(y[i])))
	}
}

var atan2Kernels = binKernels{f32: atan2K[float32], f64: atan2K[float64]}

func atan2OutKernel(op *tensor.Op, list []any) any {
	m := meta(op, list)
	p := args.Atan2OutOf(list)
	a, b, out := p.Self, p.Other, p.Out
	if !slices.Equal(out.Sizes(), m.Sizes()) {
		out.SetMeta(m.Sizes(), m.Strides(), m.StorageOffset())
		out.Storage().Resize(tensor.StorageExtent(m.Sizes(), m.Strides(), m.StorageOffset()) * out.DType().ItemSize())
	}
	binRunFloat(out, core.FloatOpDType(a, b), a, b, atan2Kernels)
	out.BumpVersion()
	return out
}

// --- bitwise ---

func andI(d, x, y []int64) {
	for i := range d {
		d[i] = x[i] & y[i]
	}
}

func orI(d, x, y []int64) {
	for i := range d {
		d[i] = x[i] | y[i]
	}
}

func xorI(d, x, y []int64) {
	for i := range d {
		d[i] = x[i] ^ y[i]
	}
}

// --- maximum, minimum ---

// maximumK propagates NaN; otherwise it is the larger value.
func maximumK[T binElem](d, x, y []T) {
	for i := range d {
		a, b := x[i], y[i]
		switch {
		case a != a:
			d[i] = a
		case b != b || b > a:
			d[i] = b
		default:
			d[i] = a
		}
	}
}

func minimumK[T binElem](d, x, y []T) {
	for i := range d {
		a, b := x[i], y[i]
		switch {
		case a != a:
			d[i] = a
		case b != b || b < a:
			d[i] = b
		default:
			d[i] = a
		}
	}
}

// --- comparisons and logical ops ---

func eqK[T binElem](d []bool, x, y []T) {
	for i := range d {
		d[i] = x[i] == y[i]
	}
}

func neK[T binElem](d []bool, x, y []T) {
	for i := range d {
		d[i] = x[i] != y[i]
	}
}

func ltK[T binElem](d []bool, x, y []T) {
	for i := range d {
		d[i] = x[i] < y[i]
	}
}

func leK[T binElem](d []bool, x, y []T) {
	for i := range d {
		d[i] = x[i] <= y[i]
	}
}

func gtK[T binElem](d []bool, x, y []T) {
	for i := range d {
		d[i] = x[i] > y[i]
	}
}

func geK[T binElem](d []bool, x, y []T) {
	for i := range d {
		d[i] = x[i] >= y[i]
	}
}

func landK[T binElem](d []bool, x, y []T) {
	for i := range d {
		d[i] = x[i] != 0 && y[i] != 0
	}
}

func lorK[T binElem](d []bool, x, y []T) {
	for i := range d {
		d[i] = x[i] != 0 || y[i] != 0
	}
}

func lxorK[T binElem](d []bool, x, y []T) {
	for i := range d {
		d[i] = (x[i] != 0) != (y[i] != 0)
	}
}

// boolKernel makes the kernel of a comparison or logical op: the inputs are
// cast to their common dtype and compared there.
func boolKernel(k binBoolKernels) outKernel {
	return func(out *tensor.Tensor, op *tensor.Op, list []any) {
		a, b := binaryArgs(list)
		binRunBool(out, core.CommonDType(a, b), a, b, k) // every element
	}
}

// --- where ---

// whereOperand returns t, of dtype ct, as a slice of out's length (contiguous,
// out's shape) or as its single element.
func whereOperand[T uint8 | uint16 | uint32 | uint64](t, out *tensor.Tensor, ct tensor.DType) (s []T, v T, scalar, ok bool) {
	if t.Numel() == 1 {
		// A single value (where(mask, 0.0, g): a wrapped float64 over a
		// float32 g) is cast to the result dtype once.
		t = toDType(t, ct)
		return nil, data[T](t)[t.StorageOffset()], true, true
	}
	if t.DType() != ct {
		return nil, v, false, false
	}
	off := t.StorageOffset()
	if t.IsContiguous() && slices.Equal(t.Sizes(), out.Sizes()) {
		return data[T](t)[off : off+out.Numel()], v, false, true
	}
	return nil, v, false, false
}

// condPeriod reports whether a contiguous condition c covers out's
// trailing dims exactly and is broadcast only along leading ones (an
// attention mask [T, T] over scores [B, H, T, T]), so that its elements
// repeat every period elements of out; periods below 256 are left to the
// general loop.
func condPeriod(c, out *tensor.Tensor) (period int, ok bool) {
	cs, os := c.Sizes(), out.Sizes()
	if !c.IsContiguous() || len(cs) > len(os) {
		return 0, false
	}
	lead := true // still in the leading dims, where c may be 1 and out not
	for i, s := range cs {
		switch o := os[len(os)-len(cs)+i]; {
		case s == o:
			lead = lead && s == 1
		case !lead || s != 1:
			return 0, false
		}
	}
	period = c.Numel()
	if period != out.Numel() && period < 256 {
		return 0, false
	}
	return period, true
}

// whereFast selects raw elements when out, the condition and the operands
// share a layout (operands may also be single elements of out's dtype, and
// the condition may repeat along out's leading dims), with sel
// (asm.Select32/Select64 for 4- and 8-byte elements), on several goroutines
// above the grain.
func whereFast[T uint8 | uint16 | uint32 | uint64](out, c, a, b *tensor.Tensor, sel func(d []T, c []uint8, x, y []T)) bool {
	ct, n := out.DType(), out.Numel()
	period, ok := condPeriod(c, out)
	if !out.IsContiguous() || !ok {
		return false
	}
	xs, xv, xc, ok := whereOperand[T](a, out, ct)
	if !ok {
		return false
	}
	ys, yv, yc, ok := whereOperand[T](b, out, ct)
	if !ok {
		return false
	}
	off := out.StorageOffset()
	d := data[T](out)[off : off+n]
	cs := data[uint8](c)[c.StorageOffset():][:period]
	xr, yr := repeated(xv, n, xc), repeated(yv, n, yc) // shared, read only
	parallel.Range(n, grain, 64, func(lo, hi int) {
		for i := lo; i < hi; {
			p := i % period // where in the condition's period i falls
			j := min(hi, i+period-p)
			var x, y []T
			if !xc {
				x = xs[i:j]
			}
			if !yc {
				y = ys[i:j]
			}
			whereRange(d[i:j], cs[p:p+j-i], x, y, xr, yr, sel)
			i = j
		}
	})
	return true
}

// whereRange is whereFast's work on d: from slices x and y of d's length,
// or, where one is nil, from xc or yc, the operand's single value repeated
// (at least min(len(d), binConstChunk) of it).
func whereRange[T uint8 | uint16 | uint32 | uint64](d []T, cs []uint8, x, y, xc, yc []T, sel func(d []T, c []uint8, x, y []T)) {
	if x != nil && y != nil {
		sel(d, cs, x, y)
		return
	}
	for i := 0; i < len(d); i += binConstChunk {
		j := min(i+binConstChunk, len(d))
		xi, yi := x, y
		if x != nil {
			xi = x[i:j]
		} else {
			xi = xc[:j-i]
		}
		if y != nil {
			yi = y[i:j]
		} else {
			yi = yc[:j-i]
		}
		sel(d[i:j], cs[i:j], xi, yi)
	}
}

// repeated is min(n, binConstChunk) copies of v, or nil when !need.
func repeated[T any](v T, n int, need bool) []T {
	if !need {
		return nil
	}
	r := make([]T, min(n, binConstChunk))
	for i := range r {
		r[i] = v
	}
	return r
}

// selectK sets d[i] = x[i] if c[i] != 0, else y[i]: where's kernel for the
// element sizes package asm has none for.
func selectK[T uint8 | uint16](d []T, c []uint8, x, y []T) {
	for i := range d {
		if c[i] != 0 {
			d[i] = x[i]
		} else {
			d[i] = y[i]
		}
	}
}

func whereKernel(out *tensor.Tensor, op *tensor.Op, list []any) { // every element is selected below
	p := args.WhereOf(list)
	c, a, b := p.Condition, p.Self, p.Other
	ct := out.DType()
	if out.Numel() == 0 {
		return
	}
	var done bool
	switch ct.ItemSize() {
	case 1:
		done = whereFast(out, c, a, b, selectK[uint8])
	case 2:
		done = whereFast(out, c, a, b, selectK[uint16])
	case 4:
		done = whereFast(out, c, a, b, asm.Select32)
	case 8:
		done = whereFast(out, c, a, b, asm.Select64)
	}
	if done {
		return
	}
	ins := []*tensor.Tensor{c, a, b}
	if ct.IsFloat() {
		pointwiseF64(out, ct, ins, func(d []float64, s [][]float64) {
			cs, x, y := s[0][:len(d)], s[1][:len(d)], s[2][:len(d)]
			for i := range d {
				if cs[i] != 0 {
					d[i] = x[i]
				} else {
					d[i] = y[i]
				}
			}
		})
		return
	}
	pointwiseI64(out, ct, ins, func(d []int64, s [][]int64) {
		cs, x, y := s[0][:len(d)], s[1][:len(d)], s[2][:len(d)]
		for i := range d {
			if cs[i] != 0 {
				d[i] = x[i]
			} else {
				d[i] = y[i]
			}
		}
	})
}

func init() {
	implsOut(addKernel(false, func(a []any) tensor.Scalar { return args.AddOf(a).Alpha }), "aten::add.Tensor")
	implsOut(addKernel(false, func(a []any) tensor.Scalar { return args.AddScalarOf(a).Alpha }), "aten::add.Scalar")
	implsOut(addKernel(true, func(a []any) tensor.Scalar { return args.SubOf(a).Alpha }), "aten::sub.Tensor")
	implsOut(addKernel(true, func(a []any) tensor.Scalar { return args.SubScalarOf(a).Alpha }), "aten::sub.Scalar")
	implsOut(sameKernel(binKernels{f32: asm.MulF32, f64: asm.MulF64, s32: asm.MulStreamF32, s64: asm.MulStreamF64,
		r32: asm.MulRowsStreamF32, r64: asm.MulRowsStreamF64, i64: mulK[int64]}),
		"aten::mul.Tensor", "aten::mul.Scalar")
	implsOut(divKernel, "aten::div.Tensor", "aten::div.Scalar", "aten::div.Tensor_mode", "aten::div.Scalar_mode")
	implsOut(modKernel(binKernels{f32: fmodK[float32], f64: fmodK[float64], i64: fmodI}),
		"aten::fmod.Tensor", "aten::fmod.Scalar")
	implsOut(modKernel(binKernels{f32: remK[float32], f64: remK[float64], i64: remI}),
		"aten::remainder.Tensor", "aten::remainder.Scalar")
	implsOut(sameKernel(powKernels), "aten::pow.Tensor_Tensor")
	impl("aten::pow.Tensor_Scalar", powTensorScalarKernel)
	impl("aten::pow.Scalar", powScalarKernel)
	implsOut(sameKernel(atan2Kernels), "aten::atan2.default")
	impl("aten::atan2.out", atan2OutKernel)
	implsOut(sameKernel(binKernels{i64: andI}), "aten::bitwise_and.Tensor", "aten::bitwise_and.Scalar")
	implsOut(sameKernel(binKernels{i64: orI}), "aten::bitwise_or.Tensor", "aten::bitwise_or.Scalar")
	implsOut(sameKernel(binKernels{i64: xorI}), "aten::bitwise_xor.Tensor", "aten::bitwise_xor.Scalar")
	implsOut(sameKernel(binKernels{f32: asm.MaximumF32, f64: asm.MaximumF64, i64: maximumK[int64]}), "aten::maximum.default")
	implsOut(sameKernel(binKernels{f32: asm.MinimumF32, f64: asm.MinimumF64, i64: minimumK[int64]}), "aten::minimum.default")
	for name, k := range map[string]binBoolKernels{
		"eq":          {asm.EqF32, asm.EqF64, eqK[int64]},
		"ne":          {asm.NeF32, asm.NeF64, neK[int64]},
		"lt":          {asm.LtF32, asm.LtF64, ltK[int64]},
		"le":          {asm.LeF32, asm.LeF64, leK[int64]},
		"gt":          {asm.GtF32, asm.GtF64, gtK[int64]},
		"ge":          {asm.GeF32, asm.GeF64, geK[int64]},
		"logical_and": {landK[float32], landK[float64], landK[int64]},
		"logical_or":  {lorK[float32], lorK[float64], lorK[int64]},
		"logical_xor": {lxorK[float32], lxorK[float64], lxorK[int64]},
	} {
		if name[0] == 'l' && name[1] == 'o' {
			implOut("aten::"+name+".default", boolKernel(k))
		} else {
			implOut("aten::"+name+".Tensor", boolKernel(k))
			implOut("aten::"+name+".Scalar", boolKernel(k))
		}
	}
	implOut("aten::where.self", whereKernel)
}

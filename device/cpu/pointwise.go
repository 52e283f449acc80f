package cpu

import (
	"sync"

	"github.com/goaten/goaten/tensor"
)

// blockLen is the number of elements a pointwise kernel sees per call.
const blockLen = 256

// blocks are the scratch buffers of one pointwise call, pooled so that a
// small op allocates nothing.
type blocks struct {
	f32  [maxArgs + 1][blockLen]float32
	s32  [maxArgs][]float32
	f    [maxArgs + 1][blockLen]float64
	i    [maxArgs + 1][blockLen]int64
	srcF [maxArgs][]float64
	srcI [maxArgs][]int64
}

var blockPool = sync.Pool{New: func() any { return new(blocks) }}

// pointwiseF64 computes out (any dtype) from ins (any dtypes, broadcast to
// out's shape) in float64: each run is loaded into float64 blocks, rounded to
// the op's common dtype ct (as PyTorch casts inputs to it first; Invalid
// skips that), handed to f as slices, and stored back converting to out's
// dtype. f must write dst[i] for every i in range dst from src[k][i].
func pointwiseF64(out *tensor.Tensor, ct tensor.DType, ins []*tensor.Tensor, f func(dst []float64, src [][]float64)) {
	pointwiseFloat(out, ct, ins, f, nil)
}

// sameDType reports whether out and every input have dtype d.
func sameDType(d tensor.DType, out *tensor.Tensor, ins []*tensor.Tensor) bool {
	if out.DType() != d {
		return false
	}
	for _, t := range ins {
		if t.DType() != d {
			return false
		}
	}
	return true
}

// pointwiseFloat is pointwiseF64 with typed fast paths: when out and every
// input are float64 the kernel f works on the storage itself (unit-stride
// runs are not copied), and when they are all float32 and f32 is given, f32
// does the same in float32. Other dtypes take the float64 block path.
func pointwiseFloat(out *tensor.Tensor, ct tensor.DType, ins []*tensor.Tensor, f func(dst []float64, src [][]float64), f32 func(dst []float32, src [][]float32)) {
	if out.Numel() == 0 {
		return
	}
	var l loop
	l.over(out, ins...)
	switch {
	case ct == tensor.Float64 && sameDType(tensor.Float64, out, ins):
		if l.big() {
			l.split(func(sub *loop) { pointwiseTyped(sub, out, ins, f) })
			return
		}
		pointwiseTyped(&l, out, ins, f)
	case f32 != nil && ct == tensor.Float32 && sameDType(tensor.Float32, out, ins):
		if l.big() {
			l.split(func(sub *loop) { pointwiseTyped(sub, out, ins, f32) })
			return
		}
		pointwiseTyped(&l, out, ins, f32)
	case l.big():
		l.split(func(sub *loop) { pointwiseRuns(sub, out, ct, ins, f) })
	default:
		pointwiseRuns(&l, out, ct, ins, f)
	}
}

// pointwiseI64 is pointwiseF64 in int64 for integral and bool operands:
// inputs are cast to the common dtype ct first and the result wraps to out's width.
func pointwiseI64(out *tensor.Tensor, ct tensor.DType, ins []*tensor.Tensor, f func(dst []int64, src [][]int64)) {
	if out.Numel() == 0 {
		return
	}
	var l loop
	l.over(out, ins...)
	if l.big() {
		l.split(func(sub *loop) { pointwiseRuns(sub, out, ct, ins, f) })
		return
	}
	pointwiseRuns(&l, out, ct, ins, f)
}

// pointwiseRuns is the block path of pointwiseFloat (E float64) and
// pointwiseI64 (E int64) over the runs of l: each input's run is loaded into
// a block of E (loadRed), cast to the common dtype ct unless it has it, f
// computes the output block, and storeRed converts it to out's dtype.
func pointwiseRuns[E redElem](l *loop, out *tensor.Tensor, ct tensor.DType, ins []*tensor.Tensor, f func(dst []E, src [][]E)) {
	b := blockPool.Get().(*blocks)
	defer blockPool.Put(b)
	bufs, srcs := workBlocks[E](b, len(ins))
	os, od := out.Storage(), out.DType()
	for l.next() {
		o, n := l.offs, l.n
		for n > 0 {
			m := min(n, blockLen)
			for k, t := range ins {
				buf := bufs[k+1][:m]
				loadRed(buf, t.Storage(), t.DType(), o[k+1], l.inner[k+1])
				if t.DType() != ct {
					castBlock(buf, ct)
				}
				srcs[k] = buf
			}
			dst := bufs[0][:m]
			f(dst, srcs)
			storeRed(os, od, o[0], l.inner[0], dst)
			for k := 0; k <= len(ins); k++ {
				o[k] += m * l.inner[k]
			}
			n -= m
		}
	}
}

// workBlocks returns b's block buffers and source slices (for nin inputs)
// of element type E.
func workBlocks[E float32 | float64 | int64](b *blocks, nin int) (bufs [][blockLen]E, srcs [][]E) {
	switch p := any(&bufs).(type) {
	case *[][blockLen]float32:
		*p = b.f32[:]
		srcs = any(b.s32[:nin]).([][]E)
	case *[][blockLen]float64:
		*p = b.f[:]
		srcs = any(b.srcF[:nin]).([][]E)
	case *[][blockLen]int64:
		*p = b.i[:]
		srcs = any(b.srcI[:nin]).([][]E)
	}
	return bufs, srcs
}

// castBlock casts a block to dtype ct in place: roundF64 for float64 blocks,
// wrapI64 for int64 ones.
func castBlock[E redElem](v []E, ct tensor.DType) {
	switch b := any(v).(type) {
	case []float64:
		roundF64(b, ct)
	case []int64:
		wrapI64(b, ct)
	}
}

// storeAnyF64 stores float64 values into any dtype (floats round, ints truncate, bool is != 0).
func storeAnyF64(s *tensor.Storage, d tensor.DType, off, st int, src []float64) {
	if d.IsFloat() || d == tensor.Bool {
		storeF64(s, d, off, st, src)
		return
	}
	var ib [blockLen]int64
	for len(src) > 0 {
		m := min(len(src), blockLen)
		for i, v := range src[:m] {
			ib[i] = tensor.FloatToInt(v, d)
		}
		storeI64(s, d, off, st, ib[:m])
		src = src[m:]
		off += m * st
	}
}

// loadAnyI64 loads any dtype as int64 (floats truncate).
func loadAnyI64(dst []int64, s *tensor.Storage, d tensor.DType, off, st int) {
	if !d.IsFloat() {
		loadI64(dst, s, d, off, st)
		return
	}
	var fb [blockLen]float64
	for len(dst) > 0 {
		m := min(len(dst), blockLen)
		loadF64(fb[:m], s, d, off, st)
		for i, v := range fb[:m] {
			dst[i] = tensor.FloatToInt64(v)
		}
		dst = dst[m:]
		off += m * st
	}
}

// storeAnyI64 stores int64 values into any dtype.
func storeAnyI64(s *tensor.Storage, d tensor.DType, off, st int, src []int64) {
	if !d.IsFloat() {
		storeI64(s, d, off, st, src)
		return
	}
	var fb [blockLen]float64
	for len(src) > 0 {
		m := min(len(src), blockLen)
		for i, v := range src[:m] {
			fb[i] = float64(v)
		}
		storeF64(s, d, off, st, fb[:m])
		src = src[m:]
		off += m * st
	}
}

// roundF64 rounds values to dtype ct as a cast to ct and back would.
func roundF64(v []float64, ct tensor.DType) {
	switch ct {
	case tensor.Float32:
		for i, x := range v {
			v[i] = float64(float32(x))
		}
	case tensor.Float16:
		for i, x := range v {
			v[i] = float64(tensor.HalfToFloat32(tensor.Float32ToHalf(float32(x))))
		}
	case tensor.BFloat16:
		for i, x := range v {
			v[i] = float64(tensor.BF16ToFloat32(tensor.Float32ToBF16(float32(x))))
		}
	case tensor.Bool:
		for i, x := range v {
			if x != 0 {
				v[i] = 1
			}
		}
	case tensor.Uint8, tensor.Int8, tensor.Int16, tensor.Int32, tensor.Int64:
		for i, x := range v {
			v[i] = float64(tensor.FloatToInt(x, ct))
		}
	}
}

// wrapI64 wraps values to the width of integral dtype ct (bool: != 0).
func wrapI64(v []int64, ct tensor.DType) {
	for i, x := range v {
		v[i] = wrapInt(x, ct)
	}
}

func wrapInt(x int64, ct tensor.DType) int64 {
	switch ct {
	case tensor.Bool:
		if x != 0 {
			return 1
		}
		return 0
	case tensor.Uint8:
		return int64(uint8(x))
	case tensor.Int8:
		return int64(int8(x))
	case tensor.Int16:
		return int64(int16(x))
	case tensor.Int32:
		return int64(int32(x))
	}
	return x
}

// pointwiseTyped runs a same-dtype kernel over the storage slices along
// the runs of l: unit-stride runs are passed as they are; strided and
// broadcast ones are gathered into (and scattered from) block buffers.
func pointwiseTyped[T float32 | float64](l *loop, out *tensor.Tensor, ins []*tensor.Tensor, f func(dst []T, src [][]T)) {
	b := blockPool.Get().(*blocks)
	defer blockPool.Put(b)
	bufs, srcs := workBlocks[T](b, len(ins))
	od := tensor.Elems[T](out.Storage())
	var in [maxArgs][]T
	for k, t := range ins {
		in[k] = tensor.Elems[T](t.Storage())
	}
	for l.next() {
		o, n := l.offs, l.n
		for n > 0 {
			m := n
			if l.inner[0] != 1 {
				m = min(n, blockLen)
			}
			for k := range ins {
				if l.inner[k+1] != 1 {
					m = min(m, blockLen)
				}
			}
			for k := range ins {
				st := l.inner[k+1]
				if st == 1 {
					srcs[k] = in[k][o[k+1] : o[k+1]+m]
					continue
				}
				buf := bufs[k+1][:m]
				src := in[k]
				for i := range buf {
					buf[i] = src[o[k+1]+i*st]
				}
				srcs[k] = buf
			}
			if l.inner[0] == 1 {
				f(od[o[0]:o[0]+m], srcs)
			} else {
				dst := bufs[0][:m]
				f(dst, srcs)
				for i, v := range dst {
					od[o[0]+i*l.inner[0]] = v
				}
			}
			for k := 0; k <= len(ins); k++ {
				o[k] += m * l.inner[k]
			}
			n -= m
		}
	}
}

package cpu

import (
	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/internal/parallel"
	"github.com/goaten/goaten/tensor"
)

// copyInto writes src (broadcast to dst's shape) into dst, converting dtypes
// as a C cast would (floats to ints truncate, anything non-zero to bool is true).
func copyInto(dst, src *tensor.Tensor) {
	if dst.Numel() == 0 {
		return
	}
	ds, ss := dst.Storage(), src.Storage()
	dd, sd := dst.DType(), src.DType()
	if dd == sd && dd.ItemSize() > 0 {
		copySame(dst, src)
		return
	}
	if copyHalf(dst, src) {
		return
	}
	var l loop
	l.over(dst, src)
	if l.big() {
		l.split(func(sub *loop) { copyConvert(sub, ds, dd, ss, sd) })
		return
	}
	copyConvert(&l, ds, dd, ss, sd)
}

// copyConvert is copyInto's converting copy over the runs of l (operands
// dst, src).
func copyConvert(l *loop, ds *tensor.Storage, dd tensor.DType, ss *tensor.Storage, sd tensor.DType) {
	viaFloat := dd.IsFloat() || sd.IsFloat()
	var fbuf [blockLen]float64
	var ibuf [blockLen]int64
	for l.next() {
		do, so, n := l.offs[0], l.offs[1], l.n
		for n > 0 {
			m := min(n, len(fbuf))
			if viaFloat {
				loadF64(fbuf[:m], ss, sd, so, l.inner[1])
				if dd.IsFloat() || dd == tensor.Bool {
					storeF64(ds, dd, do, l.inner[0], fbuf[:m])
				} else {
					for i, v := range fbuf[:m] {
						ibuf[i] = tensor.FloatToInt(v, dd)
					}
					storeI64(ds, dd, do, l.inner[0], ibuf[:m])
				}
			} else {
				loadI64(ibuf[:m], ss, sd, so, l.inner[1])
				storeI64(ds, dd, do, l.inner[0], ibuf[:m])
			}
			n -= m
			do += m * l.inner[0]
			so += m * l.inner[1]
		}
	}
}

// copyHalf converts between float32 and float16/bfloat16 with the SIMD
// kernels over the unit-stride runs of the loop (the same rounding as
// storeF64's: to nearest even, NaN kept). It reports whether it did.
func copyHalf(dst, src *tensor.Tensor) bool {
	dd, sd := dst.DType(), src.DType()
	var widen func([]float32, []uint16)
	var narrow func([]uint16, []float32)
	switch {
	case sd == tensor.Float16 && dd == tensor.Float32:
		widen = asm.F16ToF32
	case sd == tensor.BFloat16 && dd == tensor.Float32:
		widen = asm.BF16ToF32
	case sd == tensor.Float32 && dd == tensor.Float16:
		narrow = asm.F32ToF16
	case sd == tensor.Float32 && dd == tensor.BFloat16:
		narrow = asm.F32ToBF16
	default:
		return false
	}
	var l loop
	l.over(dst, src)
	if l.done || l.rank == 0 || l.strides[0][l.rank-1] != 1 || l.strides[1][l.rank-1] != 1 {
		return false // strided or broadcast inner runs: the generic path
	}
	if widen != nil {
		runSlices(&l, tensor.Elems[float32](dst.Storage()), tensor.Elems[uint16](src.Storage()), widen)
	} else {
		runSlices(&l, tensor.Elems[uint16](dst.Storage()), tensor.Elems[float32](src.Storage()), narrow)
	}
	return true
}

// runSlices calls k on the unit-stride runs of l (operands d, s) as
// slices, sharing a big walk among goroutines.
func runSlices[D, S any](l *loop, d []D, s []S, k func(d []D, s []S)) {
	if l.big() {
		l.split(func(sub *loop) { runSlices(sub, d, s, k) })
		return
	}
	for l.next() {
		k(d[l.offs[0]:l.offs[0]+l.n], s[l.offs[1]:l.offs[1]+l.n])
	}
}

func copySame(dst, src *tensor.Tensor) {
	switch dst.DType().ItemSize() {
	case 1:
		copyTyped[uint8](dst, src)
	case 2:
		copyTyped[uint16](dst, src)
	case 4:
		copyTyped[uint32](dst, src)
	case 8:
		copyTyped[uint64](dst, src)
	}
}

func copyTyped[T uint8 | uint16 | uint32 | uint64](dst, src *tensor.Tensor) {
	d := tensor.Elems[T](dst.Storage())
	s := tensor.Elems[T](src.Storage())
	var l loop
	l.over(dst, src)
	if transposeCopy(&l, d, s) {
		return
	}
	if l.big() {
		l.split(func(sub *loop) { copyRuns(sub, d, s) })
		return
	}
	copyRuns(&l, d, s)
}

// copyRuns copies s into d along the runs of l (operands d, s).
func copyRuns[T uint8 | uint16 | uint32 | uint64](l *loop, d, s []T) {
	for l.next() {
		n := l.n
		do, so, dsd, sst := l.offs[0], l.offs[1], l.inner[0], l.inner[1]
		switch {
		case dsd == 1 && sst == 1:
			copy(d[do:do+n], s[so:so+n])
		case sst == 0:
			v := s[so]
			for i := 0; i < n; i++ {
				d[do+i*dsd] = v
			}
		default:
			for i := 0; i < n; i++ {
				d[do+i*dsd] = s[so+i*sst]
			}
		}
	}
}

// loadF64 reads len(dst) elements of dtype d from s, starting at off with stride st.
func loadF64(dst []float64, s *tensor.Storage, d tensor.DType, off, st int) {
	switch d {
	case tensor.Bool, tensor.Uint8:
		x := tensor.Elems[uint8](s)
		for i := range dst {
			dst[i] = float64(x[off+i*st])
		}
	case tensor.Int8:
		x := tensor.Elems[int8](s)
		for i := range dst {
			dst[i] = float64(x[off+i*st])
		}
	case tensor.Int16:
		x := tensor.Elems[int16](s)
		for i := range dst {
			dst[i] = float64(x[off+i*st])
		}
	case tensor.Int32:
		x := tensor.Elems[int32](s)
		for i := range dst {
			dst[i] = float64(x[off+i*st])
		}
	case tensor.Int64:
		x := tensor.Elems[int64](s)
		for i := range dst {
			dst[i] = float64(x[off+i*st])
		}
	case tensor.Float16:
		x := tensor.Elems[uint16](s)
		for i := range dst {
			dst[i] = float64(tensor.HalfToFloat32(x[off+i*st]))
		}
	case tensor.BFloat16:
		x := tensor.Elems[uint16](s)
		for i := range dst {
			dst[i] = float64(tensor.BF16ToFloat32(x[off+i*st]))
		}
	case tensor.Float32:
		x := tensor.Elems[float32](s)
		for i := range dst {
			dst[i] = float64(x[off+i*st])
		}
	case tensor.Float64:
		x := tensor.Elems[float64](s)
		for i := range dst {
			dst[i] = x[off+i*st]
		}
	}
}

// storeF64 writes src as dtype d (a float dtype or bool) into s at off with stride st.
// float64 goes to float16/bfloat16 through float32, as c10 does.
func storeF64(s *tensor.Storage, d tensor.DType, off, st int, src []float64) {
	switch d {
	case tensor.Bool:
		x := tensor.Elems[uint8](s)
		for i, v := range src {
			b := uint8(0)
			if v != 0 {
				b = 1
			}
			x[off+i*st] = b
		}
	case tensor.Float16:
		x := tensor.Elems[uint16](s)
		for i, v := range src {
			x[off+i*st] = tensor.Float32ToHalf(float32(v))
		}
	case tensor.BFloat16:
		x := tensor.Elems[uint16](s)
		for i, v := range src {
			x[off+i*st] = tensor.Float32ToBF16(float32(v))
		}
	case tensor.Float32:
		x := tensor.Elems[float32](s)
		for i, v := range src {
			x[off+i*st] = float32(v)
		}
	case tensor.Float64:
		x := tensor.Elems[float64](s)
		for i, v := range src {
			x[off+i*st] = v
		}
	default:
		panic("storeF64: not a float dtype")
	}
}

// loadI64 reads integral or bool elements as int64.
func loadI64(dst []int64, s *tensor.Storage, d tensor.DType, off, st int) {
	switch d {
	case tensor.Bool, tensor.Uint8:
		x := tensor.Elems[uint8](s)
		for i := range dst {
			dst[i] = int64(x[off+i*st])
		}
	case tensor.Int8:
		x := tensor.Elems[int8](s)
		for i := range dst {
			dst[i] = int64(x[off+i*st])
		}
	case tensor.Int16:
		x := tensor.Elems[int16](s)
		for i := range dst {
			dst[i] = int64(x[off+i*st])
		}
	case tensor.Int32:
		x := tensor.Elems[int32](s)
		for i := range dst {
			dst[i] = int64(x[off+i*st])
		}
	case tensor.Int64:
		x := tensor.Elems[int64](s)
		for i := range dst {
			dst[i] = x[off+i*st]
		}
	default:
		panic("loadI64: not an integral dtype")
	}
}

// storeI64 writes int64 values as an integral dtype (wrapping) or bool.
func storeI64(s *tensor.Storage, d tensor.DType, off, st int, src []int64) {
	switch d {
	case tensor.Bool:
		x := tensor.Elems[uint8](s)
		for i, v := range src {
			b := uint8(0)
			if v != 0 {
				b = 1
			}
			x[off+i*st] = b
		}
	case tensor.Uint8:
		x := tensor.Elems[uint8](s)
		for i, v := range src {
			x[off+i*st] = uint8(v)
		}
	case tensor.Int8:
		x := tensor.Elems[int8](s)
		for i, v := range src {
			x[off+i*st] = int8(v)
		}
	case tensor.Int16:
		x := tensor.Elems[int16](s)
		for i, v := range src {
			x[off+i*st] = int16(v)
		}
	case tensor.Int32:
		x := tensor.Elems[int32](s)
		for i, v := range src {
			x[off+i*st] = int32(v)
		}
	case tensor.Int64:
		x := tensor.Elems[int64](s)
		for i, v := range src {
			x[off+i*st] = v
		}
	default:
		panic("storeI64: not an integral dtype")
	}
}

// transposeCopy handles the 2-d copy whose source walks its rows with unit
// stride while the destination walks its columns (a transposed matrix made
// contiguous) in 32×32 tiles, so neither side strides through memory a
// whole row at a time. It reports whether the loop had that shape.
func transposeCopy[T uint8 | uint16 | uint32 | uint64](l *loop, d, s []T) bool {
	if l.rank != 2 || l.strides[0][1] != 1 || l.strides[1][0] != 1 || l.strides[1][1] <= 1 || l.strides[0][0] <= 0 {
		return false // not that shape, or a flipped (negative) stride the tiles cannot walk
	}
	rows, cols := l.shape[0], l.shape[1]
	dr, sc := l.strides[0][0], l.strides[1][1]
	do, so := l.base[0], l.base[1]
	if l.big() {
		parallel.Range(rows, (grain+cols-1)/cols, transposeTile, func(r0, r1 int) {
			transposeRows(d[do:], s[so:], dr, sc, cols, r0, r1)
		})
	} else {
		transposeRows(d[do:], s[so:], dr, sc, cols, 0, rows)
	}
	return true
}

// transposeTile is the side of the square tiles transposeRows copies.
const transposeTile = 32

// transposeRows sets d[i*dr+j] = s[i+j*sc] for rows r0 ≤ i < r1 and
// j < cols, a tile at a time so that both sides stay in cache.
func transposeRows[T uint8 | uint16 | uint32 | uint64](d, s []T, dr, sc, cols, r0, r1 int) {
	for i0 := r0; i0 < r1; i0 += transposeTile {
		i1 := min(i0+transposeTile, r1)
		for j0 := 0; j0 < cols; j0 += transposeTile {
			j1 := min(j0+transposeTile, cols)
			for i := i0; i < i1; i++ {
				drow := d[i*dr : i*dr+j1]
				for j := j0; j < j1; j++ {
					drow[j] = s[i+j*sc]
				}
			}
		}
	}
}

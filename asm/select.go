package asm

// Comparison and selection kernels over contiguous slices, the SIMD forms
// of torch.eq/ne/lt/le/gt/ge and torch.where:
//
//   - EqF32, NeF32, LtF32, LeF32, GtF32, GeF32 (and F64) set dst[i] to
//     x[i] op y[i] with IEEE semantics: a NaN operand makes every
//     comparison false but ne, which it makes true; -0 == +0.
//   - Select32 and Select64 set dst[i] = x[i] if cond[i] != 0, else y[i],
//     moving raw bits (float32/int32/uint32 and float64/int64), NaN
//     payloads kept.
//
// The results are those of the pure-Go twins in select_generic.go, bit for
// bit. All slices of one call must have the same length, or the call
// panics; dst may be an operand of its own type (in place).

// cmpOp names a comparison in the kernel tables: gt and ge are lt and le
// with the operands swapped (x > y is y < x, NaN included).
type cmpOp int

const (
	cmpEq cmpOp = iota
	cmpNe
	cmpLt
	cmpLe
	numCmpOps
)

// cmpTable holds one dtype's comparison kernels: t[op](d, x, y) sets
// d[i] = x[i] op y[i].
type cmpTable[T float32 | float64] [numCmpOps]func(d []bool, x, y []T)

// cmp32, cmp64, selectU32 and selectU64 are the kernels in use: assembly where
// the CPU has it (select_amd64.go), else the twins.
var (
	cmp32     = cmpKernels32()
	cmp64     = cmpKernels64()
	selectU32 = selKernel32()
	selectU64 = selKernel64()
)

func cmpVV[T float32 | float64](t *cmpTable[T], op cmpOp, name string, dst []bool, x, y []T) {
	checkLen(name, len(dst), len(x), len(y))
	if len(dst) > 0 {
		t[op](dst, x, y)
	}
}

// EqF32 sets dst[i] = x[i] == y[i].
func EqF32(dst []bool, x, y []float32) { cmpVV(cmp32, cmpEq, "EqF32", dst, x, y) }

// NeF32 sets dst[i] = x[i] != y[i] (true when either is NaN).
func NeF32(dst []bool, x, y []float32) { cmpVV(cmp32, cmpNe, "NeF32", dst, x, y) }

// LtF32 sets dst[i] = x[i] < y[i].
func LtF32(dst []bool, x, y []float32) { cmpVV(cmp32, cmpLt, "LtF32", dst, x, y) }

// LeF32 sets dst[i] = x[i] <= y[i].
func LeF32(dst []bool, x, y []float32) { cmpVV(cmp32, cmpLe, "LeF32", dst, x, y) }

// GtF32 sets dst[i] = x[i] > y[i].
func GtF32(dst []bool, x, y []float32) { cmpVV(cmp32, cmpLt, "GtF32", dst, y, x) }

// GeF32 sets dst[i] = x[i] >= y[i].
func GeF32(dst []bool, x, y []float32) { cmpVV(cmp32, cmpLe, "GeF32", dst, y, x) }

// EqF64 sets dst[i] = x[i] == y[i].
func EqF64(dst []bool, x, y []float64) { cmpVV(cmp64, cmpEq, "EqF64", dst, x, y) }

// NeF64 sets dst[i] = x[i] != y[i] (true when either is NaN).
func NeF64(dst []bool, x, y []float64) { cmpVV(cmp64, cmpNe, "NeF64", dst, x, y) }

// LtF64 sets dst[i] = x[i] < y[i].
func LtF64(dst []bool, x, y []float64) { cmpVV(cmp64, cmpLt, "LtF64", dst, x, y) }

// LeF64 sets dst[i] = x[i] <= y[i].
func LeF64(dst []bool, x, y []float64) { cmpVV(cmp64, cmpLe, "LeF64", dst, x, y) }

// GtF64 sets dst[i] = x[i] > y[i].
func GtF64(dst []bool, x, y []float64) { cmpVV(cmp64, cmpLt, "GtF64", dst, y, x) }

// GeF64 sets dst[i] = x[i] >= y[i].
func GeF64(dst []bool, x, y []float64) { cmpVV(cmp64, cmpLe, "GeF64", dst, y, x) }

// Select32 sets dst[i] = x[i] if cond[i] != 0, else y[i].
func Select32(dst []uint32, cond []uint8, x, y []uint32) {
	checkLen("Select32", len(dst), len(cond), len(x), len(y))
	if len(dst) > 0 {
		selectU32(dst, cond, x, y)
	}
}

// Select64 sets dst[i] = x[i] if cond[i] != 0, else y[i].
func Select64(dst []uint64, cond []uint8, x, y []uint64) {
	checkLen("Select64", len(dst), len(cond), len(x), len(y))
	if len(dst) > 0 {
		selectU64(dst, cond, x, y)
	}
}

// selBulk runs kernel k over whole vectors of w elements and the twin over
// the rest.
func selBulk[T uint32 | uint64](k func(d, x, y *T, c *uint8, n int), w int) func(d []T, c []uint8, x, y []T) {
	return func(d []T, c []uint8, x, y []T) {
		n := len(d) / w
		if n > 0 {
			_, _, _ = c[w*n-1], x[w*n-1], y[w*n-1] // all hold the vectors
			k(&d[0], &x[0], &y[0], &c[0], n)
		}
		if r := w * n; r < len(d) {
			selectGo(d[r:], c[r:], x[r:], y[r:])
		}
	}
}

// ThresholdBackwardF32 sets dst[i] = +0 where x[i] ≤ th, else g[i]: the
// gradient of threshold and relu (threshold_backward); a NaN x passes g.
func ThresholdBackwardF32(dst, g, x []float32, th float32) {
	checkLen("ThresholdBackwardF32", len(dst), len(g), len(x))
	thresholdBackward(dst, g, x, th, false)
}

// ThresholdBackwardStreamF32 is ThresholdBackwardF32 for a piece of a
// result too large for the caches (StreamsResult): stored with
// non-temporal stores from dst's first 64-byte boundary on, whatever its
// length (on amd64 with AVX2), so that each core's share of a large result
// streams as one call over the whole would.
func ThresholdBackwardStreamF32(dst, g, x []float32, th float32) {
	checkLen("ThresholdBackwardStreamF32", len(dst), len(g), len(x))
	thresholdBackward(dst, g, x, th, true)
}

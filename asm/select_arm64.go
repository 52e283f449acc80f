//go:build !purego

package asm

// The NEON blend of where, the comparisons and threshold_backward
// (select_arm64.s) do whole runs of 8 elements; the twins finish the rest.
// Go's arm64 assembler has no vector float compare (FCMEQ, FCMGT, FCMGE)
// and the style forbids raw encodings, so the comparisons compare integer
// order keys of the floats (floatkey_arm64.h).

// sel32NEON and sel64NEON set d[i] = c[i] != 0 ? x[i] : y[i] for i < 8n.
//
//go:noescape
func sel32NEON(d, x, y *uint32, c *uint8, n int)

//go:noescape
func sel64NEON(d, x, y *uint64, c *uint8, n int)

// cmp*32NEON set d[i] = x[i] op y[i] for i < 8n.
//
//go:noescape
func cmpEq32NEON(d *bool, x, y *float32, n int)

//go:noescape
func cmpNe32NEON(d *bool, x, y *float32, n int)

//go:noescape
func cmpLt32NEON(d *bool, x, y *float32, n int)

//go:noescape
func cmpLe32NEON(d *bool, x, y *float32, n int)

// cmp*64NEON set d[i] = x[i] op y[i] for i < 8n.
//
//go:noescape
func cmpEq64NEON(d *bool, x, y *float64, n int)

//go:noescape
func cmpNe64NEON(d *bool, x, y *float64, n int)

//go:noescape
func cmpLt64NEON(d *bool, x, y *float64, n int)

//go:noescape
func cmpLe64NEON(d *bool, x, y *float64, n int)

// cmpBulk8 runs kernel k over the whole runs of 8 and twin over the rest.
func cmpBulk8[T float32 | float64](k func(d *bool, x, y *T, n int), twin func(d []bool, x, y []T)) func(d []bool, x, y []T) {
	return func(d []bool, x, y []T) {
		n := len(d) / 8
		if n > 0 {
			_, _ = x[8*n-1], y[8*n-1] // both hold the runs
			k(&d[0], &x[0], &y[0], n)
		}
		if r := 8 * n; r < len(d) {
			twin(d[r:], x[r:], y[r:])
		}
	}
}

func cmpKernels32() *cmpTable[float32] {
	if !useNEON {
		return &cmpGo32
	}
	return &cmpTable[float32]{
		cmpBulk8(cmpEq32NEON, eqGo[float32]), cmpBulk8(cmpNe32NEON, neGo[float32]),
		cmpBulk8(cmpLt32NEON, ltGo[float32]), cmpBulk8(cmpLe32NEON, leGo[float32]),
	}
}

func cmpKernels64() *cmpTable[float64] {
	if !useNEON {
		return &cmpGo64
	}
	return &cmpTable[float64]{
		cmpBulk8(cmpEq64NEON, eqGo[float64]), cmpBulk8(cmpNe64NEON, neGo[float64]),
		cmpBulk8(cmpLt64NEON, ltGo[float64]), cmpBulk8(cmpLe64NEON, leGo[float64]),
	}
}

func selKernel32() func(d []uint32, c []uint8, x, y []uint32) {
	if !useNEON {
		return selectGo[uint32]
	}
	return selBulk(sel32NEON, 8)
}

func selKernel64() func(d []uint64, c []uint8, x, y []uint64) {
	if !useNEON {
		return selectGo[uint64]
	}
	return selBulk(sel64NEON, 8)
}

// thresholdBwdNEON sets d[i] = +0 if x[i] ≤ th, else gr[i], for i < 8n;
// th must not be NaN.
//
//go:noescape
func thresholdBwdNEON(d, gr, x *float32, th float32, n int)

// thresholdBackward runs thresholdBwdNEON over the whole runs of 8 and the
// twin over the rest; a NaN th (every d[i] = g[i]) runs the twin.
func thresholdBackward(d, g, x []float32, th float32, _ bool) {
	n := 0
	if useNEON && th == th {
		n = len(d) / 8
	}
	if n > 0 {
		_, _ = g[8*n-1], x[8*n-1] // both hold the runs
		thresholdBwdNEON(&d[0], &g[0], &x[0], th, n)
	}
	thresholdBackwardGo(d[8*n:], g[8*n:], x[8*n:], th)
}

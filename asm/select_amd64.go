//go:build !purego

package asm

// The AVX2 comparison and selection kernels (select_amd64.s) do whole
// vectors of 8 elements (select64: 4); the twins finish the rest.

// cmp*32 and cmp*64 set d[i] for i < 8n from x[i] op y[i]: each vector's
// compare mask (VMOVMSKPS, 8 bits) indexes tab, whose entry holds those
// 8 bools.
//
//go:noescape
func cmpEq32(d *bool, x, y *float32, n int, tab *[256]uint64)

//go:noescape
func cmpNe32(d *bool, x, y *float32, n int, tab *[256]uint64)

//go:noescape
func cmpLt32(d *bool, x, y *float32, n int, tab *[256]uint64)

//go:noescape
func cmpLe32(d *bool, x, y *float32, n int, tab *[256]uint64)

//go:noescape
func cmpEq64(d *bool, x, y *float64, n int, tab *[256]uint64)

//go:noescape
func cmpNe64(d *bool, x, y *float64, n int, tab *[256]uint64)

//go:noescape
func cmpLt64(d *bool, x, y *float64, n int, tab *[256]uint64)

//go:noescape
func cmpLe64(d *bool, x, y *float64, n int, tab *[256]uint64)

// sel32 sets d[i] = c[i] != 0 ? x[i] : y[i] for i < 8n; sel64 for i < 4n.
//
//go:noescape
func sel32(d, x, y *uint32, c *uint8, n int)

//go:noescape
func sel64(d, x, y *uint64, c *uint8, n int)

// maskBools[m] holds, byte by byte, the 8 bools of the bits of m.
var maskBools = func() (t [256]uint64) {
	for m := range t {
		for b := 0; b < 8; b++ {
			t[m] |= uint64(m>>b&1) << (8 * b)
		}
	}
	return t
}()

// cmpBulk runs kernel k over the whole vectors of 8 and twin over the rest.
func cmpBulk[T float32 | float64](k func(d *bool, x, y *T, n int, tab *[256]uint64), twin func(d []bool, x, y []T)) func(d []bool, x, y []T) {
	return func(d []bool, x, y []T) {
		n := len(d) / 8
		if n > 0 {
			_, _ = x[8*n-1], y[8*n-1] // both hold the vectors
			k(&d[0], &x[0], &y[0], n, &maskBools)
		}
		if r := 8 * n; r < len(d) {
			twin(d[r:], x[r:], y[r:])
		}
	}
}

func cmpKernels32() *cmpTable[float32] {
	if !useAVX2FMA {
		return &cmpGo32
	}
	return &cmpTable[float32]{
		cmpBulk(cmpEq32, eqGo[float32]), cmpBulk(cmpNe32, neGo[float32]),
		cmpBulk(cmpLt32, ltGo[float32]), cmpBulk(cmpLe32, leGo[float32]),
	}
}

func cmpKernels64() *cmpTable[float64] {
	if !useAVX2FMA {
		return &cmpGo64
	}
	return &cmpTable[float64]{
		cmpBulk(cmpEq64, eqGo[float64]), cmpBulk(cmpNe64, neGo[float64]),
		cmpBulk(cmpLt64, ltGo[float64]), cmpBulk(cmpLe64, leGo[float64]),
	}
}

func selKernel32() func(d []uint32, c []uint8, x, y []uint32) {
	if !useAVX2FMA {
		return selectGo[uint32]
	}
	return selBulk(sel32, 8)
}

func selKernel64() func(d []uint64, c []uint8, x, y []uint64) {
	if !useAVX2FMA {
		return selectGo[uint64]
	}
	return selBulk(sel64, 4)
}

// thresholdBwd32 sets d[i] = +0 if x[i] ≤ th, else gr[i], for i < 8n.
//
//go:noescape
func thresholdBwd32(d, gr, x *float32, th float32, n int)

// thresholdBwd32NT is thresholdBwd32 with non-temporal stores (d 32-byte
// aligned).
//
//go:noescape
func thresholdBwd32NT(d, gr, x *float32, th float32, n int)

// thresholdBackward runs thresholdBwd32 over the whole vectors of 8 with
// AVX2 and the twin over the rest; with stream, or for a result of
// streamBytes and more, thresholdBwd32NT from the first 64-byte boundary on.
func thresholdBackward(d, g, x []float32, th float32, stream bool) {
	if !useAVX2FMA {
		thresholdBackwardGo(d, g, x, th)
		return
	}
	i := 0
	k := thresholdBwd32
	if len(d) > 0 {
		if h, ok := streamHead(d); ok || stream {
			h = min(alignHead(d), len(d))
			thresholdBackwardGo(d[:h], g[:h], x[:h], th)
			i, k = h, thresholdBwd32NT
		}
	}
	if n := (len(d) - i) / 8; n > 0 {
		_, _ = g[i+8*n-1], x[i+8*n-1] // both hold the vectors
		k(&d[i], &g[i], &x[i], th, n)
		i += 8 * n
	}
	thresholdBackwardGo(d[i:], g[i:], x[i:], th)
}

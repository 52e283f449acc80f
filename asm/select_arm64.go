//go:build !purego

package asm

// The NEON blend of where (select_arm64.s) does whole runs of 8 elements;
// the twin finishes the rest. The comparisons run their twins: Go's arm64
// assembler has no vector float compare (FCMEQ, FCMGT, FCMGE) and the style
// forbids raw encodings.

// sel32NEON and sel64NEON set d[i] = c[i] != 0 ? x[i] : y[i] for i < 8n.
//
//go:noescape
func sel32NEON(d, x, y *uint32, c *uint8, n int)

//go:noescape
func sel64NEON(d, x, y *uint64, c *uint8, n int)

func cmpKernels32() *cmpTable[float32] { return &cmpGo32 }
func cmpKernels64() *cmpTable[float64] { return &cmpGo64 }

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

// thresholdBackward runs the twin on arm64 (no float compare in Go's
// arm64 assembler).
func thresholdBackward(d, g, x []float32, th float32) { thresholdBackwardGo(d, g, x, th) }

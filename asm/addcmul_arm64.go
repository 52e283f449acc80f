//go:build !purego

package asm

// The NEON addcmul kernels (addcmul_arm64.s). Their loops are the twins'
// in addcmul_generic.go.

//go:noescape
func addcmul32(d, x, t1, t2 []float32, v float32)

//go:noescape
func addcmul64(d, x, t1, t2 []float64, v float64)

var addcmulNEON = addcmulTable{f32: addcmul32, f64: addcmul64}

func addcmulKernels() *addcmulTable {
	if useNEON {
		return &addcmulNEON
	}
	return &addcmulGo
}

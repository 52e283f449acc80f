package asm

import "fmt"

// Dealing a row into its even and odd elements and back: the columns of
// a convolution of stride 2 (device/cpu's depthwise convolutions).

// deal and merge are the kernels in use (deal_amd64.go; the twins in
// deal_generic.go).
var deal, merge = dealKernels()

// DealF32 sets even[j] = x[2j] and odd[j] = x[2j+1]: x dealt into its even
// and odd elements. It panics unless len(even) = ⌈len(x)/2⌉ and
// len(odd) = ⌊len(x)/2⌋.
func DealF32(even, odd, x []float32) {
	dealCheck("DealF32", even, odd, x)
	deal(even, odd, x)
}

// MergeF32 is DealF32's inverse: x[2j] = even[j], x[2j+1] = odd[j].
func MergeF32(x, even, odd []float32) {
	dealCheck("MergeF32", even, odd, x)
	merge(x, even, odd)
}

func dealCheck(op string, even, odd, x []float32) {
	if len(even) != (len(x)+1)/2 || len(odd) != len(x)/2 {
		panic(fmt.Sprintf("asm.%s: %d elements dealt into %d and %d", op, len(x), len(even), len(odd)))
	}
}

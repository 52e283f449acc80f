package asm

import "fmt"

// Dealing a row into its even and odd elements and back: the columns of
// a convolution of stride 2 (device/cpu's depthwise convolutions).

// deal, merge and mergeRows are the kernels in use (deal_amd64.go; the
// twins in deal_generic.go).
var (
	deal, merge = dealKernels()
	mergeRows   = mergeRowsKernel()
)

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

// MergeRowsF32 merges rows of w pairs into rows of x ldx apart: for each
// r < rows, x[r·ldx + 2j] = even[r·w + j] and x[r·ldx + 2j + 1] =
// odd[r·w + j], j < w (MergeF32 of each row; the input gradient of a
// depthwise convolution of stride 2 writes its phases' rows straight into
// the result's, which are two rows apart). It panics unless ldx ≥ 2w, even
// and odd hold rows·w elements and x holds the rows. x must not overlap
// even or odd.
func MergeRowsF32(x []float32, ldx int, even, odd []float32, rows, w int) {
	if rows < 0 || w < 0 || ldx < 2*w || len(even) < rows*w || len(odd) < rows*w || rows > 0 && (rows-1)*ldx+2*w > len(x) {
		panic(fmt.Sprintf("asm.MergeRowsF32: %d rows of %d pairs from %d and %d into rows %d apart in %d", rows, w, len(even), len(odd), ldx, len(x)))
	}
	if rows == 0 || w == 0 {
		return
	}
	mergeRows(x, ldx, even, odd, rows, w)
}

func dealCheck(op string, even, odd, x []float32) {
	if len(even) != (len(x)+1)/2 || len(odd) != len(x)/2 {
		panic(fmt.Sprintf("asm.%s: %d elements dealt into %d and %d", op, len(x), len(even), len(odd)))
	}
}

package asm

// The pure-Go twins of the Sgemv kernels, run where the assembly is not
// (and for blocks too narrow for it). fma32 is the kernels' fused
// multiply-add, rounded once.

// gemvNGo is the twin of gemvNF32: for B row-major with row stride ldb,
//
//	y[j] = +0 for j < len(y); then for p < len(x), for j < len(y):
//	    y[j] = x[p]·b[p*ldb+j] + y[j]
//
// one fused multiply-add a step, rows of B in order (each y[j] is the
// in-order sum of its column from +0).
func gemvNGo(y, x, b []float32, ldb int) {
	clear(y)
	for p, v := range x {
		row := b[p*ldb : p*ldb+len(y)]
		for j, w := range row {
			y[j] = fma32(v, w, y[j])
		}
	}
}

// gemvTLanesGo is the twin of gemvTLanesF32: for rows r < len(lanes)/8
// of B (row stride ldb), with k32 = len(x)&^31 and k8 = len(x)&^7, it
// sums x·b[r] in 32 lanes
//
//	acc[l] = Σ_{p<k32, p%32 == l} x[p]·b[r*ldb+p]
//	       + Σ_{k32≤p<k8, p%8 == l} x[p]·b[r*ldb+p]   (l < 8 only)
//
// one fused multiply-add a step, in order, from +0 (the row streams
// through four vectors of eight lanes, the last whole eights through the
// first), then adds the vectors: lanes[r*8+l] = (acc[l] + acc[l+8]) +
// (acc[l+16] + acc[l+24]).
func gemvTLanesGo(lanes, x, b []float32, ldb int) {
	k32, k8 := len(x)&^31, len(x)&^7
	for r := range len(lanes) / 8 {
		var acc [32]float32
		row := b[r*ldb : r*ldb+k8]
		for p := 0; p < k32; p += 32 {
			for l := range acc {
				acc[l] = fma32(x[p+l], row[p+l], acc[l])
			}
		}
		for p := k32; p < k8; p += 8 {
			for l := range 8 {
				acc[l] = fma32(x[p+l], row[p+l], acc[l])
			}
		}
		for l := range 8 {
			lanes[r*8+l] = (acc[l] + acc[l+8]) + (acc[l+16] + acc[l+24])
		}
	}
}

// gemvFold finishes one dot product x·row from its eight lanes: it folds
// them pairwise (lane l with l+4, then l with l+2, then 0 with 1, as a
// vector register folds) and adds the last len(x)%8 products in order.
func gemvFold(lanes, x, row []float32) float32 {
	a0, a1 := lanes[0]+lanes[4], lanes[1]+lanes[5]
	a2, a3 := lanes[2]+lanes[6], lanes[3]+lanes[7]
	s := (a0 + a2) + (a1 + a3)
	for p := len(x) &^ 7; p < len(x); p++ {
		s = fma32(x[p], row[p], s)
	}
	return s
}

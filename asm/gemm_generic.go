package asm

// gemmKernelGo is the pure-Go twin of the sgemm and dgemm micro-kernels,
// for any mr×nr tile up to 512 elements: with packed slivers a (k steps of
// mr) and b (k steps of nr) it does
//
//	for i < mr, j < nr: c[i*ldc+j] += Σ_{p<k} a[p*mr+i] * b[p*nr+j]
//
// summing in a tile of registers first, as the assembly does.
func gemmKernelGo[T float32 | float64](mr, nr, k int, a, b, c []T, ldc int) {
	gemmRowsGo(mr, mr, nr, k, a, b, c, ldc)
}

// gemmRowsGo is gemmKernelGo for the first rows rows of the tile only (A's
// steps still mr apart), the twin of the bottom-edge kernels.
func gemmRowsGo[T float32 | float64](mr, rows, nr, k int, a, b, c []T, ldc int) {
	var acc [512]T
	t := acc[:rows*nr]
	for p := 0; p < k; p++ {
		bp := b[p*nr : p*nr+nr]
		for i, ai := range a[p*mr : p*mr+rows] {
			row := t[i*nr : i*nr+nr]
			for j, bj := range bp {
				row[j] += ai * bj
			}
		}
	}
	for i := 0; i < rows; i++ {
		row := c[i*ldc : i*ldc+nr]
		for j, v := range t[i*nr : i*nr+nr] {
			row[j] += v
		}
	}
}

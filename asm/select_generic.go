package asm

// The pure-Go twins of the comparison and selection kernels (select.go).

func eqGo[T float32 | float64](d []bool, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		d[i] = x[i] == y[i]
	}
}

func neGo[T float32 | float64](d []bool, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		d[i] = x[i] != y[i]
	}
}

func ltGo[T float32 | float64](d []bool, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		d[i] = x[i] < y[i]
	}
}

func leGo[T float32 | float64](d []bool, x, y []T) {
	x, y = x[:len(d)], y[:len(d)]
	for i := range d {
		d[i] = x[i] <= y[i]
	}
}

// selectGo sets d[i] = x[i] if c[i] != 0, else y[i].
func selectGo[T uint32 | uint64](d []T, c []uint8, x, y []T) {
	c, x, y = c[:len(d)], x[:len(d)], y[:len(d)]
	for i := range d {
		if c[i] != 0 {
			d[i] = x[i]
		} else {
			d[i] = y[i]
		}
	}
}

var (
	cmpGo32 = cmpTable[float32]{eqGo[float32], neGo[float32], ltGo[float32], leGo[float32]}
	cmpGo64 = cmpTable[float64]{eqGo[float64], neGo[float64], ltGo[float64], leGo[float64]}
)

// thresholdBackwardGo sets d[i] = +0 if x[i] ≤ th, else g[i].
func thresholdBackwardGo(d, g, x []float32, th float32) {
	for i, v := range x {
		if v <= th {
			d[i] = 0
		} else {
			d[i] = g[i]
		}
	}
}

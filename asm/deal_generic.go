package asm

// dealGo is DealF32's twin.
func dealGo(even, odd, x []float32) {
	for j, v := range odd {
		p := x[2*j:][:2]
		even[j], v = p[0], p[1]
		odd[j] = v
	}
	if len(even) > len(odd) {
		even[len(odd)] = x[len(x)-1]
	}
}

// mergeGo is MergeF32's twin.
func mergeGo(x, even, odd []float32) {
	for j, v := range odd {
		p := x[2*j:][:2]
		p[0], p[1] = even[j], v
	}
	if len(even) > len(odd) {
		x[len(x)-1] = even[len(odd)]
	}
}

// mergeRowsGo is MergeRowsF32's twin.
func mergeRowsGo(x []float32, ldx int, even, odd []float32, rows, w int) {
	for r := range rows {
		mergeGo(x[r*ldx:][:2*w], even[r*w:][:w], odd[r*w:][:w])
	}
}

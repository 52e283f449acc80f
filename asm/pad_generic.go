package asm

// padRowsGo is PadRowsU32's twin.
func padRowsGo(x []uint32, ldx int, src []uint32, lds, rows, left, n, right int, v uint32) {
	for r := range rows {
		row := x[r*ldx:][:left+n+right]
		for j := range row[:left] {
			row[j] = v
		}
		copy(row[left:], src[r*lds:][:n])
		for j := left + n; j < len(row); j++ {
			row[j] = v
		}
	}
}

package cpu

import "github.com/goaten/goaten/asm"

// A gather reads a strided or broadcast float32 tensor in the flat order of
// a tile's iteration space: the operand's strides over the space's dims (0
// on broadcast dims), dims merged where the operand's layout allows, so a
// bias broadcast over rows becomes copies of whole rows and a per-row value
// becomes runs of one value.

// gatherSpec is an operand laid over an iteration space of the given sizes.
type gatherSpec struct {
	sizes, strides []int // merged dims, outermost first
}

// newGather lays an operand of sizes/strides over space (the operand
// broadcasts to it: its dims align with space's last ones).
func newGather(space, sizes, strides []int) gatherSpec {
	r := len(space)
	st := make([]int, r)
	off := r - len(sizes)
	for i := range sizes {
		if sizes[i] != 1 {
			st[off+i] = strides[i]
		}
	}
	var g gatherSpec
	for i := 0; i < r; i++ {
		if space[i] == 1 {
			continue
		}
		if n := len(g.sizes); n > 0 && g.strides[n-1] == st[i]*space[i] {
			g.sizes[n-1] *= space[i]
			g.strides[n-1] = st[i]
			continue
		}
		g.sizes = append(g.sizes, space[i])
		g.strides = append(g.strides, st[i])
	}
	if len(g.sizes) == 0 {
		g.sizes, g.strides = []int{1}, []int{0}
	}
	return g
}

// gather sets dst to the elements lo, lo+1, ... of the space (flat,
// row-major), read from src at offset off.
func (g *gatherSpec) gather(dst, src []float32, off, lo int) { gatherInto(g, dst, src, off, lo) }

// gatherInto is gather for float32 values and for bools (as bytes).
func gatherInto[T float32 | uint8](g *gatherSpec, dst, src []T, off, lo int) {
	r := len(g.sizes)
	var idxBuf [8]int
	idx := idxBuf[:0]
	if r > len(idxBuf) {
		idx = make([]int, r)
	} else {
		idx = idxBuf[:r]
	}
	// Decompose lo into a multi-index.
	p := off
	rem := lo
	for i := r - 1; i >= 0; i-- {
		idx[i] = rem % g.sizes[i]
		rem /= g.sizes[i]
		p += idx[i] * g.strides[i]
	}
	inner, ist := g.sizes[r-1], g.strides[r-1]
	for len(dst) > 0 {
		run := min(inner-idx[r-1], len(dst))
		d := dst[:run]
		switch ist {
		case 1:
			copy(d, src[p:p+run])
		case 0:
			asm.Fill(d, src[p])
		default:
			q := p
			for i := range d {
				d[i] = src[q]
				q += ist
			}
		}
		dst = dst[run:]
		// Advance the multi-index by run.
		idx[r-1] += run
		p += run * ist
		for i := r - 1; i > 0 && idx[i] == g.sizes[i]; i-- {
			p -= g.sizes[i] * g.strides[i]
			idx[i] = 0
			idx[i-1]++
			p += g.strides[i-1]
		}
	}
}

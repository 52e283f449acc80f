package cpu

import "github.com/goaten/goaten/tensor"

// maxArgs bounds the operands of one strided loop.
const maxArgs = 6

// loop is a TensorIterator-style walk over a shape shared by several operands,
// each with its own strides (0 for broadcast dims) and storage offset. Dims
// that are contiguous with each other for every operand are coalesced, so a
// contiguous tensor is one run. Each inner run goes to a kernel as offsets
// plus per-operand inner strides; a stride of 1 for everyone means plain slices.
type loop struct {
	n       int // operands
	shape   []int
	strides [maxArgs][]int
	offsets [maxArgs]int
}

// newLoop sets up a loop over shape for operands given as (strides, offset).
// strides must have len(shape) entries each.
func newLoop(shape []int, strides [][]int, offsets []int) *loop {
	l := &loop{n: len(strides)}
	if l.n > maxArgs {
		panic("cpu: too many loop operands")
	}
	copy(l.offsets[:], offsets)
	// Drop size-1 dims, then coalesce neighbours.
	var sh []int
	var st [maxArgs][]int
	for d := 0; d < len(shape); d++ {
		if shape[d] == 1 {
			continue
		}
		if len(sh) > 0 {
			prev := len(sh) - 1
			ok := true
			for k := 0; k < l.n; k++ {
				if st[k][prev] != strides[k][d]*shape[d] {
					ok = false
					break
				}
			}
			if ok {
				sh[prev] *= shape[d]
				for k := 0; k < l.n; k++ {
					st[k][prev] = strides[k][d]
				}
				continue
			}
		}
		sh = append(sh, shape[d])
		for k := 0; k < l.n; k++ {
			st[k] = append(st[k], strides[k][d])
		}
	}
	for _, s := range shape {
		if s == 0 {
			sh = []int{0}
			for k := 0; k < l.n; k++ {
				st[k] = []int{0}
			}
			break
		}
	}
	l.shape = sh
	l.strides = st
	return l
}

// run calls fn for each inner run: offs holds the storage offset of the run's
// first element per operand, n its length, and inner the per-operand stride.
func (l *loop) run(fn func(offs *[maxArgs]int, n int, inner *[maxArgs]int)) {
	rank := len(l.shape)
	offs := l.offsets
	var inner [maxArgs]int
	if rank == 0 {
		fn(&offs, 1, &inner)
		return
	}
	n := l.shape[rank-1]
	if n == 0 {
		return
	}
	for k := 0; k < l.n; k++ {
		inner[k] = l.strides[k][rank-1]
	}
	outer := 1
	for _, s := range l.shape[:rank-1] {
		outer *= s
	}
	var idx [16]int
	var idxs []int
	if rank-1 <= len(idx) {
		idxs = idx[:rank-1]
	} else {
		idxs = make([]int, rank-1)
	}
	for it := 0; it < outer; it++ {
		fn(&offs, n, &inner)
		for d := rank - 2; d >= 0; d-- {
			idxs[d]++
			for k := 0; k < l.n; k++ {
				offs[k] += l.strides[k][d]
			}
			if idxs[d] < l.shape[d] {
				break
			}
			for k := 0; k < l.n; k++ {
				offs[k] -= idxs[d] * l.strides[k][d]
			}
			idxs[d] = 0
		}
	}
}

// loopOver builds a loop over out's shape for out followed by inputs that
// broadcast to it.
func loopOver(out *tensor.Tensor, ins ...*tensor.Tensor) *loop {
	shape := out.Sizes()
	strides := make([][]int, 1+len(ins))
	offsets := make([]int, 1+len(ins))
	strides[0] = out.Strides()
	offsets[0] = out.StorageOffset()
	for i, t := range ins {
		strides[i+1] = tensor.BroadcastStrides(t, shape)
		offsets[i+1] = t.StorageOffset()
	}
	return newLoop(shape, strides, offsets)
}

package cpu

import "github.com/goaten/goaten/tensor"

// maxArgs bounds the operands of one strided loop.
const maxArgs = 6

// maxDims bounds the rank a loop handles after coalescing; a tensor needs
// more than 16 dims that cannot merge with their neighbours to reach it.
const maxDims = 16

// loop is a TensorIterator-style walk over a shape shared by several operands,
// each with its own strides (0 for broadcast dims) and storage offset. Dims
// that are contiguous with each other for every operand are coalesced, so a
// contiguous tensor is one run. Each inner run goes to a kernel as offsets
// plus per-operand inner strides; a stride of 1 for everyone means plain slices.
//
// A loop lives on the stack: set it up with init or over, then
//
//	for l.next() { ... l.offs[k], l.n, l.inner[k] ... }
type loop struct {
	nargs   int
	rank    int
	shape   [maxDims]int
	strides [maxArgs][maxDims]int
	base    [maxArgs]int

	// Iteration state: the current run.
	offs    [maxArgs]int // storage offset of the run's first element, per operand
	inner   [maxArgs]int // stride within the run, per operand
	n       int          // run length
	idx     [maxDims]int
	order   [maxDims]int // scratch for walkOrder
	started bool
	done    bool
}

// init sets up a loop over shape for operands given as (strides, offset);
// strides[k] must have len(shape) entries.
func (l *loop) init(shape []int, strides [][]int, offsets []int) {
	l.nargs = len(strides)
	if l.nargs > maxArgs {
		tensor.Panicf("strided loop: too many operands")
	}
	l.rank = 0
	l.started, l.done = false, false
	copy(l.base[:], offsets)
	for _, d := range walkOrder(l.order[:0], shape, strides[0]) {
		s := shape[d]
		if s == 0 {
			l.done = true
		}
		if s == 1 {
			continue
		}
		if r := l.rank - 1; r >= 0 {
			ok := true
			for k := 0; k < l.nargs; k++ {
				if l.strides[k][r] != strides[k][d]*s {
					ok = false
					break
				}
			}
			if ok {
				l.shape[r] *= s
				for k := 0; k < l.nargs; k++ {
					l.strides[k][r] = strides[k][d]
				}
				continue
			}
		}
		if l.rank == maxDims {
			tensor.Panicf("strided loop: more than %d dims that cannot be coalesced are not supported", maxDims)
		}
		l.shape[l.rank] = s
		for k := 0; k < l.nargs; k++ {
			l.strides[k][l.rank] = strides[k][d]
		}
		l.rank++
	}
}

// walkOrder is the order in which init visits dims, outermost first: the
// given order, unless the first operand (the output) has no overlapping
// (0-stride) dims and is laid out in another order — a transposed or
// channels-last output — in which case its dims are visited by decreasing
// stride, so the walk follows memory as TensorIterator's reordering does.
func walkOrder(order, shape, strides []int) []int {
	if len(shape) > cap(order) {
		order = make([]int, 0, len(shape))
	}
	sorted := true
	for d := range shape {
		if shape[d] == 1 {
			continue
		}
		if strides[d] <= 0 {
			return identityOrder(len(shape))
		}
		if n := len(order); n > 0 && strides[order[n-1]] < strides[d] {
			sorted = false
		}
		order = append(order, d)
	}
	if sorted {
		return identityOrder(len(shape))
	}
	// Insertion sort by decreasing stride (stable; ranks are small).
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && strides[order[j-1]] < strides[order[j]]; j-- {
			order[j-1], order[j] = order[j], order[j-1]
		}
	}
	return order
}

var identity = func() []int {
	o := make([]int, 64)
	for i := range o {
		o[i] = i
	}
	return o
}()

func identityOrder(n int) []int {
	if n <= len(identity) {
		return identity[:n]
	}
	o := make([]int, n)
	for i := range o {
		o[i] = i
	}
	return o
}

// over sets up a loop over out's shape for out followed by inputs that
// broadcast to it.
func (l *loop) over(out *tensor.Tensor, ins ...*tensor.Tensor) {
	shape := out.Sizes()
	rank := len(shape)
	if 1+len(ins) > maxArgs {
		tensor.Panicf("strided loop: too many operands")
	}
	if rank > maxDims {
		l.overSlow(out, ins...)
		return
	}
	var st [maxArgs][maxDims]int
	var sl [maxArgs][]int
	var offs [maxArgs]int
	copy(st[0][:], out.Strides())
	sl[0] = st[0][:rank]
	offs[0] = out.StorageOffset()
	for i, t := range ins {
		k := i + 1
		ts, tst := t.Sizes(), t.Strides()
		off := rank - len(ts)
		for d := 0; d < rank; d++ {
			switch {
			case d < off:
				st[k][d] = 0
			case ts[d-off] == 1 && shape[d] != 1:
				st[k][d] = 0
			default:
				st[k][d] = tst[d-off]
			}
		}
		sl[k] = st[k][:rank]
		offs[k] = t.StorageOffset()
	}
	l.init(shape, sl[:1+len(ins)], offs[:1+len(ins)])
}

// overSlow is over for ranks above maxDims: strides go through heap slices
// (the coalesced rank is checked by init).
func (l *loop) overSlow(out *tensor.Tensor, ins ...*tensor.Tensor) {
	strides := make([][]int, 1+len(ins))
	offsets := make([]int, 1+len(ins))
	strides[0], offsets[0] = out.Strides(), out.StorageOffset()
	for i, t := range ins {
		strides[i+1], offsets[i+1] = tensor.BroadcastStrides(t, out.Sizes()), t.StorageOffset()
	}
	l.init(out.Sizes(), strides, offsets)
}

// next advances to the next inner run and reports whether there is one.
func (l *loop) next() bool {
	if l.done {
		return false
	}
	if !l.started {
		l.started = true
		l.offs = l.base
		if l.rank == 0 {
			l.n = 1
			l.inner = [maxArgs]int{}
			l.done = true // a single run
			l.started = true
			return true
		}
		l.n = l.shape[l.rank-1]
		for k := 0; k < l.nargs; k++ {
			l.inner[k] = l.strides[k][l.rank-1]
		}
		for d := 0; d < l.rank-1; d++ {
			l.idx[d] = 0
		}
		return true
	}
	for d := l.rank - 2; d >= 0; d-- {
		l.idx[d]++
		for k := 0; k < l.nargs; k++ {
			l.offs[k] += l.strides[k][d]
		}
		if l.idx[d] < l.shape[d] {
			return true
		}
		for k := 0; k < l.nargs; k++ {
			l.offs[k] -= l.idx[d] * l.strides[k][d]
		}
		l.idx[d] = 0
	}
	l.done = true
	return false
}

// run calls fn for each inner run: offs holds the storage offset of the run's
// first element per operand, n its length, and inner the per-operand stride.
func (l *loop) run(fn func(offs *[maxArgs]int, n int, inner *[maxArgs]int)) {
	for l.next() {
		fn(&l.offs, l.n, &l.inner)
	}
}

// newLoop returns a loop over shape for operands given as (strides, offset).
func newLoop(shape []int, strides [][]int, offsets []int) *loop {
	l := new(loop)
	l.init(shape, strides, offsets)
	return l
}

// loopOver returns a loop over out's shape for out followed by inputs that
// broadcast to it.
func loopOver(out *tensor.Tensor, ins ...*tensor.Tensor) *loop {
	l := new(loop)
	l.over(out, ins...)
	return l
}

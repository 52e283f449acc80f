package cpu

import (
	"github.com/goaten/goaten/internal/parallel"
	"github.com/goaten/goaten/tensor"
)

// maxArgs bounds the operands of one strided loop.
const maxArgs = 6

// grain is the number of elements below which a loop runs on the calling
// goroutine alone (PyTorch's at::internal::GRAIN_SIZE); above twice that a
// walk is shared among GOMAXPROCS goroutines of the worker pool.
const grain = 32768

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

	// A walk restricted by seek to a range of its elements.
	limited bool
	pending bool // the first run, set up by seek, is not yet returned
	remain  int  // elements after the current run
	pos     int  // index of the current run's first element within its row
}

// init sets up a loop over shape for operands given as (strides, offset);
// strides[k] must have len(shape) entries.
func (l *loop) init(shape []int, strides [][]int, offsets []int) {
	l.nargs = len(strides)
	if l.nargs > maxArgs {
		tensor.Panicf("strided loop: too many operands")
	}
	l.rank = 0
	l.started, l.done, l.limited, l.pending, l.pos = false, false, false, false, 0
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
	if l.pending {
		l.pending = false
		return true
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
	if l.limited {
		if l.remain == 0 {
			l.done = true
			return false
		}
		for k := 0; k < l.nargs; k++ {
			l.offs[k] -= l.pos * l.inner[k]
		}
		l.pos = 0
		l.n = min(l.shape[l.rank-1], l.remain)
		l.remain -= l.n
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

// numel is the number of elements the walk visits.
func (l *loop) numel() int {
	if l.done && !l.started {
		return 0 // a zero-size dim
	}
	n := 1
	for d := 0; d < l.rank; d++ {
		n *= l.shape[d]
	}
	return n
}

// seek restricts the walk to its elements lo, …, hi-1 (in walk order,
// 0 <= lo < hi <= numel): the next call to next returns the run that holds
// element lo, and the walk ends after element hi-1.
func (l *loop) seek(lo, hi int) {
	if l.rank == 0 {
		return // one element: the whole walk
	}
	last := l.rank - 1
	w := l.shape[last]
	l.pos = lo % w
	q := lo / w
	l.offs = l.base
	for d := last - 1; d >= 0; d-- {
		l.idx[d] = q % l.shape[d]
		q /= l.shape[d]
		for k := 0; k < l.nargs; k++ {
			l.offs[k] += l.idx[d] * l.strides[k][d]
		}
	}
	for k := 0; k < l.nargs; k++ {
		l.inner[k] = l.strides[k][last]
		l.offs[k] += l.pos * l.inner[k]
	}
	l.n = min(w-l.pos, hi-lo)
	l.remain = hi - lo - l.n
	l.started, l.pending, l.limited = true, true, true
}

// big reports whether the walk is long enough to be shared among goroutines
// (a piece from split never is again), there is more than one of them
// (GOMAXPROCS: on one the kernel walks serially and allocates nothing for
// split's goroutines), and its first operand, the output, has no broadcast
// (0-stride) dim: where several elements write one location, the last
// write must win, as in a serial walk.
func (l *loop) big() bool {
	if l.limited || parallel.Pieces(l.numel(), grain) < 2 {
		return false
	}
	for d := 0; d < l.rank; d++ {
		if l.strides[0][d] == 0 {
			return false
		}
	}
	return true
}

// split runs fn over pieces of the walk, in parallel: each call gets its own
// copy of l restricted by seek to a range of elements. It is for walks that
// are big; fn must only write what its own elements determine.
func (l *loop) split(fn func(sub *loop)) {
	base := *l // a copy, so that only this path moves a loop to the heap
	parallel.Range(base.numel(), grain, 64, func(lo, hi int) {
		sub := base
		sub.seek(lo, hi)
		fn(&sub)
	})
}

// keptDim returns the dim of a big reduction walk (operand 0 the
// accumulator, broadcast with stride 0 over the reduced dims) to share
// among goroutines: the longest dim the accumulator does not broadcast
// over; -1 when there is none or the walk is not shared (small, or one
// goroutine: see big).
func (l *loop) keptDim() int {
	if l.limited || parallel.Pieces(l.numel(), grain) < 2 {
		return -1
	}
	best := -1
	for d := 0; d < l.rank; d++ {
		if l.strides[0][d] != 0 && l.shape[d] > 1 && (best < 0 || l.shape[d] > l.shape[best]) {
			best = d
		}
	}
	return best
}

// splitDim runs fn over pieces of the walk, in parallel: each call gets its
// own copy of l with dim d narrowed to a range of its indices. With d from
// keptDim the pieces update disjoint accumulators, and each accumulator
// sees its elements in the order of the serial walk and, unless d is the
// inner dim (whose runs the reductions take element by element), in the
// same inner runs: the result does not depend on the split.
func (l *loop) splitDim(d int, fn func(sub *loop)) {
	base := *l // a copy, so that only this path moves a loop to the heap
	per := base.numel() / base.shape[d]
	parallel.Range(base.shape[d], (grain+per-1)/per, 1, func(lo, hi int) {
		sub := base
		sub.shape[d] = hi - lo
		for k := 0; k < sub.nargs; k++ {
			sub.base[k] += lo * sub.strides[k][d]
		}
		fn(&sub)
	})
}

// forRows calls f(lo, hi) over the rows [0, rows) of a row-wise kernel
// whose rows have n elements, in parallel pieces of at least grain elements
// when there are enough of them. Rows are independent, so the result does
// not depend on the split.
func forRows(rows, n int, f func(lo, hi int)) {
	if rows*n < 2*grain || rows < 2 {
		f(0, rows)
		return
	}
	parallel.Range(rows, (grain+n-1)/n, 1, f)
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

package functional

import (
	"slices"

	"github.com/goaten/goaten/tensor"
)

// Calls on inner values. They run below the Functionalize key (so a tracing
// mode above sees only the user's ops) and use only functional core ops:
// index.Tensor, index_select, index_put, slice_scatter, select_scatter,
// repeat, constant_pad_nd, clone and _to_copy.

type opRef struct {
	name string
	op   *tensor.Op
}

func (r *opRef) get() *tensor.Op {
	if r.op == nil {
		r.op = tensor.MustOp(r.name)
	}
	return r.op
}

var (
	opIndex       = &opRef{name: "aten::index.Tensor"}
	opIndexSelect = &opRef{name: "aten::index_select"}
	opIndexPut    = &opRef{name: "aten::index_put"}
	opSliceScat   = &opRef{name: "aten::slice_scatter"}
	opSelectScat  = &opRef{name: "aten::select_scatter"}
	opRepeat      = &opRef{name: "aten::repeat"}
	opPad         = &opRef{name: "aten::constant_pad_nd"}
	opClone       = &opRef{name: "aten::clone"}
	opToCopy      = &opRef{name: "aten::_to_copy"}
)

func init() {
	// Resolve the refs once the op tables are registered (aten/core is
	// imported by this package's importers before any op runs).
	for _, r := range []*opRef{opIndex, opIndexSelect, opIndexPut, opSliceScat, opSelectScat, opRepeat, opPad, opClone, opToCopy} {
		if op, ok := tensor.LookupOp(r.name); ok {
			r.op = op
		}
	}
}

// below runs op on inner values below the Functionalize key.
func below(r *opRef, args ...any) *tensor.Tensor {
	res := r.get().InvokeBelow(tensor.KeyFunctionalize, args).(*tensor.Tensor)
	res.Keys = res.Keys.Without(tensor.KeyFunctionalize)
	return res
}

// toDevice moves a CPU tensor to dev as an inner value.
func toDevice(t *tensor.Tensor, dev tensor.Device) *tensor.Tensor {
	if dev == tensor.CPU {
		return t
	}
	return below(opToCopy, t, nil, nil, dev, nil, false, nil)
}

// castTo converts an inner value to dtype d.
func castTo(t *tensor.Tensor, d tensor.DType) *tensor.Tensor {
	if t.DType() == d {
		return t
	}
	return below(opToCopy, t, d, nil, nil, nil, false, nil)
}

// cloneInner is a fresh copy of an inner value (for ops that write into it).
func cloneInner(t *tensor.Tensor) *tensor.Tensor {
	return below(opClone, t, nil)
}

// indexTensor builds an int64 index tensor of the given shape on dev.
func indexTensor(data []int64, shape []int, dev tensor.Device) *tensor.Tensor {
	if shape == nil {
		shape = []int{}
	}
	return toDevice(tensor.FromSlice(data, shape...), dev)
}

func gatherIdx(x *tensor.Tensor, idx []*tensor.Tensor) *tensor.Tensor {
	return below(opIndex, x, idx)
}

func scatterIdx(base *tensor.Tensor, idx []*tensor.Tensor, vals *tensor.Tensor) *tensor.Tensor {
	return below(opIndexPut, base, idx, vals, false)
}

// repeatTo repeats a 0-d value to sizes.
func repeatTo(x *tensor.Tensor, sizes []int) *tensor.Tensor {
	return below(opRepeat, x, append([]int(nil), sizes...))
}

// ---------------------------------------------------------------------------
// Affine gathers: out[j] = in[start + coef·j], one index per input dim.

// affine maps an output index j (rank len(out)) to an input index (rank
// len(in)): input dim k is start[k] + Σ_i coef[k][i]·j[i]. It describes
// slice, select, diagonal, permute, squeeze, unsqueeze, expand and their
// inverses.
type affine struct {
	in, out []int
	start   []int
	coef    [][]int
}

func newAffine(in, out []int) *affine {
	a := &affine{in: append([]int(nil), in...), out: append([]int(nil), out...), start: make([]int, len(in)), coef: make([][]int, len(in))}
	for k := range a.coef {
		a.coef[k] = make([]int, len(out))
	}
	return a
}

func (a *affine) identity() bool {
	if !slices.Equal(a.in, a.out) {
		return false
	}
	for k := range a.in {
		if a.start[k] != 0 && a.in[k] != 1 {
			return false
		}
		for i, c := range a.coef[k] {
			if i == k && c != 1 && a.in[k] != 1 {
				return false
			}
			if i != k && c != 0 && a.out[i] != 1 {
				return false
			}
		}
	}
	return true
}

// indices builds the index tensors of a on dev: index k has the output's
// rank, with the output's size on the dims it depends on and 1 elsewhere,
// so that together they broadcast to the output shape.
func (a *affine) indices(dev tensor.Device) []*tensor.Tensor {
	n, m := len(a.in), len(a.out)
	span := make([][]bool, n)
	for k := range span {
		span[k] = make([]bool, m)
		for i, c := range a.coef[k] {
			span[k][i] = c != 0 && a.out[i] != 1
		}
	}
	// An output dim no input depends on (an expanded dim) still has to show
	// up in the broadcast shape: index 0 spans it with coefficient 0.
	for i := 0; i < m; i++ {
		if a.out[i] == 1 {
			continue
		}
		found := false
		for k := 0; k < n; k++ {
			found = found || span[k][i]
		}
		if !found {
			span[0][i] = true
		}
	}
	idx := make([]*tensor.Tensor, n)
	shape := make([]int, m)
	for k := 0; k < n; k++ {
		cnt := 1
		for i := 0; i < m; i++ {
			shape[i] = 1
			if span[k][i] {
				shape[i] = a.out[i]
				cnt *= a.out[i]
			}
		}
		data := make([]int64, cnt)
		if cnt > 0 {
			// Walk the spanned dims in row-major order.
			j := make([]int, m)
			v := a.start[k]
			for e := 0; e < cnt; e++ {
				data[e] = int64(v)
				for i := m - 1; i >= 0; i-- {
					if !span[k][i] {
						continue
					}
					j[i]++
					v += a.coef[k][i]
					if j[i] < a.out[i] {
						break
					}
					v -= a.coef[k][i] * j[i]
					j[i] = 0
				}
			}
		}
		idx[k] = indexTensor(data, append([]int(nil), shape...), dev)
	}
	return idx
}

// gather computes the view of x that a describes.
func (a *affine) gather(x *tensor.Tensor) *tensor.Tensor {
	if a.identity() {
		return x
	}
	if len(a.in) == 0 {
		if len(a.out) == 0 {
			return x
		}
		return repeatTo(x, a.out)
	}
	return gatherIdx(x, a.indices(x.Device()))
}

// scatter writes v (of the output shape) into base at the elements a
// selects; a must be injective.
func (a *affine) scatter(base, v *tensor.Tensor) *tensor.Tensor {
	if a.identity() {
		return v
	}
	if tensor.Numel(a.out) == 0 {
		return base
	}
	if len(a.in) == 0 {
		return elementAt(v, 0) // a 0-d base viewed without expansion: v has one element
	}
	return scatterIdx(base, a.indices(base.Device()), v)
}

// transposeMap inverts a one-to-one dim map (permute, squeeze, unsqueeze):
// the returned affine maps the view back to its base.
func (a *affine) transposeMap() *affine {
	b := newAffine(a.out, a.in)
	for k := range a.in {
		for i, c := range a.coef[k] {
			if c != 0 {
				b.coef[i][k] = 1
			}
		}
	}
	return b
}

// ---------------------------------------------------------------------------
// Reshape gathers (view): the row-major order of the elements is kept.

// reshape returns x's values laid out with the given sizes (same numel).
func reshape(x *tensor.Tensor, out []int) *tensor.Tensor {
	in := x.Sizes()
	if slices.Equal(in, out) {
		return x
	}
	n, m := len(in), len(out)
	if n == 0 {
		if m == 0 {
			return x
		}
		return repeatTo(x, out)
	}
	dev := x.Device()
	idx := make([]*tensor.Tensor, n)
	if tensor.Numel(in) == 0 {
		for k := range idx {
			idx[k] = indexTensor(nil, out, dev)
		}
		return gatherIdx(x, idx)
	}
	// Group the dims into runs with equal products; within a group the
	// input index k depends only on the group's output dims.
	i, j := 0, 0
	for i < n || j < m {
		gi, gj := i, j
		pi, pj := 1, 1
		if i < n {
			pi *= in[i]
			i++
		}
		if j < m {
			pj *= out[j]
			j++
		}
		for pi != pj {
			if pi < pj {
				pi *= in[i]
				i++
			} else {
				pj *= out[j]
				j++
			}
		}
		// Absorb trailing size-1 output dims into this group.
		for i == n && j < m && out[j] == 1 {
			j++
		}
		shape := make([]int, m)
		for d := range shape {
			shape[d] = 1
		}
		cnt := 1
		for d := gj; d < j; d++ {
			shape[d] = out[d]
			cnt *= out[d]
		}
		inner := 1 // product of the group's input sizes after dim k
		for k := i - 1; k >= gi; k-- {
			data := make([]int64, cnt)
			for l := range data {
				data[l] = int64((l / inner) % in[k])
			}
			idx[k] = indexTensor(data, append([]int(nil), shape...), dev)
			inner *= in[k]
		}
	}
	return gatherIdx(x, idx)
}

// ---------------------------------------------------------------------------
// Storage-level gathers (as_strided, resize_): a view given by its place in
// the storage, resolved through the base's own place in it.

// locate maps storage position p to an index of a base with layout l, or
// reports that the base does not hold that position.
type locator struct {
	l     layout
	order []int // dims by decreasing stride
}

func newLocator(l layout) *locator {
	order := make([]int, 0, len(l.sizes))
	for k, s := range l.sizes {
		if s != 1 {
			order = append(order, k)
		}
	}
	// insertion sort by stride, descending (ranks are small)
	for a := 1; a < len(order); a++ {
		for b := a; b > 0 && l.strides[order[b]] > l.strides[order[b-1]]; b-- {
			order[b], order[b-1] = order[b-1], order[b]
		}
	}
	return &locator{l: l, order: order}
}

func (lc *locator) locate(p int, idx []int) bool {
	q := p - lc.l.offset
	if q < 0 {
		return false
	}
	for k := range idx {
		idx[k] = 0
	}
	for _, k := range lc.order {
		st := lc.l.strides[k]
		if st == 0 {
			continue
		}
		b := q / st
		if b >= lc.l.sizes[k] {
			return false
		}
		idx[k] = b
		q -= b * st
	}
	return q == 0
}

// positions lists the storage position of every element of a view with
// layout v, in row-major order.
func positions(v layout) []int {
	n := v.numel()
	out := make([]int, 0, n)
	if n == 0 {
		return out
	}
	m := len(v.sizes)
	j := make([]int, m)
	p := v.offset
	for e := 0; e < n; e++ {
		out = append(out, p)
		for i := m - 1; i >= 0; i-- {
			j[i]++
			p += v.strides[i]
			if j[i] < v.sizes[i] {
				break
			}
			p -= v.strides[i] * j[i]
			j[i] = 0
		}
	}
	return out
}

func outsideStorage() {
	tensor.Panicf("functionalize: a view addresses storage its base does not hold (a base with gaps, or past its end); this is not supported on a functionalized device")
}

// storageGather is the value of the view with layout v of the storage whose
// base x has layout b.
func storageGather(x *tensor.Tensor, b, v layout) *tensor.Tensor {
	if b.equal(v) {
		return x
	}
	// Contiguous window of a contiguous base: flatten, select, reshape.
	if b.contiguous() && v.contiguous() && v.offset >= b.offset && v.offset+v.numel() <= b.offset+b.numel() {
		flat := reshape(x, []int{b.numel()})
		if start := v.offset - b.offset; start != 0 || v.numel() != b.numel() {
			flat = sliceGather(flat, 0, start, 1, v.numel())
		}
		return reshape(flat, v.sizes)
	}
	pos := positions(v)
	n := len(b.sizes)
	if n == 0 {
		for _, p := range pos {
			if p != b.offset {
				outsideStorage()
			}
		}
		if len(v.sizes) == 0 {
			return x
		}
		return repeatTo(x, v.sizes)
	}
	lc := newLocator(b)
	data := make([][]int64, n)
	for k := range data {
		data[k] = make([]int64, len(pos))
	}
	idx := make([]int, n)
	for e, p := range pos {
		if !lc.locate(p, idx) {
			outsideStorage()
		}
		for k := range idx {
			data[k][e] = int64(idx[k])
		}
	}
	ts := make([]*tensor.Tensor, n)
	for k := range ts {
		ts[k] = indexTensor(data[k], v.sizes, x.Device())
	}
	return gatherIdx(x, ts)
}

// storageScatter writes val (of v's shape) into the base x (layout b) at the
// storage positions of v. Where v overlaps itself the element written last
// in row-major order wins, as the CPU's strided copy does.
func storageScatter(x *tensor.Tensor, b, v layout, val *tensor.Tensor) *tensor.Tensor {
	if b.equal(v) {
		return val
	}
	pos := positions(v)
	if len(pos) == 0 {
		return x
	}
	// last[p] is the last view element written at storage position p.
	var last map[int]int
	order := pos
	if nonOverlapping(v) {
		last = make(map[int]int, 0)
	} else {
		last = make(map[int]int, len(pos))
		order = make([]int, 0, len(pos))
		for e, p := range pos {
			if _, ok := last[p]; !ok {
				order = append(order, p)
			}
			last[p] = e
		}
	}
	lastOf := func(u, p int) int {
		if e, ok := last[p]; ok {
			return e
		}
		return u // no overlap: the u-th position is the u-th element
	}
	n := len(b.sizes)
	dev := x.Device()
	if n == 0 {
		for _, p := range order {
			if p != b.offset {
				outsideStorage()
			}
		}
		return elementAt(val, lastOf(len(pos)-1, b.offset))
	}
	// The values, one per distinct position.
	var vals *tensor.Tensor
	m := len(v.sizes)
	if m == 0 {
		vals = val
	} else {
		sel := make([][]int64, m)
		for i := range sel {
			sel[i] = make([]int64, len(order))
		}
		for u, p := range order {
			e := lastOf(u, p)
			for i := m - 1; i >= 0; i-- {
				sel[i][u] = int64(e % v.sizes[i])
				e /= v.sizes[i]
			}
		}
		ts := make([]*tensor.Tensor, m)
		for i := range ts {
			ts[i] = indexTensor(sel[i], []int{len(order)}, dev)
		}
		vals = gatherIdx(val, ts)
	}
	lc := newLocator(b)
	data := make([][]int64, n)
	for k := range data {
		data[k] = make([]int64, len(order))
	}
	idx := make([]int, n)
	for u, p := range order {
		if !lc.locate(p, idx) {
			outsideStorage()
		}
		for k := range idx {
			data[k][u] = int64(idx[k])
		}
	}
	ts := make([]*tensor.Tensor, n)
	for k := range ts {
		ts[k] = indexTensor(data[k], []int{len(order)}, dev)
	}
	return scatterIdx(x, ts, vals)
}

// elementAt is element e (row-major) of val as a 0-d value.
func elementAt(val *tensor.Tensor, e int) *tensor.Tensor {
	m := val.Dim()
	if m == 0 {
		return val
	}
	a := newAffine(val.Sizes(), nil)
	for i := m - 1; i >= 0; i-- {
		a.start[i] = e % val.Sizes()[i]
		e /= val.Sizes()[i]
	}
	return gatherIdx(val, a.indices(val.Device()))
}

// sliceGather is x[start : start+count*step : step] along dim.
func sliceGather(x *tensor.Tensor, dim, start, step, count int) *tensor.Tensor {
	if start == 0 && step == 1 && count == x.Sizes()[dim] {
		return x
	}
	data := make([]int64, count)
	for i := range data {
		data[i] = int64(start + i*step)
	}
	return below(opIndexSelect, x, dim, indexTensor(data, []int{count}, x.Device()))
}

package autograd

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	_ "github.com/goaten/goaten/decomp" // formulas call decomposed ops; their ops must exist at init
	"github.com/goaten/goaten/tensor"
)

// Deriv is the entry of one op in the derivative table.
type Deriv struct {
	// Backward computes the input gradients from the output gradients.
	// Nil for an op PyTorch does not differentiate (then Reason says why).
	Backward func(c *Ctx)
	// Reason explains why an op has no derivative.
	Reason string
	// NonDiff lists arguments PyTorch declares non-differentiable: asking
	// for their gradient fails.
	NonDiff []int
	// Outputs lists the differentiable outputs; nil means every floating
	// output.
	Outputs []int
	// SelfUnused says that Backward never reads the values of argument 0,
	// so the in-place variant need not keep a copy of them.
	SelfUnused bool

	op         *tensor.Op
	tensorArgs []int
	name       string
}

// derivatives is the table: one entry per op.
var derivatives = map[*tensor.Op]*Deriv{}

// def adds the derivative of the named op to the table.
func def(name string, d *Deriv) {
	op := tensor.MustOp(name)
	if _, ok := derivatives[op]; ok {
		panic("autograd: two derivatives for " + name)
	}
	d.op = op
	for i, a := range op.Schema.Args {
		if a.Type.IsTensorLike() {
			d.tensorArgs = append(d.tensorArgs, i)
		}
	}
	d.name = nodeName(op)
	derivatives[op] = d
}

// fn is the usual entry: a backward formula.
func fn(b func(c *Ctx)) *Deriv { return &Deriv{Backward: b} }

// nondiff marks an op PyTorch does not differentiate.
func nondiff(reason string) *Deriv { return &Deriv{Reason: reason} }

// Derivative returns the table entry of op (nil if none).
func Derivative(op *tensor.Op) *Deriv { return derivatives[op] }

// nodeName is PyTorch's grad_fn name: aten::mul.Tensor -> MulBackward0.
func nodeName(op *tensor.Op) string {
	var b strings.Builder
	up := true
	for _, r := range op.Schema.Name {
		if r == '_' {
			up = true
			continue
		}
		if up {
			b.WriteRune(unicode.ToUpper(r))
			up = false
		} else {
			b.WriteRune(r)
		}
	}
	b.WriteString("Backward0")
	return b.String()
}

func (d *Deriv) outDiff(k int) bool {
	if d.Outputs == nil {
		return true
	}
	for _, o := range d.Outputs {
		if o == k {
			return true
		}
	}
	return false
}

func (d *Deriv) nonDiff(i int) bool {
	for _, x := range d.NonDiff {
		if x == i {
			return true
		}
	}
	return false
}

// slot is one differentiable input: argument arg, element elem of a list
// argument (-1 for a single tensor).
type slot struct{ arg, elem int }

// kernel is the Autograd kernel of an op with a table entry.
func (d *Deriv) kernel(op *tensor.Op, ds tensor.Dispatch, a []any) any {
	if d.Backward == nil {
		return op.Redispatch(ds, tensor.KeyAutograd, a)
	}
	var b *recordBlock
	for _, i := range d.tensorArgs {
		switch x := a[i].(type) {
		case *T:
			if x != nil && requiresGrad(x) {
				if d.nonDiff(i) {
					notDifferentiable(op, i)
				}
				b = b.add(slot{i, -1}, gradEdge(x))
			}
		case []*T:
			for j, y := range x {
				if y != nil && requiresGrad(y) {
					if d.nonDiff(i) {
						notDifferentiable(op, i)
					}
					b = b.add(slot{i, j}, gradEdge(y))
				}
			}
		}
	}
	var out any
	if b != nil && !op.Core {
		// A non-core op with a derivative of its own runs its
		// decomposition below this layer: on detached inputs, so that the
		// ops inside record nothing.
		out = op.Redispatch(ds, tensor.KeyAutograd, detachArgs(a))
	} else {
		out = op.Redispatch(ds, tensor.KeyAutograd, a)
	}
	isView := op.Schema.IsView()
	if b != nil {
		out = unalias(a, out, isView)
		b.record(d, a, out)
	}
	if isView {
		trackView(op, a, out)
	}
	return out
}

// recordBlock holds a node and what it records in one allocation, with
// room for the common case of up to two inputs and one output.
type recordBlock struct {
	node    Node
	on      opNode
	slotArr [2]slot
	edgeArr [2]Edge
	verArr  [4]uint64
	outArr  [1]*T
	metaArr [1]varMeta
	outMeta meta // autograd meta of a single output that had none
}

func (b *recordBlock) add(s slot, e Edge) *recordBlock {
	if b == nil {
		b = &recordBlock{}
		b.on.slots = b.slotArr[:0]
		b.node.next = b.edgeArr[:0]
	}
	b.on.slots = append(b.on.slots, s)
	b.node.next = append(b.node.next, e)
	return b
}

func notDifferentiable(op *tensor.Op, i int) {
	tensor.Panicf("The function '%s' is not differentiable with respect to argument '%s'. This input cannot have requires_grad True.",
		op.Schema.Name, op.Schema.Args[i].Name)
}

// detachArgs replaces the tensors of a by detached aliases.
func detachArgs(a []any) []any {
	out := make([]any, len(a))
	for i, v := range a {
		switch x := v.(type) {
		case *T:
			if x != nil {
				out[i] = detached(x)
				continue
			}
		case []*T:
			l := make([]*T, len(x))
			for j, y := range x {
				if y != nil {
					l[j] = detached(y)
				}
			}
			out[i] = l
			continue
		}
		out[i] = v
	}
	return out
}

// unalias gives a fresh tensor object to an output that is one of the
// inputs (its history is about to be set).
func unalias(a []any, out any, isView bool) any {
	same := func(o *T) bool {
		for _, v := range a {
			if v == any(o) {
				return true
			}
		}
		return false
	}
	switch o := out.(type) {
	case *T:
		if o != nil && same(o) {
			return shallow(o)
		}
	case []*T:
		for i, x := range o {
			if x != nil && same(x) {
				o[i] = shallow(x)
			}
		}
	}
	return out
}

// shallow is a new tensor object aliasing t, keeping its dispatch keys.
func shallow(t *T) *T {
	a := detached(t)
	a.Keys = t.Keys
	return a
}

func flatten(out any) []*T {
	switch o := out.(type) {
	case *T:
		return []*T{o}
	case []*T:
		return o
	}
	return nil
}

// record makes the node of one call and sets the outputs' history.
func (b *recordBlock) record(d *Deriv, a []any, out any) {
	var outs []*T
	switch o := out.(type) {
	case *T:
		b.outArr[0] = o
		outs = b.outArr[:]
	case []*T:
		outs = o
	}
	on := &b.on
	on.d, on.args, on.outs = d, a, outs
	on.versions = b.verArr[:0]
	for _, i := range d.tensorArgs {
		switch x := a[i].(type) {
		case *T:
			if x != nil {
				on.versions = append(on.versions, x.Version())
			} else {
				on.versions = append(on.versions, 0)
			}
		case []*T:
			for _, y := range x {
				if y != nil {
					on.versions = append(on.versions, y.Version())
				} else {
					on.versions = append(on.versions, 0)
				}
			}
		default:
			on.versions = append(on.versions, 0)
		}
	}
	om := b.metaArr[:0]
	for _, o := range outs {
		if o != nil {
			om = append(om, varMeta{sizes: o.Sizes(), dtype: o.DType(), device: o.Device()})
			on.versions = append(on.versions, o.Version())
		} else {
			om = append(om, varMeta{})
			on.versions = append(on.versions, 0)
		}
	}
	node := &b.node
	node.name, node.fn, node.outs, node.seq = d.name, on, om, seqCounter.Add(1)
	for k, o := range outs {
		if o != nil && isDifferentiable(o.DType()) && d.outDiff(k) {
			if len(outs) == 1 && o.AutogradMeta == nil {
				o.AutogradMeta = &b.outMeta
			}
			setHistory(o, node, k)
		}
	}
}

// trackView records how the outputs of a view op view their base.
func trackView(op *tensor.Op, a []any, out any) {
	src := args.Self(a)
	if src == nil {
		return
	}
	base, steps, multi := src, []viewStep(nil), false
	if sm := getMeta(src); sm != nil && sm.view != nil {
		base, steps, multi = sm.view.base, sm.view.steps, sm.view.multiOutput
	}
	set := func(o *T, idx int, multiOut bool) {
		if o == nil {
			return
		}
		// One allocation for the common case: the view info, its steps
		// (up to two) and their arguments, and the meta if o has none.
		vb := &viewBlock{}
		vb.info = viewInfo{base: base, multiOutput: multi || multiOut}
		stepArgs := append(vb.argArr[:0], a...)
		stepArgs[args.SelfAt] = nil
		vb.info.steps = append(append(vb.stepArr[:0], steps...), viewStep{op: op, args: stepArgs, idx: idx})
		if o.AutogradMeta == nil {
			o.AutogradMeta = &vb.m
		}
		m := ensureMeta(o)
		m.view = &vb.info
		m.attrVersion = o.Version()
	}
	switch o := out.(type) {
	case *T:
		set(o, 0, false)
	case []*T:
		for j, x := range o {
			set(x, j, len(o) > 1)
		}
	}
}

type viewBlock struct {
	m       meta
	info    viewInfo
	stepArr [2]viewStep
	argArr  [5]any
}

// opNode is the backward function of one recorded call: the formula of
// its op with what the call saved (all its arguments and outputs, checked
// against their versions when the formula reads them).
type opNode struct {
	d        *Deriv
	args     []any
	outs     []*T
	slots    []slot
	versions []uint64
	released bool
}

// release drops the saved tensors, keeping their metadata (formulas that
// read only shapes can still run, as in PyTorch).
func (on *opNode) release() {
	if on.released {
		return
	}
	on.released = true
	saved := append([]any(nil), on.args...)
	for i, v := range saved {
		switch x := v.(type) {
		case *T:
			if x != nil {
				saved[i] = stub(x)
			}
		case []*T:
			l := make([]*T, len(x))
			for j, y := range x {
				if y != nil {
					l[j] = stub(y)
				}
			}
			saved[i] = l
		}
	}
	outs := make([]*T, len(on.outs))
	for k, o := range on.outs {
		if o != nil {
			outs[k] = stub(o)
		}
	}
	on.args, on.outs = saved, outs
}

// stub is a data-less tensor with t's metadata.
func stub(t *T) *T {
	s := tensor.NewMeta(t.Sizes(), t.Strides(), t.StorageOffset(), t.DType(), t.Device())
	s.SetWrappedNumber(t.IsWrappedNumber())
	return s
}

func errFreed() {
	tensor.Panicf("Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.")
}

func (on *opNode) apply(n *Node, grads []*T, create bool) []*T {
	c := &Ctx{on: on, node: n, grads: grads, create: create, res: make([]*T, len(on.slots))}
	on.d.Backward(c)
	return c.res
}

// Ctx is what a derivative formula sees: the arguments and outputs of the
// forward call and the gradients of its outputs; it sets the gradients of
// the inputs.
//
// A formula reads the non-tensor arguments through the op's view in
// package args, and names the tensor arguments by the positions the op's
// position function gives:
//
//	p, at := args.ConvolutionOf(c.Args()), args.ConvolutionAt()
//	w := c.T(at.Weight) // checked: not modified in place since the forward
//	c.Set(at.Input, tensor.Convolution(g, w, nil, p.Stride, ...))
type Ctx struct {
	on     *opNode
	node   *Node
	grads  []*T
	create bool
	res    []*T
	cache  map[int]*T
	masked []any // Args
}

// Args returns the forward call's argument list, to read its non-tensor
// arguments with the op's view (args.XOf(c.Args())). Its tensor arguments
// are nil there (a tensor list is a nil list): a saved tensor is read with T or Ts, which check that it
// was not modified in place since the forward call, or with In, Ins, Sizes
// and Strides for its metadata. The list is the formula's own.
func (c *Ctx) Args() []any {
	if c.masked == nil {
		c.masked = make([]any, len(c.on.args))
		copy(c.masked, c.on.args)
		for _, i := range c.on.d.tensorArgs {
			if _, ok := c.masked[i].([]*T); ok {
				c.masked[i] = []*T(nil) // what a view reads as a Tensor[]
			} else {
				c.masked[i] = nil
			}
		}
	}
	return c.masked
}

func (c *Ctx) versionIndex(arg, elem int) int {
	k := 0
	for _, i := range c.on.d.tensorArgs {
		if i == arg {
			if elem >= 0 {
				return k + elem
			}
			return k
		}
		if l, ok := c.on.args[i].([]*T); ok {
			k += len(l)
		} else {
			k++
		}
	}
	panic(fmt.Sprintf("autograd: %s: argument %d is not a tensor", c.node.name, arg))
}

func (c *Ctx) unpack(t *T, ver uint64, what string) *T {
	if t == nil {
		return nil
	}
	if c.on.released {
		errFreed()
	}
	if t.Version() != ver {
		tensor.Panicf("one of the variables needed for gradient computation has been modified by an inplace operation: [%s %s]%s, is at version %d; expected version %d instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True).",
			typeName(t), tensor.ShapeString(t.Sizes()), what, t.Version(), ver)
	}
	if c.create {
		return t
	}
	return readOnly(t)
}

func typeName(t *T) string {
	n := map[tensor.DType]string{tensor.Float32: "FloatTensor", tensor.Float64: "DoubleTensor", tensor.Float16: "HalfTensor",
		tensor.BFloat16: "BFloat16Tensor", tensor.Int64: "LongTensor", tensor.Int32: "IntTensor", tensor.Int16: "ShortTensor",
		tensor.Int8: "CharTensor", tensor.Uint8: "ByteTensor", tensor.Bool: "BoolTensor"}[t.DType()]
	if t.Device() != tensor.CPU {
		return "torch." + t.Device().String() + "." + n
	}
	return "torch." + n
}

// T returns the tensor argument at position i (nil for None), checking
// that it was not modified in place since the forward call.
func (c *Ctx) T(i int) *T {
	if x, ok := c.cache[i]; ok {
		return x
	}
	t, _ := c.on.args[i].(*T)
	r := c.unpack(t, c.on.versions[c.versionIndex(i, -1)], "")
	if c.cache == nil {
		c.cache = map[int]*T{}
	}
	c.cache[i] = r
	return r
}

// Ts returns the tensor-list argument at position i, checked as T checks.
func (c *Ctx) Ts(i int) []*T {
	l, _ := c.on.args[i].([]*T)
	out := make([]*T, len(l))
	k := c.versionIndex(i, 0)
	for j, t := range l {
		out[j] = c.unpack(t, c.on.versions[k+j], "")
	}
	return out
}

// Sizes is the shape of tensor argument i (read without a version check:
// shapes do not change in place).
func (c *Ctx) Sizes(i int) []int { return c.on.args[i].(*T).Sizes() }

// Strides is the strides of tensor argument i, read like Sizes.
func (c *Ctx) Strides(i int) []int { return c.on.args[i].(*T).Strides() }

// In returns tensor argument i's metadata holder without a version check,
// for formulas that only read its shape, dtype or device.
func (c *Ctx) In(i int) *T {
	t, _ := c.on.args[i].(*T)
	return t
}

// Ins returns the tensor-list argument at position i without a version
// check, as In does, for formulas that only read its tensors' metadata.
func (c *Ctx) Ins(i int) []*T {
	l, _ := c.on.args[i].([]*T)
	return l
}

// Out returns output k of the forward call.
func (c *Ctx) Out(k int) *T {
	key := -1 - k
	if x, ok := c.cache[key]; ok {
		return x
	}
	nt := len(c.on.versions) - len(c.on.outs)
	r := c.unpack(c.on.outs[k], c.on.versions[nt+k], fmt.Sprintf(", which is output %d of %s", k, c.node.name))
	if c.cache == nil {
		c.cache = map[int]*T{}
	}
	c.cache[key] = r
	return r
}

// NumOut is the number of outputs of the forward call.
func (c *Ctx) NumOut() int { return len(c.on.outs) }

// G is the gradient of output k, or nil when it has none.
func (c *Ctx) G(k int) *T { return c.grads[k] }

// GZ is G with zeros for a missing gradient.
func (c *Ctx) GZ(k int) *T {
	if g := c.grads[k]; g != nil {
		return g
	}
	return c.Out(k).ZerosLike()
}

// Create reports whether the backward pass records its own graph.
func (c *Ctx) Create() bool { return c.create }

func (c *Ctx) slotOf(arg, elem int) int {
	for k, s := range c.on.slots {
		if s.arg == arg && s.elem == elem {
			return k
		}
	}
	return -1
}

// Needs reports whether the gradient of tensor argument i is wanted.
func (c *Ctx) Needs(i int) bool { return c.slotOf(i, -1) >= 0 }

// NeedsAt reports whether the gradient of element j of list argument i is wanted.
func (c *Ctx) NeedsAt(i, j int) bool { return c.slotOf(i, j) >= 0 }

// Set gives the gradient of tensor argument i (ignored when not wanted).
func (c *Ctx) Set(i int, g *T) {
	if k := c.slotOf(i, -1); k >= 0 {
		c.res[k] = g
	}
}

// SetAt gives the gradient of element j of list argument i.
func (c *Ctx) SetAt(i, j int, g *T) {
	if k := c.slotOf(i, j); k >= 0 {
		c.res[k] = g
	}
}

// ---- in-place ops ----

// inplaceKernel is the Autograd kernel of an in-place op: the functional
// op is recorded on a copy of self's old value, its result is written into
// self, and self (or, for a view, its base) takes the new history.
func inplaceKernel(op *tensor.Op, ds tensor.Dispatch, a []any) any {
	self := args.Self(a)
	if !op.AnyRequiresGrad(a) {
		return op.Redispatch(ds, tensor.KeyAutograd, a)
	}
	checkInplace(self)
	f, _, _ := op.Functional()
	d := derivatives[f]
	if d == nil || d.Backward == nil || !isDifferentiable(self.DType()) {
		out := op.Redispatch(ds, tensor.KeyAutograd, a)
		if isDifferentiable(self.DType()) {
			n := newNode(nodeName(op), &notImplemented{op: op.Schema.Name}, nil, []varMeta{metaOf(self)})
			rebase(self, n, 0)
		}
		return out
	}
	src := self
	if !d.SelfUnused {
		src = self.Clone()
	}
	fargs := append([]any(nil), a...)
	fargs[args.SelfAt] = src
	res := f.Invoke(fargs).(*T)
	core.CheckInplaceResult(self, res)
	if res.DType() != self.DType() {
		res = res.To(self.DType())
	}
	copyInPlace(self, res)
	e := gradEdge(res)
	rebase(self, e.Node, e.Input)
	return self
}

var (
	opCopy_ = tensor.MustOp("aten::copy_")
	opAlias = tensor.MustOp("aten::alias")
)

// copyInPlace writes src into dst below the Autograd layer.
func copyInPlace(dst, src *T) {
	opCopy_.InvokeBelow(tensor.KeyAutograd, args.Copy_{Self: dst, Src: src}.Box())
}

// checkInplace refuses in-place writes PyTorch refuses.
func checkInplace(self *T) {
	m := getMeta(self)
	if m == nil {
		return
	}
	if m.view == nil {
		if m.gradFn == nil && m.leafRequiresGrad {
			tensor.Panicf("a leaf Variable that requires grad is being used in an in-place operation.")
		}
		return
	}
	if m.view.multiOutput && requiresGrad(self) {
		name := "a function"
		if fn := GradFn(self); fn != nil {
			name = fn.name
		}
		tensor.Panicf("Output %d of %s is a view and is being modified inplace. This view is the output of a function that returns multiple views. Such functions do not allow the output views to be modified inplace. You should replace the inplace operation by an out-of-place one.",
			m.view.steps[len(m.view.steps)-1].idx, name)
	}
	if bm := getMeta(m.view.base); bm != nil && bm.view == nil && bm.gradFn == nil && bm.leafRequiresGrad {
		tensor.Panicf("a view of a leaf Variable that requires grad is being used in an in-place operation.")
	}
}

// rebase gives self the history (n, nr) after an in-place write. For a
// view, the history goes to its base through a CopySlices node, and the
// view's own history is regenerated from the base.
func rebase(self *T, n *Node, nr int) {
	m := getMeta(self)
	if m == nil || m.view == nil {
		if n == nil {
			if m != nil {
				m.gradFn, m.outputNr = nil, 0
				m.attrVersion = self.Version()
			}
			return
		}
		setHistory(self, n, nr)
		return
	}
	base := m.view.base
	old := gradEdge(base)
	cs := &copySlices{view: m.view, base: metaOf(base), strides: base.Shape(), offset: base.StorageOffset()}
	copy(cs.strides, base.Strides())
	node := newNode("CopySlices", cs, []Edge{old, {n, nr}}, []varMeta{metaOf(base)})
	setHistory(base, node, 0)
	m.attrVersion = ^self.Version()
	refresh(self, m)
}

// copySlices is the node of a base whose view was written in place: the
// gradient of the written region flows to the value that was written, the
// rest to the base's old history.
type copySlices struct {
	view    *viewInfo
	base    varMeta
	strides []int
	offset  int
}

func (cs *copySlices) apply(n *Node, grads []*T, create bool) []*T {
	g := grads[0]
	var r *T
	if cs.view.hasAsStrided() {
		// as_strided addresses the storage: give the copy the base's geometry.
		ext := tensor.StorageExtent(cs.base.sizes, cs.strides, cs.offset)
		buf := tensor.EmptyStrided([]int{ext}, []int{1}, tensor.WithDtype(g.DType()), tensor.WithDevice(g.Device()))
		r = buf.AsStrided(cs.base.sizes, cs.strides, tensor.WithStorageOffset(cs.offset))
		r.Copy_(g)
	} else {
		r = g.Clone()
	}
	v := cs.view.replay(r)
	gv := v.Clone()
	v.Fill_(0.0)
	return []*T{r, gv}
}

func (cs *copySlices) release() {}

// resizeKernel refuses to resize a tensor that requires grad.
func resizeKernel(op *tensor.Op, d tensor.Dispatch, a []any) any {
	if requiresGrad(args.Resize_Of(a).Self) {
		tensor.Panicf("cannot resize variables that require grad")
	}
	return op.Redispatch(d, tensor.KeyAutograd, a)
}

// outKernel refuses out= calls with inputs that require grad.
func outKernel(op *tensor.Op, d tensor.Dispatch, a []any) any {
	for _, v := range a {
		if x, ok := v.(*T); ok && x != nil && requiresGrad(x) {
			tensor.Panicf("%s(): functions with out=... arguments don't support automatic differentiation, but one of the arguments requires grad.", op.Schema.Name)
		}
	}
	return op.Redispatch(d, tensor.KeyAutograd, a)
}

// detachKernel returns an alias of its input with no history.
func detachKernel(op *tensor.Op, d tensor.Dispatch, a []any) any {
	x := args.DetachOf(a).Self
	out := opAlias.Redispatch(d, tensor.KeyAutograd, args.Alias{Self: x}.Box())
	o := out.(*T)
	o.AutogradMeta = nil
	o.Keys = o.Keys.Without(tensor.KeyAutograd)
	return o
}

// fallback is the Autograd kernel of ops outside the table: it records
// nothing when no input requires grad, and otherwise a node that fails if
// a gradient reaches it.
func fallback(op *tensor.Op, d tensor.Dispatch, a []any) any {
	need := op.AnyRequiresGrad(a)
	if need && op.Schema.IsInplace() {
		self := args.Self(a)
		checkInplace(self)
		out := op.Redispatch(d, tensor.KeyAutograd, a)
		if isDifferentiable(self.DType()) {
			rebase(self, newNode(nodeName(op), &notImplemented{op: op.Schema.Name}, nil, []varMeta{metaOf(self)}), 0)
		}
		return out
	}
	out := op.Redispatch(d, tensor.KeyAutograd, a)
	isView := op.Schema.IsView()
	if need {
		outs := flatten(out)
		var om []varMeta
		diff := false
		for _, o := range outs {
			if o != nil {
				om = append(om, metaOf(o))
				diff = diff || isDifferentiable(o.DType())
			} else {
				om = append(om, varMeta{})
			}
		}
		if diff {
			out = unalias(a, out, isView)
			outs = flatten(out)
			n := newNode(nodeName(op), &notImplemented{op: op.Schema.Name}, nil, om)
			for k, o := range outs {
				if o != nil && isDifferentiable(o.DType()) {
					setHistory(o, n, k)
				}
			}
		}
	}
	if isView {
		trackView(op, a, out)
	}
	return out
}

func init() {
	registerDerivatives()
	for _, op := range tensor.Ops() {
		s := op.Schema
		switch {
		case s.Name == "resize_":
			op.Impl(tensor.KeyAutograd, resizeKernel)
		case s.Name == "detach":
			op.Impl(tensor.KeyAutograd, detachKernel)
		case s.IsOut():
			op.Impl(tensor.KeyAutograd, outKernel)
		case derivatives[op] != nil:
			op.Impl(tensor.KeyAutograd, derivatives[op].kernel)
		case s.IsInplace() && !op.HasKernel(tensor.KeyCompositeImplicit):
			if _, _, ok := op.Functional(); ok {
				op.Impl(tensor.KeyAutograd, inplaceKernel)
			}
		}
		// An op with a decomposition and no derivative of its own gets no
		// Autograd kernel: the dispatcher decomposes it above this layer
		// when an argument requires grad (tensor.Op.decomposeAt).
	}
	tensor.SetKeyFallback(tensor.KeyAutograd, fallback)
	tensor.SetAutogradHooks(tensor.AutogradHooks{
		RequiresGrad:    requiresGrad,
		SetRequiresGrad: func(t *T, b bool) { SetRequiresGrad(t, b) },
		Grad:            GradOf,
		IsLeaf:          IsLeaf,
		Backward:        func(t, g *T) { Backward(t, g) },
		GradFnName: func(t *T) string {
			if n := GradFn(t); n != nil {
				return n.Name()
			}
			return ""
		},
	})
}

package autograd

import (
	"container/heap"
	"fmt"
	"slices"

	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// Options tune a backward pass.
type Options struct {
	// RetainGraph keeps the saved tensors so that the graph can be
	// differentiated again. CreateGraph implies it (PyTorch's default of
	// retain_graph=None).
	RetainGraph bool
	// CreateGraph records the backward computation itself, so that the
	// gradients can be differentiated (double backward).
	CreateGraph bool
	// AllowUnused makes Grad return nil for an input the outputs do not
	// depend on, instead of failing.
	AllowUnused bool
}

func opt(opts []Options) Options {
	if len(opts) == 0 {
		return Options{}
	}
	return opts[0]
}

// Backward computes the gradient of t with respect to the leaves of its
// graph and accumulates it into their Grad. grad is dL/dt; nil means 1 for
// a one-element t.
func Backward(t, grad *T, opts ...Options) {
	BackwardAll([]*T{t}, []*T{grad}, opts...)
}

// BackwardAll is Backward for several outputs at once (torch.autograd.backward).
func BackwardAll(outputs, grads []*T, opts ...Options) {
	o := opt(opts)
	run := func() {
		roots, rg := rootsOf(outputs, grads, o.CreateGraph)
		execute(roots, rg, o.RetainGraph || o.CreateGraph, o.CreateGraph, nil)
	}
	if h := effectHooks(); h != nil && h.Backward != nil {
		h.Backward(o, run)
		return
	}
	run()
}

// Grad returns the gradients of outputs with respect to inputs
// (torch.autograd.grad). gradOutputs holds dL/d output for each output (nil
// entries, or a nil slice, mean 1 for one-element outputs). The Grad of
// leaves is left alone. An input the outputs do not depend on fails unless
// AllowUnused is set; its gradient is then nil.
func Grad(outputs, inputs, gradOutputs []*T, opts ...Options) []*T {
	o := opt(opts)
	if gradOutputs == nil {
		gradOutputs = make([]*T, len(outputs))
	}
	roots, rg := rootsOf(outputs, gradOutputs, o.CreateGraph)
	edges := make([]Edge, len(inputs))
	for i, x := range inputs {
		if !requiresGrad(x) {
			tensor.Panicf("One of the differentiated Tensors does not require grad")
		}
		edges[i] = gradEdge(x)
	}
	res := execute(roots, rg, o.RetainGraph || o.CreateGraph, o.CreateGraph, edges)
	for i := range res {
		if res[i] == nil && !o.AllowUnused {
			tensor.Panicf("One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior.")
		}
	}
	return res
}

func rootsOf(outputs, grads []*T, create bool) ([]Edge, []*T) {
	if len(grads) != len(outputs) {
		tensor.Panicf("grad can be implicitly created only for scalar outputs: got %d gradients for %d outputs", len(grads), len(outputs))
	}
	roots := make([]Edge, len(outputs))
	rg := make([]*T, len(outputs))
	for i, out := range outputs {
		if !requiresGrad(out) {
			tensor.Panicf("element %d of tensors does not require grad and does not have a grad_fn", i)
		}
		roots[i] = gradEdge(out)
		g := grads[i]
		if g == nil {
			if out.Numel() != 1 {
				tensor.Panicf("grad can be implicitly created only for scalar outputs")
			}
			g = out.OnesLike()
			if requiresGrad(g) {
				g = detached(g)
			}
		} else {
			if !slices.Equal(g.Sizes(), out.Sizes()) {
				tensor.Panicf("Mismatch in shape: grad_output[%d] has a shape of torch.Size(%s) and output[%d] has a shape of torch.Size(%s).",
					i, tensor.ShapeString(g.Sizes()), i, tensor.ShapeString(out.Sizes()))
			}
			if !create && requiresGrad(g) {
				g = detached(g)
			}
		}
		rg[i] = g
	}
	return roots, rg
}

// task is one backward pass.
type task struct {
	keep, create bool
	deps         map[*Node]int
	exec         map[*Node]bool // nil: run every node
	targets      map[*Node]bool
	captures     map[Edge][]int
	buffers      map[*Node][]*T
	out          []*T
	// unshared are the buffered gradients nothing outside the task holds:
	// those a Function marked (FunctionCtx.MarkUnshared) and the sums
	// of two gradients. A leaf's first one becomes its .grad uncopied.
	unshared map[*T]bool
}

func (t *task) wanted(n *Node) bool {
	return t.exec == nil || t.exec[n] || t.targets[n]
}

func execute(roots []Edge, rootGrads []*T, keep, create bool, inputs []Edge) []*T {
	t := &task{keep: keep, create: create, deps: map[*Node]int{}, buffers: map[*Node][]*T{}}
	// Dependencies: how many edges lead into each node.
	seen := map[*Node]bool{}
	var stack []*Node
	for _, e := range roots {
		if e.Node != nil && !seen[e.Node] {
			seen[e.Node] = true
			stack = append(stack, e.Node)
		}
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range n.next {
			if e.Node == nil {
				continue
			}
			t.deps[e.Node]++
			if !seen[e.Node] {
				seen[e.Node] = true
				stack = append(stack, e.Node)
			}
		}
	}
	if inputs != nil {
		t.out = make([]*T, len(inputs))
		t.targets = map[*Node]bool{}
		t.captures = map[Edge][]int{}
		for i, e := range inputs {
			if e.Node == nil {
				continue
			}
			t.targets[e.Node] = true
			t.captures[e] = append(t.captures[e], i)
		}
		t.exec = map[*Node]bool{}
		done := map[*Node]bool{}
		var visit func(n *Node) bool
		visit = func(n *Node) bool {
			if done[n] {
				return t.exec[n]
			}
			done[n] = true
			need := false
			for _, e := range n.next {
				if e.Node == nil {
					continue
				}
				if visit(e.Node) || t.targets[e.Node] {
					need = true
				}
			}
			if need {
				t.exec[n] = true
			}
			return need
		}
		for _, e := range roots {
			if e.Node != nil {
				visit(e.Node)
			}
		}
	}
	for i, e := range roots {
		if e.Node == nil || !t.wanted(e.Node) {
			continue
		}
		t.add(e, validate(rootGrads[i], e.Node.outs[e.Input]), false)
	}
	q := &readyQueue{}
	for _, e := range roots {
		if e.Node != nil && t.deps[e.Node] == 0 && t.wanted(e.Node) && !q.has(e.Node) {
			heap.Push(q, e.Node)
		}
	}
	for q.Len() > 0 {
		n := heap.Pop(q).(*Node)
		t.run(n, q)
	}
	return t.out
}

// add buffers g for e's node; unshared: nothing outside the task holds g.
func (t *task) add(e Edge, g *T, unshared bool) {
	buf := t.buffers[e.Node]
	if buf == nil {
		buf = make([]*T, len(e.Node.outs))
		t.buffers[e.Node] = buf
	}
	if buf[e.Input] == nil {
		buf[e.Input] = g
	} else {
		delete(t.unshared, buf[e.Input])
		buf[e.Input] = buf[e.Input].Add(g)
		unshared = true // the sum is new memory
	}
	if unshared {
		if t.unshared == nil {
			t.unshared = map[*T]bool{}
		}
		t.unshared[buf[e.Input]] = true
	}
}

func (t *task) run(n *Node, q *readyQueue) {
	grads := t.buffers[n]
	delete(t.buffers, n)
	if grads == nil {
		grads = make([]*T, len(n.outs))
	}
	for slot, hs := range n.hooks {
		if grads[slot] == nil {
			continue
		}
		for _, h := range hs {
			if h.removed {
				continue
			}
			delete(t.unshared, grads[slot]) // the hook may keep it
			if r := h.fn(grads[slot]); r != nil {
				grads[slot] = r
			}
		}
	}
	if t.captures != nil {
		for slot, g := range grads {
			for _, i := range t.captures[Edge{n, slot}] {
				t.out[i] = g
				delete(t.unshared, g)
			}
		}
	}
	if t.exec != nil && !t.exec[n] {
		return
	}
	var res []*T
	if a, ok := n.fn.(*accumulateGrad); ok {
		if g := grads[0]; g != nil {
			a.accumulate(g, t.create, t.unshared[g])
			delete(t.unshared, g)
		}
	} else if anyDefined(grads) || n.alwaysRun() {
		res = n.fn.apply(n, grads, t.create)
	}
	var marked map[*T]bool
	if cf, ok := n.fn.(*customFn); ok {
		marked = cf.ctx.unshared
	}
	if !t.keep {
		n.fn.release()
	}
	for i, e := range n.next {
		if e.Node == nil {
			continue
		}
		if i < len(res) && res[i] != nil && t.wanted(e.Node) {
			g := res[i]
			if !t.create && requiresGrad(g) {
				g = detached(g)
			}
			v := validateFor(n, i, g, e.Node.outs[e.Input])
			t.add(e, v, v == res[i] && marked[v])
		}
		t.deps[e.Node]--
		if t.deps[e.Node] == 0 && t.wanted(e.Node) {
			heap.Push(q, e.Node)
		}
	}
}

func (n *Node) alwaysRun() bool {
	_, ok := n.fn.(*customFn)
	return ok
}

func anyDefined(gs []*T) bool {
	for _, g := range gs {
		if g != nil {
			return true
		}
	}
	return false
}

func validate(g *T, want varMeta) *T { return validateFor(nil, 0, g, want) }

// validateFor brings a gradient to the metadata of the tensor it is for:
// a broadcast gradient is summed to the tensor's shape, the dtype and the
// device are converted (PyTorch's validate_outputs).
func validateFor(n *Node, i int, g *T, want varMeta) *T {
	if g == nil {
		return nil
	}
	if !slices.Equal(g.Sizes(), want.sizes) {
		if !expandable(want.sizes, g.Sizes()) {
			name := "backward"
			if n != nil {
				name = n.name
			}
			tensor.Panicf("Function %s returned an invalid gradient at index %d - got %s but expected shape compatible with %s",
				name, i, tensor.ShapeString(g.Sizes()), tensor.ShapeString(want.sizes))
		}
		g = sumTo(g, want.sizes)
	}
	if g.DType() != want.dtype && want.dtype != tensor.Invalid {
		g = g.To(want.dtype)
	}
	if g.Device() != want.device {
		g = g.ToDevice(want.device)
	}
	return g
}

// expandable reports whether a tensor of shape from broadcasts to shape to.
func expandable(from, to []int) bool {
	if len(from) > len(to) {
		return false
	}
	off := len(to) - len(from)
	for i, s := range from {
		if s != 1 && s != to[off+i] {
			return false
		}
	}
	return true
}

// sumTo sums g over the dims that broadcasting added to shape (at::sum_to).
func sumTo(g *T, shape []int) *T {
	if slices.Equal(g.Sizes(), shape) {
		return g
	}
	lead := g.Dim() - len(shape)
	var dims []int
	for i := 0; i < lead; i++ {
		dims = append(dims, i)
	}
	var keep []int
	for i, s := range shape {
		if s == 1 && g.Size(lead+i) != 1 {
			keep = append(keep, lead+i)
		}
	}
	if len(keep) > 0 {
		g = g.Sum(keep, tensor.WithKeepdim(true))
	}
	if len(dims) > 0 {
		g = g.Sum(dims)
	}
	if !slices.Equal(g.Sizes(), shape) {
		g = g.Reshape(shape)
	}
	return g
}

// readyQueue runs the most recently created node first (PyTorch's order).
type readyQueue []*Node

func (q readyQueue) Len() int           { return len(q) }
func (q readyQueue) Less(i, j int) bool { return q[i].seq > q[j].seq }
func (q readyQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *readyQueue) Push(x any)        { *q = append(*q, x.(*Node)) }
func (q *readyQueue) Pop() any {
	old := *q
	n := old[len(old)-1]
	*q = old[:len(old)-1]
	return n
}
func (q readyQueue) has(n *Node) bool {
	for _, x := range q {
		if x == n {
			return true
		}
	}
	return false
}

// accumulateGrad adds the gradient of a leaf into its .Grad.
type accumulateGrad struct{ leaf *T }

func (a *accumulateGrad) apply(n *Node, grads []*T, create bool) []*T {
	if g := grads[0]; g != nil {
		a.accumulate(g, create, false)
	}
	return nil
}

// accumulate adds g into the leaf's .grad; unshared: nothing but the
// engine holds g, so a first gradient with the layout .grad must have
// becomes .grad itself (AccumulateGrad's steal).
func (a *accumulateGrad) accumulate(g *T, create, unshared bool) {
	m := ensureMeta(a.leaf)
	m.accumulating.Lock()
	defer m.accumulating.Unlock()
	accumMu.Lock()
	old := m.grad
	accumMu.Unlock()
	var next *T
	if old == nil || create {
		noteGradWrite(a.leaf, old)
	}
	switch {
	case old == nil && unshared && !create && !requiresGrad(g) && obeysLayoutContract(g, a.leaf):
		next = g
	case old == nil:
		// A copy, never g itself, which other nodes or the caller may hold
		// (recorded under create_graph, so the copy is differentiable).
		next = cloneObeyContract(g, a.leaf)
	case !create:
		// AccumulateGrad adds in place outside create_graph (variable_grad
		// += new_grad): .grad keeps its identity and its layout.
		old.Add_(g)
		return
	default:
		next = old.Add(g)
	}
	accumMu.Lock()
	m.grad = next
	accumMu.Unlock()
}

// cloneObeyContract copies a leaf's first gradient under PyTorch's gradient
// layout contract: with the strides of the leaf when the leaf is dense and
// non-overlapping (so a weight used transposed still gets a row-major
// .grad, and optimizers update it with contiguous loops), contiguous
// otherwise.
func cloneObeyContract(g, leaf *T) *T {
	if obeysLayoutContract(g, leaf) {
		return g.Clone()
	}
	if !core.IsNonOverlappingAndDense(leaf.Sizes(), leaf.Strides()) {
		return g.Clone(tensor.WithMemoryFormat(tensor.ContiguousFormat))
	}
	out := tensor.EmptyStrided(leaf.Sizes(), leaf.Strides(), tensor.WithDtype(g.DType()), tensor.WithDevice(g.Device()))
	return out.Copy_(g)
}

// obeysLayoutContract reports whether g already has the layout .grad must
// have (obeys_layout_contract): the leaf's strides in every dim of size
// other than 1 (and no zero stride) when the leaf is dense, else row-major.
func obeysLayoutContract(g, leaf *T) bool {
	if !core.IsNonOverlappingAndDense(leaf.Sizes(), leaf.Strides()) {
		return g.IsContiguous()
	}
	gs, ls := g.Strides(), leaf.Strides()
	for i, n := range g.Sizes() {
		if n != 1 && gs[i] != ls[i] || n == 1 && gs[i] == 0 {
			return false
		}
	}
	return true
}

func (a *accumulateGrad) release() {}

// notImplemented is the node of an op that has no derivative.
type notImplemented struct{ op string }

func (f *notImplemented) apply(n *Node, grads []*T, create bool) []*T {
	tensor.Raise(&tensor.Error{Kind: tensor.NotImplementedError, Op: f.op,
		Msg: fmt.Sprintf("the derivative for '%s' is not implemented.", f.op)})
	return nil
}

func (f *notImplemented) release() {}

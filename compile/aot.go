package compile

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// AOT autograd: a compiled function whose results need gradients is traced
// forward and backward into one joint graph, which is split into a forward
// graph (returning the activations the backward needs) and a backward graph
// (taking them and the output gradients, "tangents"); a call runs the
// forward graph inside a custom autograd function whose backward runs the
// backward graph. Tensors the function closes over that require grad (its
// parameters) are lifted to inputs of the joint graph, so their gradients
// reach them as a backward of the eager function would deliver them.

// Joint is a traced forward-and-backward graph and its split.
type Joint struct {
	// Graph is the joint graph: placeholders primals_1.. (the inputs, then
	// the lifted parameters) and tangents_1.. (one per differentiable
	// output), returning the outputs and then the gradients of the primals
	// that need them.
	Graph *fx.GraphModule
	// Forward returns the outputs and then the saved activations; Backward
	// takes the saved activations and the tangents and returns the
	// gradients.
	Forward, Backward *fx.GraphModule
	// Params are the lifted tensors, in the order of their placeholders.
	Params []*tensor.Tensor
	// NumOut is the number of outputs, NumSaved of saved activations;
	// GradOf[i] is the primal whose gradient backward output i is.
	NumOut, NumSaved int
	GradOf           []int
	numPrimals       int
	outDiff          []bool // which outputs get a tangent
	random           bool   // the forward draws random numbers (dropout)
	recycle          bool   // the forward's results may be handed back (see recyclable)
	bwdOwned         bool   // the backward's gradients are held by nothing else (see unshared)
}

// TraceJoint traces fn (as Compile's fn) and its backward into a Joint in
// fake mode. Gradients are taken of every output that requires grad with
// respect to every input and lifted parameter that requires grad.
func TraceJoint(fn any, inputs []*tensor.Tensor, decomps Decompositions) (j *Joint, err error) {
	fv := reflect.ValueOf(fn)
	if err := checkSignature(fv, len(inputs)); err != nil {
		return nil, err
	}
	tr := newTracer(Fake, decomps)
	tr.lift = true
	j = &Joint{Graph: tr.gm}
	g := tr.gm.Graph
	in := make([]reflect.Value, len(inputs))
	var diff []*tensor.Tensor // differentiable primals: proxies of inputs, real lifted params
	var diffIdx []int
	for i, x := range inputs {
		p := tr.proxyInput(x)
		n := g.Placeholder(fmt.Sprintf("primals_%d", i+1))
		n.Meta[fx.MetaVal] = tr.exampleValue(p)
		tr.setNode(p, n)
		in[i] = reflect.ValueOf(p)
		if p.RequiresGrad() {
			diff = append(diff, p)
			diffIdx = append(diffIdx, i)
		}
	}
	var outs []*tensor.Tensor
	var writes gradWrites // .grad writes are undone, as in a fake Trace (effects.go)
	defer writes.undo(true)
	err = tensor.Try(func() {
		defer tensor.IncludeKey(tensor.KeyTrace)()
		defer tensor.SetModeValue(tracerKey, tr)()
		defer autograd.SetEffectHooks(traceHooks(&writes))()
		res := fv.Call(in)
		for _, v := range res {
			switch x := v.Interface().(type) {
			case *tensor.Tensor:
				outs = append(outs, x)
			case []*tensor.Tensor:
				outs = append(outs, x...)
			default:
				tensor.Panicf("compile: AOT autograd needs tensor results, got %T", x)
			}
		}
		for k, p := range tr.lifted {
			diff = append(diff, p)
			diffIdx = append(diffIdx, len(inputs)+k)
		}
		j.Params = tr.lifted
		// One tangent per output that requires grad, as placeholders after
		// the primals.
		var douts, tangents []*tensor.Tensor
		for _, o := range outs {
			needs := o != nil && o.RequiresGrad()
			j.outDiff = append(j.outDiff, needs)
			if !needs {
				continue
			}
			t := fakeOf(tensor.NewMetaContiguous(o.Sizes(), o.DType(), tensor.Meta), o.Device())
			last := g.Placeholders()
			restore := g.InsertingAfter(last[len(last)-1])
			n := g.Placeholder(fmt.Sprintf("tangents_%d", len(tangents)+1))
			restore()
			n.Meta[fx.MetaVal] = tr.exampleValue(t)
			tr.setNode(t, n)
			douts, tangents = append(douts, o), append(tangents, t)
		}
		if len(douts) == 0 || len(diff) == 0 {
			tensor.Panicf("%s", noGradOutput)
		}
		grads := autograd.Grad(douts, diff, tangents, autograd.Options{AllowUnused: true})
		vals := fx.Tuple{}
		for _, o := range outs {
			n, err := tr.outputNode(o)
			if err != nil {
				panic(asTensorError(err))
			}
			vals = append(vals, n)
		}
		for k, gr := range grads {
			if gr == nil {
				continue
			}
			n, err := tr.outputNode(gr)
			if err != nil {
				panic(asTensorError(err))
			}
			vals = append(vals, n)
			j.GradOf = append(j.GradOf, diffIdx[k])
		}
		g.Output(vals)
	})
	if err != nil {
		return nil, fmt.Errorf("compile: tracing the joint graph: %w", err)
	}
	j.NumOut = len(outs)
	j.numPrimals = len(inputs) + len(j.Params)
	if err := tr.gm.Lint(); err != nil {
		return nil, err
	}
	if err := j.partition(); err != nil {
		return nil, err
	}
	for _, n := range j.Forward.Graph.Nodes() {
		if op, ok := n.Target.(*tensor.Op); ok && op != nil && op.Schema.IsRandom() {
			j.random = true
		}
	}
	return j, nil
}

// liftParam makes the closed-over tensor t, which requires grad, a primal
// of the joint graph instead of a constant.
func (tr *tracer) liftParam(t *tensor.Tensor) *fx.Node {
	g := tr.gm.Graph
	ph := g.Placeholders()
	restore := g.InsertingAfter(ph[len(ph)-1])
	n := g.Placeholder(fmt.Sprintf("primals_%d", len(ph)+1))
	restore()
	n.Meta[fx.MetaVal] = tr.exampleValue(fakeOf(t, t.Device()))
	tr.consts[t] = n
	tr.lifted = append(tr.lifted, t)
	return n
}

// partition splits the joint graph: the forward part is every node that
// does not depend on a tangent; the backward part the rest. The forward
// graph returns the outputs and every forward value a backward node uses
// (PyTorch's default partition: save, do not recompute), except values made
// from factories alone, which the backward graph recomputes.
func (j *Joint) partition() error {
	g := j.Graph.Graph
	bwd := map[*fx.Node]bool{}
	for _, n := range g.Nodes() {
		if n.Op == fx.OpPlaceholder {
			if s, _ := n.Target.(string); len(s) > 9 && s[:9] == "tangents_" {
				bwd[n] = true
			}
			continue
		}
		for _, in := range n.InputNodes() {
			if bwd[in] {
				bwd[n] = true
				break
			}
		}
	}
	// Values made from factories alone (a causal mask of full and triu)
	// are recomputed in the backward graph, not saved: a compiling backend
	// folds them into constants on both sides (compile/cpu does), where a
	// saved value is an output the forward makes anew at each call.
	nodes := g.Nodes()
	constant := map[*fx.Node]bool{}
	written := fx.Written(g)
	for _, n := range nodes {
		op, ok := n.Target.(*tensor.Op)
		if n.Op != fx.OpCallFunction || bwd[n] || !ok || op == nil || !strings.HasPrefix(op.Name, "aten::") || n.IsImpure() || written[n] {
			continue
		}
		constant[n] = allIn(n.InputNodes(), constant)
	}
	// Nodes that only backward nodes use move there, decided from the last
	// node to the first (a node's users first): those a checkpointed region
	// recorded for its backward (MetaRecompute; their inputs are saved
	// instead of their values: PyTorch's activation checkpointing in the
	// min-cut partitioner, reduced to its rule for tagged nodes), and
	// constants that are no forward output. The other constants a backward
	// node reads are copied into the backward graph (save).
	for i := len(nodes) - 1; i >= 0; i-- {
		n := nodes[i]
		if bwd[n] || !allIn(n.Users(), bwd) {
			continue
		}
		if r, _ := n.Meta[MetaRecompute].(bool); r || constant[n] && n.NumUsers() > 0 && !slices.ContainsFunc(n.Users(), isOutput) {
			bwd[n] = true
		}
	}
	copied := map[*fx.Node]bool{}
	var copyBack func(n *fx.Node)
	copyBack = func(n *fx.Node) {
		if !copied[n] && !bwd[n] {
			copied[n] = true
			for _, in := range n.InputNodes() {
				copyBack(in)
			}
		}
	}
	// A sub-GraphModule only backward nodes read (a higher-order op's
	// backward subgraphs) is read by the backward graph, not saved.
	for _, n := range g.Nodes() {
		if _, isGM := attrOf(j.Graph, n).(*fx.GraphModule); isGM && n.NumUsers() > 0 && allIn(n.Users(), bwd) {
			bwd[n] = true
		}
	}
	out := g.OutputNode()
	vals := out.Args()[0].(fx.Tuple)
	// Saved: forward values a backward node or a gradient output uses.
	var saved []*fx.Node
	isSaved := map[*fx.Node]bool{}
	save := func(n *fx.Node) {
		if constant[n] {
			copyBack(n)
			return
		}
		if !bwd[n] && !isSaved[n] {
			isSaved[n] = true
			saved = append(saved, n)
		}
	}
	for _, n := range g.Nodes() {
		if bwd[n] && n.Op == fx.OpCallFunction {
			for _, in := range n.InputNodes() {
				save(in)
			}
		}
	}
	for _, v := range vals[j.NumOut:] {
		if n, ok := v.(*fx.Node); ok {
			save(n)
		}
	}
	// The forward graph.
	fg := fx.New()
	fwdMap := map[*fx.Node]*fx.Node{}
	remapF := func(n *fx.Node) *fx.Node { return fwdMap[n] }
	for _, n := range g.Nodes() {
		if bwd[n] || n.Op == fx.OpOutput {
			continue
		}
		fwdMap[n] = fg.CopyNode(n, remapF)
	}
	var fouts fx.Tuple
	for _, v := range vals[:j.NumOut] {
		fouts = append(fouts, mapOut(v, remapF))
	}
	for _, n := range saved {
		fouts = append(fouts, fwdMap[n])
	}
	fg.Output(fouts)
	j.Forward = fx.NewGraphModule(fg)
	copyAttrs(j.Graph, j.Forward)
	j.NumSaved = len(saved)
	j.recycle = recyclable(j.Forward)
	// The backward graph.
	bg := fx.New()
	bwdMap := map[*fx.Node]*fx.Node{}
	for _, n := range saved {
		p := bg.Placeholder(n.Name)
		p.Meta[fx.MetaVal] = n.Meta[fx.MetaVal]
		bwdMap[n] = p
	}
	remapB := func(n *fx.Node) *fx.Node { return bwdMap[n] }
	for _, n := range g.Nodes() {
		if r, _ := n.Meta[MetaRecompute].(bool); r && n.NumUsers() == 0 {
			continue // recomputed, then unused
		}
		if (bwd[n] || copied[n]) && n.Op != fx.OpOutput {
			bwdMap[n] = bg.CopyNode(n, remapB)
		}
	}
	var bouts fx.Tuple
	for _, v := range vals[j.NumOut:] {
		bouts = append(bouts, mapOut(v, remapB))
	}
	bg.Output(bouts)
	j.Backward = fx.NewGraphModule(bg)
	copyAttrs(j.Graph, j.Backward)
	j.bwdOwned = recyclable(j.Backward)
	if err := j.Forward.Lint(); err != nil {
		return fmt.Errorf("compile: the forward graph: %w", err)
	}
	if err := j.Backward.Lint(); err != nil {
		return fmt.Errorf("compile: the backward graph: %w", err)
	}
	return nil
}

func mapOut(v any, remap func(*fx.Node) *fx.Node) any {
	if n, ok := v.(*fx.Node); ok {
		return remap(n)
	}
	return v
}

func copyAttrs(from, to *fx.GraphModule) {
	for _, name := range from.AttrNames() {
		v, _ := from.Attr(name)
		to.SetAttr(name, v)
	}
}

// aotFunction runs a Joint's compiled graphs as an autograd function.
type aotFunction struct {
	j        *Joint
	fwd, bwd Runnable
	fn       any              // the traced function, for a recorded backward
	primals  []*tensor.Tensor // this call's inputs and parameters
}

// aotSaved is what an aotFunction's Forward leaves for its Backward.
type aotSaved struct {
	saved []*tensor.Tensor
	// kept are the storages the caller can reach that the forward made:
	// the outputs' and the gradients'. (The inputs' and the constants'
	// were not made under the call's storage tag.)
	kept map[*tensor.Storage]bool
}

func (f *aotFunction) Forward(ctx *autograd.FunctionCtx, inputs ...any) []*tensor.Tensor {
	in := make([]*tensor.Tensor, len(inputs))
	for i, x := range inputs {
		in[i], _ = x.(*tensor.Tensor)
	}
	// The backend (compile/cpu's plans) adopts the storages the forward
	// makes for its results under this call's tag: Release hands back
	// those of the saved activations.
	var restore func()
	if f.j.recycle {
		restore = tensor.WithStorageTag(ctx)
	}
	res, err := f.fwd(in)
	if restore != nil {
		restore()
	}
	if err != nil {
		panic(asTensorError(err))
	}
	vals := tensorsOf(res)
	outs := vals[:f.j.NumOut]
	sv := &aotSaved{saved: vals[f.j.NumOut:]}
	if f.j.recycle {
		sv.kept = map[*tensor.Storage]bool{}
		keep(sv.kept, outs)
	}
	ctx.Data = sv
	for i, o := range outs {
		if !f.j.outDiff[i] && o != nil {
			ctx.MarkNonDifferentiable(o)
		}
	}
	return outs
}

func (f *aotFunction) Backward(ctx *autograd.FunctionCtx, grads ...*tensor.Tensor) []*tensor.Tensor {
	if ctx.CreateGraph() {
		return f.recordedBackward(grads)
	}
	sv, _ := ctx.Data.(*aotSaved)
	if sv == nil {
		tensor.Panicf("Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.")
	}
	in := append([]*tensor.Tensor(nil), sv.saved...)
	for i, g := range grads {
		if f.j.outDiff[i] {
			in = append(in, g)
		}
	}
	res, err := f.bwd(in)
	if err != nil {
		panic(asTensorError(err))
	}
	out := make([]*tensor.Tensor, f.j.numPrimals)
	gs := tensorsOf(res)
	for k, g := range gs {
		out[f.j.GradOf[k]] = g
	}
	if sv.kept != nil {
		keep(sv.kept, gs) // a gradient on a saved activation's storage
	}
	if f.j.bwdOwned {
		ctx.MarkUnshared(unshared(gs, in, f.j.Backward)...)
	}
	return out
}

// unshared returns the gradients of gs that are alone on their storage: no
// input of the backward (a saved activation, an incoming gradient), no
// other gradient and no constant of the graph is on it. The backward graph
// calls aten ops only (Joint.bwdOwned), which keep no reference to what
// they make, so nothing else holds them: autograd may make them .grad
// without a copy (FunctionCtx.MarkUnshared).
func unshared(gs, in []*tensor.Tensor, gm *fx.GraphModule) []*tensor.Tensor {
	held := map[*tensor.Storage]int{}
	hold := func(t *tensor.Tensor, n int) {
		if t != nil && t.Storage() != nil {
			held[t.Storage()] += n
		}
	}
	for _, t := range in {
		hold(t, 2)
	}
	for _, name := range gm.AttrNames() {
		if v, ok := gm.Attr(name); ok {
			t, _ := v.(*tensor.Tensor)
			hold(t, 2)
		}
	}
	for _, g := range gs {
		hold(g, 1)
	}
	var out []*tensor.Tensor
	for _, g := range gs {
		if g != nil && g.Storage() != nil && held[g.Storage()] == 1 {
			out = append(out, g)
		}
	}
	return out
}

// Release runs when autograd frees the function's node (after a backward
// without retain_graph): the saved activations are never read again, so
// the storages the forward made for them alone go back to the backend,
// whose next forward call fills them instead of allocating (issue 24's
// memory plan for training graphs). A second backward then fails as
// PyTorch's does.
func (f *aotFunction) Release(ctx *autograd.FunctionCtx) {
	sv, _ := ctx.Data.(*aotSaved)
	ctx.Data = nil
	if sv == nil || sv.kept == nil {
		return
	}
	// Each storage once: once handed back, another call may take it at
	// once.
	for _, t := range sv.saved {
		if t == nil {
			continue
		}
		if s := t.Storage(); s != nil && !sv.kept[s] {
			sv.kept[s] = true
			tensor.RecycleTagged(s, ctx)
		}
	}
}

// keep adds the CPU storages of ts to kept.
func keep(kept map[*tensor.Storage]bool, ts []*tensor.Tensor) {
	for _, t := range ts {
		if t != nil {
			if s := t.Storage(); s != nil {
				kept[s] = true
			}
		}
	}
}

// recyclable reports whether a forward graph's results can be handed back
// once its backward has run: every node it calls is an aten op (or
// getitem), and aten ops never keep a reference to a tensor (an in-place op
// writes values into its argument's own storage; set_, which makes its
// argument share another storage, is excluded), so nothing outside the call
// (a buffer, a TorchBind object, a custom op's cache) can hold a tensor the
// forward made for a saved activation. Views are fine: a saved activation
// on the storage of an output or a gradient is kept.
func recyclable(gm *fx.GraphModule) bool {
	for _, n := range gm.Graph.Nodes() {
		if n.Op != fx.OpCallFunction || n.Target == fx.GetItem {
			continue
		}
		op, ok := n.Target.(*tensor.Op)
		if !ok || op == nil || !strings.HasPrefix(op.Name, "aten::") || strings.HasPrefix(op.Name, "aten::set_") {
			return false
		}
	}
	return true
}

// recordedBackward is the backward of a backward that is itself
// differentiated (CreateGraph): the compiled backward ran on activations
// computed without recording, so instead the function runs again eagerly,
// recorded, and autograd differentiates it with create_graph. (PyTorch's
// AOT autograd refuses double backward; this recomputes.) A function that
// draws random numbers would draw new ones, so its double backward is
// refused, with PyTorch's words.
func (f *aotFunction) recordedBackward(grads []*tensor.Tensor) []*tensor.Tensor {
	if f.j.random {
		tensor.Panicf("torch.compile with aot_autograd does not currently support double backward: the compiled function draws random numbers (dropout), which running it again would draw anew")
	}
	n := len(f.primals) - len(f.j.Params)
	in := make([]reflect.Value, n)
	for i := range n {
		in[i] = reflect.ValueOf(f.primals[i])
	}
	var outs []*tensor.Tensor
	for _, v := range reflect.ValueOf(f.fn).Call(in) {
		switch x := v.Interface().(type) {
		case *tensor.Tensor:
			outs = append(outs, x)
		case []*tensor.Tensor:
			outs = append(outs, x...)
		}
	}
	var douts, dgrads, prim []*tensor.Tensor
	var pidx []int
	for i, o := range outs {
		if f.j.outDiff[i] && grads[i] != nil {
			douts, dgrads = append(douts, o), append(dgrads, grads[i])
		}
	}
	for i, p := range f.primals {
		if p.RequiresGrad() {
			prim, pidx = append(prim, p), append(pidx, i)
		}
	}
	res := autograd.Grad(douts, prim, dgrads, autograd.Options{CreateGraph: true, AllowUnused: true})
	out := make([]*tensor.Tensor, len(f.primals))
	for k, g := range res {
		out[pidx[k]] = g
	}
	return out
}

func tensorsOf(res any) []*tensor.Tensor {
	var l []any
	switch v := res.(type) {
	case fx.Tuple:
		l = v
	case []any:
		l = v
	case *tensor.Tensor:
		return []*tensor.Tensor{v}
	}
	out := make([]*tensor.Tensor, len(l))
	for i, x := range l {
		out[i], _ = x.(*tensor.Tensor)
	}
	return out
}

// compileJoint compiles a Joint's graphs with the backend into a Runnable
// that runs them as an autograd function on the inputs and the lifted
// parameters.
func compileJoint(j *Joint, fnOf any, backend Backend, inputs []*tensor.Tensor) (Runnable, error) {
	fwd, err := backend(j.Forward, append(append([]*tensor.Tensor(nil), inputs...), j.Params...))
	if err != nil {
		return nil, err
	}
	bwd, err := backend(j.Backward, nil)
	if err != nil {
		return nil, err
	}
	return func(inputs []*tensor.Tensor) (any, error) {
		args := make([]any, 0, len(inputs)+len(j.Params))
		primals := make([]*tensor.Tensor, 0, len(inputs)+len(j.Params))
		for _, x := range inputs {
			args, primals = append(args, x), append(primals, x)
		}
		for _, p := range j.Params {
			args, primals = append(args, p), append(primals, p)
		}
		fn := &aotFunction{j: j, fwd: fwd, bwd: bwd, fn: fnOf, primals: primals}
		var outs []*tensor.Tensor
		if err := tensor.Try(func() { outs = autograd.Apply(fn, args...) }); err != nil {
			return nil, err
		}
		if len(outs) == 1 {
			return outs[0], nil
		}
		l := make([]any, len(outs))
		for i, o := range outs {
			l[i] = o
		}
		return l, nil
	}, nil
}

// mutationsAOT reports whether AOT autograd can run the in-place writes of
// a traced graph as they are: each writes into a value the graph computes
// (dropout's mask copied into an empty tensor, an in-place activation), or
// into a closed-over tensor that does not require grad, or a view of one (a
// BatchNorm's running statistics and step counter: PyTorch's buffer
// mutations). The forward graph writes into them when it runs, where the
// eager function writes, and autograd never sees the writes, as it never
// sees eager's (a write that would make the tensor require grad has made
// the trace mark it so). A write into an input, or into a tensor that
// requires grad, is left to autograd over the interpreted graph.
func mutationsAOT(gm *fx.GraphModule) bool {
	for _, n := range gm.Graph.Nodes() {
		op, ok := n.Target.(*tensor.Op)
		if !ok || op == nil {
			continue
		}
		for _, i := range op.Schema.Mutates() {
			for _, m := range nodesIn(schemaArg(n, op, i)) {
				switch b := baseOf(m); b.Op {
				case fx.OpPlaceholder:
					return false
				case fx.OpGetAttr:
					if t, ok := attrOf(gm, b).(*tensor.Tensor); !ok || t.RequiresGrad() {
						return false
					}
				}
			}
		}
	}
	return true
}

// schemaArg is the value a call_function node passes for the op's i-th
// schema argument (nil when it is left at its default).
func schemaArg(n *fx.Node, op *tensor.Op, i int) any {
	if args := n.Args(); i < len(args) {
		return args[i]
	}
	name := op.Schema.Args[i].Name
	for _, kw := range n.Kwargs() {
		if kw.Name == name {
			return kw.Value
		}
	}
	return nil
}

// nodesIn lists the nodes in an argument (a node, or a list of them).
func nodesIn(a any) []*fx.Node {
	switch v := a.(type) {
	case *fx.Node:
		return []*fx.Node{v}
	case []any:
		var out []*fx.Node
		for _, x := range v {
			out = append(out, nodesIn(x)...)
		}
		return out
	}
	return nil
}

// baseOf follows a chain of views (and getitems of multi-output views) back
// to the node whose value they alias.
func baseOf(n *fx.Node) *fx.Node {
	for {
		op, _ := n.Target.(*tensor.Op)
		if !(op != nil && op.Schema.IsView()) && n.Target != fx.GetItem {
			return n
		}
		src, ok := n.Args()[0].(*fx.Node)
		if !ok {
			return n
		}
		n = src
	}
}

// attrOf is the attribute a get_attr node reads, nil for other nodes.
func attrOf(gm *fx.GraphModule, n *fx.Node) any {
	if n.Op != fx.OpGetAttr {
		return nil
	}
	name, _ := n.Target.(string)
	v, _ := gm.Attr(name)
	return v
}

func isOutput(n *fx.Node) bool { return n.Op == fx.OpOutput }

func allIn(ns []*fx.Node, set map[*fx.Node]bool) bool {
	for _, n := range ns {
		if !set[n] {
			return false
		}
	}
	return true
}

// noGradOutput is TraceJoint's refusal of a function none of whose traced
// outputs requires grad.
const noGradOutput = "compile: no output of the function requires grad"

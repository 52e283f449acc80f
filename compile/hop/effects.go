package hop

import (
	"fmt"
	"io"
	"os"
	"sort"
	"sync"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/functional"
	"github.com/goaten/goaten/library"
	"github.com/goaten/goaten/tensor"
)

// EffectType is the kind of side effect an op has
// (torch/_higher_order_ops/effects.py's _EffectType).
type EffectType uint8

// EffectOrdered: the op's calls must run in program order, so a
// functionalized graph threads a token through them.
const EffectOrdered EffectType = iota

func (e EffectType) String() string {
	if e == EffectOrdered {
		return "ORDERED"
	}
	return fmt.Sprintf("EffectType(%d)", uint8(e))
}

var (
	effectsMu sync.Mutex
	effects   = map[*tensor.Op]EffectType{}
)

// RegisterEffect declares that op has a side effect of kind e (PyTorch's
// _register_effectful_op): its calls survive dead-code elimination, and in
// a functionalized trace (compile.Trace with Functionalize) each call
// becomes a with_effects node taking and returning an effect token, the
// token of one call feeding the next:
//
//	with_effects = torch.ops.higher_order.with_effects(arg0_1, torch.ops.aten._print.default, 'moo')
//	getitem = with_effects[0]
//
// An op that writes into or returns an alias of an argument is refused
// ("Ops with aliasing is not supported"), as are registering an op twice
// and an op that has its own Functionalize kernel.
func RegisterEffect(op *tensor.Op, e EffectType) {
	checkNoAliasing(op)
	effectsMu.Lock()
	defer effectsMu.Unlock()
	if _, dup := effects[op]; dup {
		tensor.Panicf("hop.RegisterEffect: %s is already registered as effectful", op.Name)
	}
	effects[op] = e
	fx.MarkEffectful(op)
	op.Impl(tensor.KeyFunctionalize, effectKernel)
}

// Effect returns the kind of side effect op has, if any.
func Effect(op *tensor.Op) (EffectType, bool) {
	effectsMu.Lock()
	defer effectsMu.Unlock()
	e, ok := effects[op]
	return e, ok
}

// EffectfulOps lists the ops registered with RegisterEffect, by name.
func EffectfulOps() []*tensor.Op {
	effectsMu.Lock()
	defer effectsMu.Unlock()
	out := make([]*tensor.Op, 0, len(effects))
	for op := range effects {
		out = append(out, op)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// checkNoAliasing refuses an op whose schema has alias annotations, in
// PyTorch's words (with_effects asserts the same).
func checkNoAliasing(op *tensor.Op) {
	s := op.Schema
	for _, a := range s.Args {
		if a.Type.Alias != nil {
			panic(&tensor.Error{Kind: tensor.RuntimeError, Op: op.Name, Msg: "Ops with aliasing is not supported"})
		}
	}
	for _, r := range s.Returns {
		if r.Type.Alias != nil {
			panic(&tensor.Error{Kind: tensor.RuntimeError, Op: op.Name, Msg: "Ops with aliasing is not supported"})
		}
	}
}

// WithEffectsOp is torch.ops.higher_order.with_effects(token, op, *args):
// a call of an effectful op that takes the effect token and returns a new
// one first, then the op's results (a tuple's elements splatted).
var WithEffectsOp = Define("with_effects", Rules{
	Dense:    withEffectsDense,
	Trace:    withEffectsTrace,
	FromNode: withEffectsFromNode,
	Impure:   true,
})

// WithEffectsSeedOp is WithEffectsOp as seed 001 and PyTorch's export of
// its time print it: torch._higher_order_ops.effects.with_effects(token,
// op, *args). The two differ only in how their nodes print; export prints
// this spelling by default.
var WithEffectsSeedOp = &Op{name: "with_effects", rules: WithEffectsOp.rules, qualname: "torch._higher_order_ops.effects.with_effects"}

// IsWithEffects reports whether target is with_effects, in either spelling.
func IsWithEffects(target any) bool { return target == WithEffectsOp || target == WithEffectsSeedOp }

// WithEffects calls op on args after token, returning the new token and
// op's tensor results. Eagerly the token is an empty tensor that carries
// nothing; the call orders the op in a graph.
func WithEffects(token *T, op *tensor.Op, args ...any) []*T {
	checkNoAliasing(op)
	return WithEffectsOp.Invoke(&Call{In: [][]*T{{token}}, Args: append([]any{op}, args...)})
}

// newToken is a fresh effect token: PyTorch's new_token_tensor,
// torch.tensor([]).
func newToken() *T { return tensor.Empty(tensor.Float32, 0) }

func withEffectsDense(c *Call) []*T {
	if _, ok := c.Args[0].(callTorchbind); ok {
		return append([]*T{newToken()}, methodResult(c.Args[1:]))
	}
	op := c.Args[0].(*tensor.Op)
	return append([]*T{newToken()}, opResults(op, op.Invoke(fullArgs(op, c.Args[1:])))...)
}

// methodResult runs with_effects' call_torchbind(obj, 'method', *args) on
// the object: its tensor result, or nil for none (a non-tensor result is
// a constant in the graph, which nothing reads from the node).
func methodResult(args []any) *T {
	o, ok := args[0].(methodCaller)
	if !ok {
		tensor.TypePanicf("with_effects: call_torchbind on %T, which is not a torchbind object", args[0])
	}
	m, ok := args[1].(string)
	if !ok {
		tensor.TypePanicf("with_effects: call_torchbind's method name must be a string, got %T", args[1])
	}
	switch r := o.Call(m, args[2:]...).(type) {
	case *T:
		return r
	case tensor.ScriptObject:
		tensor.Panicf("with_effects: %s.%s returns a script object, which with_effects cannot return", o.QualifiedClassName(), m)
	}
	return nil
}

// fullArgs is args completed with the schema's defaults.
func fullArgs(op *tensor.Op, args []any) []any {
	out := append([]any(nil), args...)
	for i := len(out); i < len(op.Schema.Args); i++ {
		a := op.Schema.Args[i]
		if !a.HasDefault {
			tensor.Panicf("%s: missing argument %q", op.Name, a.Name)
		}
		out = append(out, a.Default)
	}
	return out
}

// opResults lists the tensors of an op's result; an op returning nothing
// or a number gives one nil, as with_effects returns (token, None).
func opResults(op *tensor.Op, res any) []*T {
	switch r := res.(type) {
	case *T:
		return []*T{r}
	case []*T:
		return r
	case nil:
		return []*T{nil}
	}
	if isNumber(res) {
		return []*T{nil}
	}
	tensor.TypePanicf("with_effects: %s returned %T, not tensors", op.Name, res)
	return nil
}

func withEffectsTrace(c *Call, tr *compile.HOPTracer) []*T {
	res, _ := traceEffect(c, tr)
	return res
}

// traceEffect records with_effects' call c; an op returning a number
// (queue_size's int) gives it as scalar, its element of the node's result
// a None: the graph uses the number as a constant (PyTorch's constant
// burning-in, S6).
func traceEffect(c *Call, tr *compile.HOPTracer) (_ []*T, scalar any) {
	if _, ok := c.Args[0].(callTorchbind); ok {
		panic(&tensor.Error{Kind: tensor.NotImplementedError, Msg: "with_effects: tracing a graph's with_effects over call_torchbind again is not supported yet"})
	}
	op := c.Args[0].(*tensor.Op)
	args := []any{tr.Arg(c.In[0][0]), op}
	cargs := append([]any(nil), c.Args...)
	for i, a := range c.Args[1:] {
		if t, ok := a.(*T); ok && t != nil {
			args = append(args, tr.Arg(t))
			continue
		}
		if o, ok := a.(tensor.ScriptObject); ok {
			// The object's placeholder; the call computes on its fake.
			var n *fx.Node
			n, cargs[i+1] = tr.Object(o)
			args = append(args, n)
			continue
		}
		args = append(args, a)
	}
	c = &Call{Op: c.Op, Subs: c.Subs, In: c.In, Tuple: c.Tuple, Args: cargs, level: c.level}
	results := func(r any) []*T {
		if isNumber(r) {
			scalar = r
		}
		return opResults(op, r)
	}
	var res []*T
	if tr.Mode() == compile.Real {
		tr.Compute(func() { res = append([]*T{newToken()}, results(op.Invoke(fullArgs(op, c.Args[1:])))...) })
	} else {
		res = []*T{newToken()}
		if op.Meta != nil {
			res = append(res, results(op.Meta(op, fullArgs(op, c.Args[1:])))...)
		} else if k := op.BackendKernel(tensor.Meta); k != nil {
			// A custom op's fake kernel, on meta copies of the tensors and
			// the objects' fakes.
			fa := fullArgs(op, c.Args[1:])
			for i, a := range fa {
				if t, ok := a.(*T); ok && t != nil {
					fa[i] = tensor.NewMeta(t.Sizes(), t.Strides(), t.StorageOffset(), t.DType(), tensor.Meta)
				}
			}
			tr.Compute(func() { res = append(res, results(k(op, fa))...) })
			// The fake kernel's results are meta tensors: they live on the
			// device of the call's tensors.
			dev := tensor.CPU
			for _, a := range c.Args[1:] {
				if t, ok := a.(*T); ok && t != nil {
					dev = t.Device()
					break
				}
			}
			for i, r := range res[1:] {
				if r != nil && r.Device() == tensor.Meta && dev != tensor.Meta {
					res[i+1] = tensor.NewMeta(r.Sizes(), r.Strides(), r.StorageOffset(), r.DType(), dev)
				}
			}
		} else if len(op.Schema.Returns) == 0 {
			res = append(res, nil)
		} else {
			tensor.Panicf("with_effects: %s has no meta function to trace it in fake mode", op.Name)
		}
	}
	out := tr.Record(c.Op, args, res)
	// PyTorch tracks with_effects' (token, None) result element by element,
	// making a getitem for the None that dead-code elimination then drops:
	// its name stays used (S9's next token is getitem_2).
	m := tr.Module().Graph
	for i, r := range res {
		if r == nil {
			n := m.CallFunction(fx.GetItem, []any{lastCall(m, c.Op), i}, nil)
			if err := m.EraseNode(n); err != nil {
				panic(asError(err))
			}
		}
	}
	return out, scalar
}

// lastCall is the last node of g calling target.
func lastCall(g *fx.Graph, target any) *fx.Node {
	nodes := g.Nodes()
	for i := len(nodes) - 1; i >= 0; i-- {
		if n := nodes[i]; n.Op == fx.OpCallFunction && n.Target == target {
			return n
		}
	}
	return nil
}

func withEffectsFromNode(args []any, _ fx.Kwargs, _ *Graphs) (*Call, error) {
	if len(args) < 2 {
		return nil, tensor.Errorf("with_effects: expected (token, op, *args)")
	}
	tok, ok := args[0].(*T)
	if !ok {
		return nil, tensor.Errorf("with_effects: the token must be a tensor, got %T", args[0])
	}
	switch args[1].(type) {
	case *tensor.Op:
	case callTorchbind:
		if len(args) < 4 {
			return nil, tensor.Errorf("with_effects: call_torchbind needs (obj, method, *args)")
		}
		if _, ok := args[2].(methodCaller); !ok {
			return nil, tensor.Errorf("with_effects: call_torchbind on %T, which is not a torchbind object", args[2])
		}
		if _, ok := args[3].(string); !ok {
			return nil, tensor.Errorf("with_effects: call_torchbind's method name must be a string, got %T", args[3])
		}
	default:
		return nil, tensor.Errorf("with_effects: the op must be an operator, got %T", args[1])
	}
	return &Call{In: [][]*T{{tok}}, Args: append([]any{args[1]}, args[2:]...)}, nil
}

// effectKernel is an effectful op's Functionalize kernel: in a
// functionalized trace the call becomes with_effects over the trace's
// token; elsewhere the op runs below the layer on its arguments' values.
func effectKernel(op *tensor.Op, d tensor.Dispatch, args []any) any {
	in := make([]any, len(args))
	wrapped := false
	for i, a := range args {
		if t, ok := a.(*T); ok && functional.IsFunctional(t) {
			functional.Sync(t)
			a, wrapped = functional.Unwrap(t), true
		}
		in[i] = a
	}
	var res []*T
	if tr := compile.ActiveTracer(); tr != nil {
		if tok, ok := tr.Token(); ok {
			if hasObject(in) {
				tr.CheckObjectEscapes(op.Name)
			}
			// Drop trailing defaults, as the node prints the given arguments.
			if returnsNumber(op) {
				// The number goes back to the caller as a constant.
				out, scalar := traceEffect(&Call{Op: WithEffectsOp, In: [][]*T{{tok}}, Args: append([]any{op}, trimDefaults(op, in)...), level: layerTrace}, tr)
				tr.SetToken(out[0])
				return scalar
			}
			out := WithEffects(tok, op, trimDefaults(op, in)...)
			tr.SetToken(out[0])
			res = out[1:]
			return wrapResults(op, res, true)
		}
	}
	r := func() any {
		restore := tensor.ExcludeKey(tensor.KeyFunctionalize)
		defer restore()
		return op.Redispatch(d, tensor.KeyFunctionalize, in)
	}()
	if !wrapped {
		return r
	}
	return wrapResults(op, opResults(op, r), true)
}

// isNumber reports whether an op's result is a number (an int, float or
// bool return).
func isNumber(r any) bool {
	switch r.(type) {
	case int, int64, int32, float64, float32, bool, tensor.Scalar:
		return true
	}
	return false
}

// returnsNumber reports whether op returns one int, float, bool or Scalar.
func returnsNumber(op *tensor.Op) bool {
	r := op.Schema.Returns
	if len(r) != 1 {
		return false
	}
	switch r[0].Type.Kind {
	case tensor.TInt, tensor.TFloat, tensor.TBool, tensor.TScalar:
		return true
	}
	return false
}

// hasObject reports whether args hold a script object.
func hasObject(args []any) bool {
	for _, a := range args {
		if _, ok := a.(tensor.ScriptObject); ok {
			return true
		}
	}
	return false
}

// objectOpEffect makes a custom op whose schema takes a custom class
// effectful (library.Define calls it): PyTorch's _get_effect gives
// EffectType.ORDERED to an op with a ScriptObject argument, as an object's
// state may change. An op with alias annotations is left to
// auto_functionalized.
func objectOpEffect(op *tensor.Op) {
	s := op.Schema
	for _, a := range s.Args {
		if a.Type.Alias != nil {
			return
		}
	}
	for _, r := range s.Returns {
		if r.Type.Alias != nil {
			return
		}
	}
	if _, done := Effect(op); !done {
		RegisterEffect(op, EffectOrdered)
	}
}

func init() { library.SetObjectOpHook(objectOpEffect) }

func trimDefaults(op *tensor.Op, args []any) []any {
	n := len(args)
	for n > 0 && n <= len(op.Schema.Args) {
		a := op.Schema.Args[n-1]
		if !a.HasDefault || fmt.Sprint(a.Default) != fmt.Sprint(args[n-1]) {
			break
		}
		n--
	}
	return args[:n]
}

// wrapResults makes an op's results functional again, shaped as its
// schema returns them.
func wrapResults(op *tensor.Op, res []*T, wrap bool) any {
	out := make([]*T, len(res))
	for i, r := range res {
		if r != nil && wrap {
			out[i] = functional.WrapResult(r)
		} else {
			out[i] = r
		}
	}
	switch len(op.Schema.Returns) {
	case 0:
		return nil
	case 1:
		if op.Schema.Returns[0].Type.IsTensorLike() && len(out) == 1 {
			return out[0]
		}
	}
	return out
}

// PrintOp is aten::_print(str s) -> (): it writes s and a newline to
// PrintWriter. It is effectful (EffectOrdered).
var PrintOp = registerPrint()

var (
	printMu     sync.Mutex
	printWriter io.Writer = os.Stdout
)

// SetPrintWriter makes aten::_print write to w (os.Stdout by default) and
// returns a function restoring the previous writer.
func SetPrintWriter(w io.Writer) (restore func()) {
	printMu.Lock()
	defer printMu.Unlock()
	old := printWriter
	printWriter = w
	return func() {
		printMu.Lock()
		defer printMu.Unlock()
		printWriter = old
	}
}

func registerPrint() *tensor.Op {
	op, ok := tensor.LookupOp("aten::_print")
	if !ok {
		op = tensor.RegisterOp("aten::_print(str s) -> ()")
		op.Explicit = true
		op.ImplBackend(tensor.CPU, func(_ *tensor.Op, args []any) any {
			printMu.Lock()
			defer printMu.Unlock()
			fmt.Fprintln(printWriter, args[0])
			return nil
		})
		none := func(*tensor.Op, []any) any { return nil }
		op.SetMeta(none)
		op.ImplBackend(tensor.Meta, none)
	}
	RegisterEffect(op, EffectOrdered)
	return op
}

// Print calls aten::_print(s): eagerly it prints s; in a functionalized
// trace it is a with_effects node threading the effect token.
func Print(s string) { PrintOp.Invoke([]any{s}) }

// MakeTokenOp is prims::_make_token() -> Tensor, a fresh effect token;
// SinkTokensOp is prims::_sink_tokens(Tensor[] tokens) -> (), which ends
// the tokens' chains and is kept by dead-code elimination.
var MakeTokenOp, SinkTokensOp = registerTokenOps()

func registerTokenOps() (*tensor.Op, *tensor.Op) {
	mk := tensor.RegisterOp("prims::_make_token() -> Tensor")
	mk.Explicit = true
	mk.ImplBackend(tensor.CPU, func(*tensor.Op, []any) any { return newToken() })
	mk.ImplBackend(tensor.Meta, func(*tensor.Op, []any) any {
		return tensor.NewMetaContiguous([]int{0}, tensor.Float32, tensor.Meta)
	})
	sink := tensor.RegisterOp("prims::_sink_tokens(Tensor[] tokens) -> ()")
	sink.Explicit = true
	none := func(*tensor.Op, []any) any { return nil }
	sink.ImplBackend(tensor.CPU, none)
	sink.ImplBackend(tensor.Meta, none)
	fx.MarkEffectful(sink)
	return mk, sink
}

// UnliftEffectTokens rewrites a functionalized graph with a token input
// (compile.TokenInput) so that it neither takes nor returns the token, as
// aot_export_module(unlift_effect_tokens=True) does: the token input
// becomes a _make_token call and the output token goes to _sink_tokens.
// A graph without a token is left alone.
func UnliftEffectTokens(gm *fx.GraphModule) error {
	tok := compile.TokenInput(gm)
	if tok == nil {
		return nil
	}
	g := gm.Graph
	out := g.OutputNode()
	res, ok := out.Args()[0].(fx.Tuple)
	if !ok || len(res) == 0 {
		return &fx.Error{Node: out, Msg: "hop.UnliftEffectTokens: the graph does not return its token first"}
	}
	last, ok := res[0].(*fx.Node)
	if !ok {
		return &fx.Error{Node: out, Msg: "hop.UnliftEffectTokens: the graph does not return its token first"}
	}
	ph := g.Placeholders()
	restore := g.InsertingAfter(ph[len(ph)-1])
	mk := g.CreateNode(fx.OpCallFunction, MakeTokenOp, nil, nil, "_make_token_default")
	restore()
	tok.ReplaceAllUsesWith(mk)
	if err := g.EraseNode(tok); err != nil {
		return err
	}
	restore = g.InsertingBefore(out)
	g.CreateNode(fx.OpCallFunction, SinkTokensOp, []any{[]any{last}}, nil, "_sink_tokens_default")
	restore()
	out.SetArgs(fx.Tuple(append([]any(nil), res[1:]...)))
	return gm.Lint()
}

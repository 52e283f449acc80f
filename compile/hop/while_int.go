package hop

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/functional"
	"github.com/goaten/goaten/tensor"
)

// Int is an int a while_loop carries (WhileLoopCarries). Eagerly it is its
// value. In a trace it is an unbacked symbol, as PyTorch makes every int
// carry (NOTE [unspecialize int carry with unbacked symints] of
// while_loop.py): the number of steps is data, so neither the carry in the
// sub-programs nor the loop's int result has a value while tracing. It is
// then a node of the graph: a placeholder printed as Sym(u0) in the
// sub-graphs, a getitem of the loop after it, or an operator node of such
// ints (arg0_1 + 1). Its arithmetic (Add, Sub, Mul) and comparisons (Lt,
// ...) record those nodes; AsSize makes it the size argument of a tensor op;
// Int, which asks for a Go int, refuses in a trace as PyTorch refuses to
// guard on a data-dependent expression.
type Int struct {
	v    int      // the value; in a trace, the hint of the symbol (or arithmetic of hints)
	node *fx.Node // in a trace, the node computing it; nil for a constant
	expr string   // in a trace, its expression: "u0", "u0 + 1"
	sym  bool     // v is the hint of the unbacked symbol node stands for
}

// IntOf is the constant n as an Int.
func IntOf(n int) Int { return Int{v: n} }

// Traced reports whether the int is a node of a trace (an unbacked symbol
// or an expression of one).
func (a Int) Traced() bool { return a.node != nil }

// Int is the value as a Go int. In a trace the value is data: it panics
// with PyTorch's "Could not guard on data-dependent expression u0".
func (a Int) Int() int {
	if a.node != nil {
		panic(&tensor.Error{Op: "while_loop", Msg: fmt.Sprintf(
			"Could not guard on data-dependent expression %s (goaten: a Go int of an unbacked int of a trace %s; compare it with Lt, Eq, ... inside a while_loop, or give it to an op as a size with AsSize)",
			a.expr, tensor.DataDependentMsg)})
	}
	return a.v
}

// AsSize is the int as the size argument of a tensor op
// (x.Expand([]int{n.AsSize(), 3})). Eagerly it is the value. In a fake
// trace it is the fake size of the unbacked symbol, which the trace records
// as the int's node, so that the op's result has the size u1; only a symbol
// itself (a carry or a loop's result), not an expression of one, can be a
// size there. A trace in Real mode refuses: the size would be baked in.
func (a Int) AsSize() int {
	if a.node == nil {
		return a.v
	}
	if !a.sym {
		panic(&tensor.Error{Op: "while_loop", Kind: tensor.NotImplementedError, Msg: fmt.Sprintf(
			"goaten: the unbacked expression %s can be a size only as a symbol of its own (a while_loop's carry or result), not an expression of one", a.expr)})
	}
	if _, ok := compile.UnbackedName(a.v); !ok {
		panic(&tensor.Error{Op: "while_loop", Msg: fmt.Sprintf(
			"Could not guard on data-dependent expression %s (goaten: in a Real-mode trace the size of an unbacked int would be baked into the graph; trace in Fake mode)", a.expr)})
	}
	return a.v
}

// String is the value, or in a trace the expression ("u0").
func (a Int) String() string {
	if a.node != nil {
		return a.expr
	}
	return strconv.Itoa(a.v)
}

// TraceValue implements compile.SymValue: a traced function returning the
// int returns its node (or its value).
func (a Int) TraceValue() any {
	if a.node != nil {
		return a.node
	}
	return a.v
}

// Add, Sub and Mul are a+b, a-b and a*b; in a trace they record
// operator nodes (add = arg0_1 + 1).
func (a Int) Add(b Int) Int { return intOp(fx.Add, a, b, a.v+b.v) }
func (a Int) Sub(b Int) Int { return intOp(fx.Sub, a, b, a.v-b.v) }
func (a Int) Mul(b Int) Int { return intOp(fx.Mul, a, b, a.v*b.v) }

// Eq, Ne, Lt, Le, Gt and Ge compare a with b; in a trace they record
// comparison nodes (lt = arg0_1 < 3), a cond_fn's result.
func (a Int) Eq(b Int) Bool { return intCmp(fx.Eq, a, b, a.v == b.v) }
func (a Int) Ne(b Int) Bool { return intCmp(fx.Ne, a, b, a.v != b.v) }
func (a Int) Lt(b Int) Bool { return intCmp(fx.Lt, a, b, a.v < b.v) }
func (a Int) Le(b Int) Bool { return intCmp(fx.Le, a, b, a.v <= b.v) }
func (a Int) Gt(b Int) Bool { return intCmp(fx.Gt, a, b, a.v > b.v) }
func (a Int) Ge(b Int) Bool { return intCmp(fx.Ge, a, b, a.v >= b.v) }

// Bool is a comparison of Ints (PyTorch's SymBool): a while_loop's cond_fn
// may return one.
type Bool struct {
	v    bool
	node *fx.Node
	expr string
}

// Bool is the value. In a trace it panics: the value is data.
func (b Bool) Bool() bool {
	if b.node != nil {
		panic(&tensor.Error{Op: "while_loop", Msg: fmt.Sprintf(
			"Could not guard on data-dependent expression %s (goaten: a Go bool of a comparison of unbacked ints %s)", b.expr, tensor.DataDependentMsg)})
	}
	return b.v
}

// TraceValue implements compile.SymValue.
func (b Bool) TraceValue() any {
	if b.node != nil {
		return b.node
	}
	return b.v
}

// intGraph is the graph the traced operands of an Int operation belong to,
// which must be the one being traced.
func intGraph(a, b Int) *fx.Graph {
	var g *fx.Graph
	for _, x := range []Int{a, b} {
		if x.node == nil {
			continue
		}
		if g != nil && x.node.Graph() != g {
			g = nil
			break
		}
		g = x.node.Graph()
	}
	tr := compile.ActiveTracer()
	if g == nil || tr == nil || tr.Graph() != g {
		panic(&tensor.Error{Op: "while_loop", Kind: tensor.NotImplementedError, Msg: fmt.Sprintf(
			"goaten: the unbacked ints %s and %s are used outside the graph that made them (a sub-program closing over one); pass them as carries", a, b)})
	}
	return g
}

func intNode(op *fx.Operator, a, b Int, val any) *fx.Node {
	g := intGraph(a, b)
	n := g.CallFunction(op, []any{a.TraceValue(), b.TraceValue()}, nil)
	n.Meta[fx.MetaVal] = val
	return n
}

func intOp(op *fx.Operator, a, b Int, v int) Int {
	if a.node == nil && b.node == nil {
		return Int{v: v}
	}
	n := intNode(op, a, b, v)
	e := intExpr(op, a, b)
	n.Meta[compile.MetaSymExpr] = e
	return Int{v: v, node: n, expr: e}
}

func intCmp(op *fx.Operator, a, b Int, v bool) Bool {
	if a.node == nil && b.node == nil {
		return Bool{v: v}
	}
	n := intNode(op, a, b, v)
	return Bool{v: v, node: n, expr: a.String() + cmpSymbols[op] + b.String()}
}

var cmpSymbols = map[*fx.Operator]string{fx.Eq: " == ", fx.Ne: " != ", fx.Lt: " < ", fx.Le: " <= ", fx.Gt: " > ", fx.Ge: " >= "}

// intExpr is the expression of a op b as sympy prints it (u0 + 1, u0 - 1,
// 2*u0).
func intExpr(op *fx.Operator, a, b Int) string {
	paren := func(x Int) string {
		if s := x.String(); !strings.ContainsAny(s, "+-") || x.node == nil {
			return s
		}
		return "(" + x.String() + ")"
	}
	switch op {
	case fx.Add:
		if b.node == nil && b.v < 0 {
			return a.String() + " - " + strconv.Itoa(-b.v)
		}
		return a.String() + " + " + b.String()
	case fx.Sub:
		if b.node == nil && b.v < 0 {
			return a.String() + " + " + strconv.Itoa(-b.v)
		}
		return a.String() + " - " + paren(b)
	}
	if a.node != nil && b.node == nil {
		a, b = b, a
	}
	return paren(a) + "*" + paren(b)
}

// carry kinds of WhileLoopCarries.
func isIntCarry(v any) bool {
	switch v.(type) {
	case int, Int, SymInt:
		return true
	}
	return false
}

// pyTypeOf is the Python class a carry's Go value stands for.
func pyTypeOf(v any) string {
	switch x := v.(type) {
	case *T:
		if x == nil {
			return "<class 'NoneType'>"
		}
		return "<class 'torch.Tensor'>"
	case int, Int:
		return "<class 'int'>"
	case SymInt:
		return "<class 'torch.SymInt'>"
	case float32, float64:
		return "<class 'float'>"
	case bool:
		return "<class 'bool'>"
	case string:
		return "<class 'str'>"
	case nil:
		return "<class 'NoneType'>"
	}
	return fmt.Sprintf("<class '%T'>", v)
}

// pyValue prints a carry as Python prints it.
func pyValue(v any) string {
	switch x := v.(type) {
	case *T:
		return valueRepr(x)
	case Int:
		return x.String()
	case SymInt:
		return strconv.Itoa(x.Int())
	case float64:
		return fx.Repr(x)
	case float32:
		return fx.Repr(float64(x))
	case bool:
		if x {
			return "True"
		}
		return "False"
	case string:
		return strconv.Quote(x)
	case nil:
		return "None"
	}
	return fmt.Sprint(v)
}

func pyTupleOf(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = pyValue(v)
	}
	if len(vs) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// validateCarries refuses carries other than tensors and ints in
// PyTorch's words (validate_subgraph_args_types).
func validateCarries(flat []any) {
	for _, v := range flat {
		if t, ok := v.(*T); (ok && t != nil) || isIntCarry(v) {
			continue
		}
		types := make([]string, len(flat))
		for i, w := range flat {
			types[i] = pyTypeOf(w)
		}
		tuple := "(" + strings.Join(types, ", ") + ")"
		if len(flat) == 1 {
			tuple = "(" + types[0] + ",)"
		}
		panic(&tensor.Error{Op: "while_loop", Msg: fmt.Sprintf(
			"%s can only be of (<class 'torch.Tensor'>, <class 'int'>, <class 'torch.SymInt'>) but got %s", pyTupleOf(flat), tuple)})
	}
}

// WhileLoopCarries is WhileLoop whose carries may be ints as well as
// tensors (PyTorch's while_loop with int leaves in carried_inputs):
//
//	vals := carried
//	for cond(vals..., additional...) { vals = body(vals..., additional...) }
//	return vals
//
// carried holds *T, int and Int values; cond and body receive each int
// carry as an Int, the tensors as *T, then the additional tensors. cond
// returns a boolean 0-d tensor, a bool or a Bool (a comparison of Ints);
// body returns one value per carry, an Int (or int) where the carry is an
// int and a tensor with the carry's metadata where it is a tensor. The
// result holds the last carries, the ints as Ints; a loop of no step
// returns clones of the tensors.
//
// Eagerly the loop is a Go loop (gradients flow through the ops of its
// steps). In a trace each int carry becomes an unbacked symbol: the
// sub-graphs take it as a placeholder (Sym(u0)), the loop's node takes the
// carry's value or node among its carried inputs, and the loop's int
// results are fresh unbacked symbols (u1, ...), read by getitem nodes,
// which later ops may take as sizes (Int.AsSize) and a Go branch cannot
// read (Int.Int refuses). Graphs holding such a loop run on fx.Interpreter
// and in compiled functions with eager's values. Without int carries it is
// WhileLoop.
func WhileLoopCarries(cond func(args ...any) any, body func(args ...any) []any, carried []any, additional []*T) []any {
	if cond == nil || body == nil {
		panic(&tensor.Error{Op: "while_loop", Msg: "Expect cond_fn and body_fn to be callable."})
	}
	flat := append(append([]any(nil), carried...), anys(additional)...)
	for i, t := range additional {
		if t == nil {
			flat[len(carried)+i] = nil
		}
	}
	validateCarries(flat)
	ints := false
	for _, v := range carried {
		ints = ints || isIntCarry(v)
	}
	if !ints {
		return whileTensorCarries(cond, body, carried, additional)
	}
	tr := compile.ActiveTracer()
	vals := make([]any, len(carried))
	for i, v := range carried {
		switch x := v.(type) {
		case int:
			v = IntOf(x)
		case SymInt:
			v = symIntCarry(tr, x)
		}
		vals[i] = v
	}
	if tr != nil {
		return whileIntTrace(tr, cond, body, vals, additional)
	}
	return whileAny(userPred(cond), func(a []any) []any { return body(a...) }, vals, additional)
}

// symIntCarry is a tensor's size carried by a while_loop: its value
// eagerly; in a trace the sym_size.int node reading it, which the loop's
// node takes among its carried inputs (PyTorch's backed SymInt carry).
func symIntCarry(tr *compile.HOPTracer, s SymInt) Int {
	if tr == nil {
		return IntOf(s.Int())
	}
	x := s.x
	if functional.IsFunctional(x) {
		x = functional.Unwrap(x)
	}
	n := tr.Graph().CreateNode(fx.OpCallFunction, opSymSize, []any{tr.Arg(x), s.dim}, nil, "sym_size_int")
	n.Meta[fx.MetaVal] = s.Int()
	return Int{v: s.Int(), node: n, expr: strconv.Itoa(s.Int())}
}

// whileTensorCarries is WhileLoopCarries of tensors only: WhileLoop.
func whileTensorCarries(cond func(args ...any) any, body func(args ...any) []any, carried []any, additional []*T) []any {
	in := make([]*T, len(carried))
	for i, v := range carried {
		in[i] = v.(*T)
	}
	c := func(a ...*T) *T {
		r := cond(anys(a)...)
		if t, ok := r.(*T); ok {
			return t
		}
		panic(&tensor.Error{Op: "while_loop", Msg: "cond_fn must return a boolean scalar tensor or a boolean but got " + pyValue(r)})
	}
	b := func(a ...*T) []*T {
		out := body(anys(a)...)
		ts := make([]*T, len(out))
		for i, o := range out {
			t, ok := o.(*T)
			if !ok {
				var lhs any
				if i < len(in) {
					lhs = in[i]
				}
				panic(&tensor.Error{Op: "while_loop", Msg: typeMismatch(i, lhs, o)})
			}
			ts[i] = t
		}
		return ts
	}
	return anys(WhileLoop(c, b, in, additional))
}

// userPred turns a cond_fn's result into a Go bool.
func userPred(cond func(args ...any) any) func([]any) bool {
	return func(a []any) bool { return predValue(cond(a...)) }
}

func predValue(r any) bool {
	switch x := r.(type) {
	case *T:
		return truth(checkPred([]*T{x}))
	case bool:
		return x
	case Bool:
		return x.Bool()
	}
	panic(&tensor.Error{Op: "while_loop", Msg: "cond_fn must return a boolean scalar tensor or a boolean but got " + pyValue(r)})
}

// typeMismatch is check_meta_consistency's message for a carry and a
// body output that are not both tensors or both ints.
func typeMismatch(i int, lhs, rhs any) string {
	l, r := pyValue(lhs), pyValue(rhs)
	return fmt.Sprintf("Expected carried_inputs and body_output to have same metadata but found:\npair[%d] differ in type: %s vs %s, where lhs is %s and rhs is %s", i, l, r, l, r)
}

// checkCarries refuses a body_fn result that does not match the carries.
func checkCarries(carried, out []any) {
	if len(out) != len(carried) {
		panic(&tensor.Error{Op: "while_loop", Msg: fmt.Sprintf(
			"body_fn should return the same number of elements as carried_inputs, got %d vs %d", len(out), len(carried))})
	}
	for i, o := range out {
		switch c := carried[i].(type) {
		case *T:
			t, ok := o.(*T)
			if !ok {
				panic(&tensor.Error{Op: "while_loop", Msg: typeMismatch(i, c, o)})
			}
			if !sameMeta(c, t) {
				panic(&tensor.Error{Op: "while_loop", Msg: "Expected carried_inputs and body_output to have same metadata but found:\n" +
					strings.Join([]string{fmt.Sprintf("pair[%d] differ in %s, where lhs is %s and rhs is %s", i, strings.Join(diffMeta(c, t), ", "), fakeRepr(c), fakeRepr(t))}, "\n")})
			}
		default:
			if !isIntCarry(o) {
				panic(&tensor.Error{Op: "while_loop", Msg: typeMismatch(i, c, o)})
			}
		}
	}
}

// whileAny runs the loop on values: tensors and ints (Int eagerly, int
// in a graph's run).
func whileAny(pred func([]any) bool, body func([]any) []any, carried []any, add []*T) []any {
	n := len(carried)
	args := make([]any, n+len(add))
	for i, t := range add {
		args[n+i] = t
	}
	vals := carried
	test := func() bool {
		copy(args, vals)
		return pred(args)
	}
	if !test() {
		out := make([]any, n)
		for i, v := range carried {
			if t, ok := v.(*T); ok {
				v = t.Clone()
			}
			out[i] = v
		}
		return out
	}
	for {
		copy(args, vals)
		out := body(args)
		checkCarries(carried, out)
		for i, o := range out {
			if _, isInt := carried[i].(Int); isInt {
				switch x := o.(type) {
				case int:
					out[i] = IntOf(x)
				case SymInt:
					out[i] = IntOf(x.Int())
				}
			}
		}
		vals = out
		if !test() {
			break
		}
	}
	return append([]any(nil), vals...)
}

// whileIntTrace records a loop with int carries: each int carry is a
// fresh unbacked symbol in the sub-graphs, and each int result another
// after the loop.
func whileIntTrace(tr *compile.HOPTracer, cond func(args ...any) any, body func(args ...any) []any, carried []any, add []*T) []any {
	// Functionalization: the sub-programs run on fresh functional wrappers
	// and may not write into or return their inputs.
	fz := false
	for _, v := range carried {
		if t, ok := v.(*T); ok && functional.IsFunctional(t) {
			fz = true
		}
	}
	for _, t := range add {
		fz = fz || functional.IsFunctional(t)
	}
	plain := func(v any) any {
		if t, ok := v.(*T); ok && fz {
			return functional.Unwrap(t)
		}
		return v
	}
	n := len(carried)
	inputs := make([]any, 0, n+len(add))
	for _, v := range carried {
		if _, ok := v.(Int); ok {
			inputs = append(inputs, tr.NewUnbacked())
			continue
		}
		inputs = append(inputs, plain(v))
	}
	for _, t := range add {
		inputs = append(inputs, plain(t))
	}
	wrap := func(args []any) []any {
		out := make([]any, len(args))
		for i, a := range args {
			switch x := a.(type) {
			case *fx.Node:
				name, _ := x.Meta[compile.MetaSymExpr].(string)
				out[i] = Int{v: x.Meta[fx.MetaVal].(int), node: x, expr: name, sym: true}
			case *T:
				if fz {
					x = functional.Wrap(x)
				}
				out[i] = x
			default:
				out[i] = a
			}
		}
		return out
	}
	checkFz := func(k int, in, out []any) []any {
		if !fz {
			return out
		}
		for _, a := range in {
			if x, ok := a.(*T); ok && functional.Mutations(x) > 0 {
				panic(&tensor.Error{Op: "while_loop", Msg: WhileLoopOp.rules.Mutates[k]})
			}
		}
		res := make([]any, len(out))
		for i, o := range out {
			res[i] = o
			t, ok := o.(*T)
			if !ok || t == nil {
				continue
			}
			for _, a := range in {
				if x, ok := a.(*T); ok && (t == x || functional.SameStorage(t, x)) {
					panic(&tensor.Error{Op: "while_loop", Msg: WhileLoopOp.rules.Aliases[k]})
				}
			}
			res[i] = functional.Unwrap(t)
		}
		return res
	}
	var bodyOut []any
	condFn := func(args []any) any {
		in := wrap(args)
		r := checkFz(0, in, []any{cond(in...)})[0]
		if t, ok := r.(*T); ok {
			checkPred([]*T{t})
		} else if _, ok := r.(Bool); !ok {
			if _, ok := r.(bool); !ok {
				predValue(r) // refuses it
			}
		}
		return r
	}
	bodyFn := func(args []any) any {
		in := wrap(args)
		out := checkFz(1, in, body(in...))
		checkCarries(in[:n], out)
		for i, o := range out {
			if x, ok := o.(SymInt); ok {
				out[i] = symIntCarry(compile.ActiveTracer(), x)
			}
		}
		bodyOut = out
		return fx.Tuple(out)
	}
	fns := []func([]any) any{condFn, bodyFn}
	gms := make([]*fx.GraphModule, 2)
	var lifted []*T
	traced := make([]int, 2)
	for pass := 0; pass < 2; pass++ {
		for i, f := range fns {
			if pass == 1 && traced[i] == len(lifted) {
				continue
			}
			gm, _, more, err := tr.SubgraphInts(f, inputs, lifted)
			if err != nil {
				if tr.Segmented() && compile.IsDataDependent(err) {
					return whileAny(userPred(cond), func(a []any) []any { return body(a...) }, carried, add)
				}
				panic(asError(err))
			}
			gms[i] = gm
			lifted = append(lifted, more...)
			traced[i] = len(lifted)
		}
	}
	ops := make([]any, n)
	for i, v := range carried {
		switch x := plain(v).(type) {
		case Int:
			ops[i] = x.TraceValue()
		case *T:
			ops[i] = tr.Arg(x)
		}
	}
	plainAdd := make([]*T, len(add))
	for i, t := range add {
		plainAdd[i] = plain(t).(*T)
	}
	more := fx.Tuple(nodes(tr, concat(plainAdd, lifted)))
	graphs := freshAttrs(tr, []string{"while_loop_cond_graph_", "while_loop_body_graph_"}, gms)
	results := make([]any, n)
	if tr.Mode() == compile.Real {
		pa := make([]any, n)
		for i, v := range carried {
			pa[i] = plain(v)
		}
		var res []any
		tr.Compute(func() {
			res = whileAny(userPred(cond), func(a []any) []any { return body(a...) }, pa, plainAdd)
		})
		for i, r := range res {
			if a, ok := r.(Int); ok {
				r = a.v
			}
			results[i] = r
		}
	} else {
		for i, o := range bodyOut {
			if isIntCarry(o) {
				results[i] = tr.NewUnbacked()
			} else {
				results[i] = o
			}
		}
	}
	out := tr.RecordInts(WhileLoopOp, []any{graphs[0], graphs[1], fx.Tuple(ops), more}, results)
	for i, o := range out {
		if nd, ok := o.(*fx.Node); ok {
			v := nd.Meta[fx.MetaVal].(int)
			name, _ := nd.Meta[compile.MetaSymExpr].(string)
			if name == "" { // Real mode: the value, named by a symbol of its own
				name, _ = compile.UnbackedName(tr.NewUnbacked())
				nd.Meta[compile.MetaSymExpr] = name
			}
			out[i] = Int{v: v, node: nd, expr: name, sym: tr.Mode() == compile.Fake}
		} else if t, ok := o.(*T); ok && fz {
			out[i] = functional.WrapResult(t)
		}
	}
	return out
}

// whileIntFromNode makes the Call of a while_loop node with int carries
// (ok false when every carry is a tensor): it runs the loop on the
// sub-graphs directly, the ints as ints.
func whileIntFromNode(args []any, g *Graphs) (*Call, bool, error) {
	var l []any
	switch x := args[2].(type) {
	case fx.Tuple:
		l = x
	case []any:
		l = x
	default:
		return nil, false, nil
	}
	ints := false
	carried := make([]any, len(l))
	for i, v := range l {
		switch x := v.(type) {
		case *T:
			carried[i] = x
		case int:
			carried[i], ints = x, true
		case int64:
			carried[i], ints = int(x), true
		default:
			return nil, false, tensor.Errorf("while_loop: carried_inputs[%d] is a %T, not a tensor or an int", i, v)
		}
	}
	if !ints {
		return nil, false, nil
	}
	cond, err := argGraph("while_loop", "cond_fn", args[0])
	if err != nil {
		return nil, true, err
	}
	body, err := argGraph("while_loop", "body_fn", args[1])
	if err != nil {
		return nil, true, err
	}
	add, _, err := argTensors("while_loop", "additional_inputs", args[3])
	if err != nil {
		return nil, true, err
	}
	runCond, runBody := g.runnerAny(cond), g.runnerAny(body)
	pred := func(a []any) bool {
		r := runCond(a)
		if l, ok := r.(fx.Tuple); ok && len(l) == 1 {
			r = l[0]
		}
		return predValue(r)
	}
	step := func(a []any) []any {
		switch r := runBody(a).(type) {
		case fx.Tuple:
			return append([]any(nil), r...)
		case []any:
			return append([]any(nil), r...)
		default: // a single tensor or int
			return []any{r}
		}
	}
	direct := func() any { return whileAny(pred, step, carried, add) }
	return &Call{direct: direct}, true, nil
}

// runnerAny is gm as a function of tensors and ints (a sub-graph with int
// placeholders), run by the Interpreter.
func (g *Graphs) runnerAny(gm *fx.GraphModule) func(args []any) any {
	return func(args []any) any {
		res, err := fx.NewInterpreter(gm).Run(args...)
		if err != nil {
			panic(asError(err))
		}
		return res
	}
}

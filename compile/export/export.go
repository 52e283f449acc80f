package export

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/compile/hop"
	"github.com/goaten/goaten/functional"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/tensor"
)

// Dimension is a dynamic dimension declared at export (torch.export.Dim):
// the sizes it may take at call time are Min..Max. Dimensions of several
// inputs given the same name must be equal at call time. Use math.MaxInt for
// an unbounded Max.
type Dimension struct {
	Name     string
	Min, Max int
}

// Dim declares a dynamic dimension named name whose size lies in [min, max].
func Dim(name string, min, max int) *Dimension {
	return &Dimension{Name: name, Min: min, Max: max}
}

// Options configure Export. The zero value exports every dimension as
// static, names the user inputs args_0, args_1, ... (PyTorch's names for a
// forward(self, *args)) and decomposes nothing.
type Options struct {
	// InputNames name the user inputs' placeholders (PyTorch takes them
	// from forward's signature, which Go's reflection cannot read).
	InputNames []string
	// DynamicShapes gives, per user input, the dynamic dimensions by index
	// (PyTorch's dynamic_shapes): {0: Dim("batch", 1, 64)}. Missing inputs
	// and dimensions are static.
	DynamicShapes []map[int]*Dimension
	// Decompositions replace ops while tracing (see compile.Decompositions).
	Decompositions compile.Decompositions
	// NewerEffects prints effectful calls as newer PyTorch exports them:
	// torch.ops.higher_order.with_effects(...), with TorchBind method calls
	// inside with_effects too. By default export prints them as seed 001
	// and PyTorch's export of its time do:
	// torch._higher_order_ops.effects.with_effects(...) around custom ops
	// taking objects, and method calls as plain call_torchbind nodes.
	NewerEffects bool
}

// stateful is what every module embedding nn.Base provides.
type stateful interface {
	nn.Module
	NamedParameters() []nn.Named
	NamedBuffers() []nn.Named
	NamedModules() []nn.NamedModule
	IsPersistent(name string) bool
}

// stateEntry is a parameter or buffer lifted to a graph input.
type stateEntry struct {
	kind       InputKind
	fqn        string
	t          *tensor.Tensor
	persistent bool
}

var tensorType = reflect.TypeOf((*tensor.Tensor)(nil))

// Export traces m's Forward method on fake stand-ins of args, functionalized,
// into an ExportedProgram (torch.export.export): a graph of ATen ops whose
// inputs are the module's parameters, buffers and constant tensors, lifted
// to placeholders, followed by the user inputs; a buffer Forward writes in
// place becomes a BUFFER_MUTATION output, a user input it writes a
// USER_INPUT_MUTATION output, ahead of the user outputs.
//
// Forward must take *tensor.Tensor arguments (one per element of args, or a
// variadic ...*tensor.Tensor) and return *tensor.Tensor values or a
// []*tensor.Tensor. The program holds m's own tensors (not copies), as
// PyTorch's ExportedProgram does. While Export runs, m's parameters and
// buffers stand for the traced inputs: m must not be used by another
// goroutine meanwhile.
func Export(m nn.Module, args []*tensor.Tensor, opts ...Options) (*ExportedProgram, error) {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	mod, fwd, err := moduleForward(m)
	if err != nil {
		return nil, err
	}
	if err := checkForward(fwd.Type(), len(args)); err != nil {
		return nil, fmt.Errorf("export: %T.Forward: %w", m, err)
	}
	if err := nonNil(args); err != nil {
		return nil, err
	}
	names, err := userInputNames(o.InputNames, len(args))
	if err != nil {
		return nil, err
	}
	dims, err := resolveDims(args, o.DynamicShapes, names)
	if err != nil {
		return nil, err
	}
	state := collectState(mod)
	var raw *fx.GraphModule
	if len(dims.order) == 0 {
		raw, err = traceForward(fwd, state, args, o.Decompositions)
	} else {
		raw, err = dims.symbolize(fwd, state, args, o.Decompositions)
	}
	if err != nil {
		return nil, err
	}
	return lift(raw, mod, state, names, dims, o)
}

// checkForward checks Forward's signature.
func checkForward(ft reflect.Type, n int) error {
	if ft.IsVariadic() {
		for i := range ft.NumIn() - 1 {
			if ft.In(i) != tensorType {
				return fmt.Errorf("argument %d is %s, not *tensor.Tensor", i, ft.In(i))
			}
		}
		if ft.In(ft.NumIn()-1).Elem() != tensorType {
			return fmt.Errorf("its variadic argument is %s, not ...*tensor.Tensor", ft.In(ft.NumIn()-1))
		}
		if n < ft.NumIn()-1 {
			return fmt.Errorf("it takes at least %d arguments, %d inputs given", ft.NumIn()-1, n)
		}
	} else {
		if ft.NumIn() != n {
			return fmt.Errorf("it takes %d arguments, %d inputs given", ft.NumIn(), n)
		}
		for i := range ft.NumIn() {
			if ft.In(i) != tensorType {
				return fmt.Errorf("argument %d is %s, not *tensor.Tensor", i, ft.In(i))
			}
		}
	}
	if ft.NumOut() == 0 {
		return fmt.Errorf("it returns nothing")
	}
	for i := range ft.NumOut() {
		if t := ft.Out(i); t != tensorType && t != reflect.TypeOf([]*tensor.Tensor(nil)) {
			return fmt.Errorf("result %d is %s, not *tensor.Tensor or []*tensor.Tensor", i, t)
		}
	}
	return nil
}

// userInputNames returns the placeholder names of the user inputs.
func userInputNames(given []string, n int) ([]string, error) {
	if len(given) > n {
		return nil, fmt.Errorf("export: %d input names for %d inputs", len(given), n)
	}
	names := make([]string, n)
	for i := range names {
		if i < len(given) {
			names[i] = given[i]
			if !isIdentifier(names[i]) {
				return nil, fmt.Errorf("export: input name %q is not an identifier", names[i])
			}
			continue
		}
		names[i] = "args_" + strconv.Itoa(i)
	}
	return names, nil
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r != '_' && !unicode.IsLetter(r) && (i == 0 || !unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}

// collectState lists the parameters then the buffers of mod, each tensor
// once, in PyTorch's order (named_parameters, named_buffers).
func collectState(mod stateful) []stateEntry {
	var out []stateEntry
	seen := map[*tensor.Tensor]bool{}
	for _, p := range mod.NamedParameters() {
		if p.Tensor == nil || seen[p.Tensor] {
			continue
		}
		seen[p.Tensor] = true
		out = append(out, stateEntry{kind: Parameter, fqn: p.Name, t: p.Tensor})
	}
	for _, b := range mod.NamedBuffers() {
		if b.Tensor == nil || seen[b.Tensor] {
			continue
		}
		seen[b.Tensor] = true
		out = append(out, stateEntry{kind: Buffer, fqn: b.Name, t: b.Tensor, persistent: mod.IsPersistent(b.Name)})
	}
	return out
}

// traceForward traces Forward functionalized in fake mode. The state
// tensors become the first placeholders, then the user inputs. While
// Forward runs, each state tensor holds the data of its traced stand-in (as
// PyTorch swaps a module's parameters for the tracer's), so reads and
// in-place writes of m's parameters and buffers are those of graph inputs;
// the data is put back afterwards.
func traceForward(fwd reflect.Value, state []stateEntry, args []*tensor.Tensor, decomps compile.Decompositions) (*fx.GraphModule, error) {
	fn, inputs, opts := forwardFn(fwd, state, args, decomps)
	gm, err := compile.Trace(fn, inputs, opts)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return gm, nil
}

// forwardFn is Forward as a function of the state and the user inputs, with
// the inputs and options to trace it.
func forwardFn(fwd reflect.Value, state []stateEntry, args []*tensor.Tensor, decomps compile.Decompositions) (func(...*tensor.Tensor) []*tensor.Tensor, []*tensor.Tensor, compile.TraceOptions) {
	ns := len(state)
	inputs := make([]*tensor.Tensor, 0, ns+len(args))
	names := make([]string, 0, ns+len(args))
	for i, s := range state {
		inputs = append(inputs, s.t)
		names = append(names, "state"+strconv.Itoa(i))
	}
	for i, a := range args {
		inputs = append(inputs, a)
		names = append(names, "arg"+strconv.Itoa(i))
	}
	fn := func(in ...*tensor.Tensor) []*tensor.Tensor {
		restore := swapIn(state, in[:ns])
		defer restore()
		vals := make([]reflect.Value, len(args))
		for i := range args {
			vals[i] = reflect.ValueOf(in[ns+i])
		}
		var flat []*tensor.Tensor
		for _, r := range fwd.Call(vals) {
			switch x := r.Interface().(type) {
			case *tensor.Tensor:
				flat = append(flat, x)
			case []*tensor.Tensor:
				flat = append(flat, x...)
			}
		}
		// A state tensor returned as it is stands for its placeholder.
		for i, t := range flat {
			for j, s := range state {
				if t != nil && t == s.t {
					flat[i] = in[j]
				}
			}
		}
		return flat
	}
	return fn, inputs, compile.TraceOptions{Mode: compile.Fake, Functionalize: true, Decompositions: decomps, ArgNames: names}
}

// swapIn makes each state tensor hold the data of its stand-in and returns
// the function that gives the tensors their own data back.
func swapIn(state []stateEntry, with []*tensor.Tensor) (restore func()) {
	saved := make([]*tensor.Tensor, len(state))
	for i, s := range state {
		t := s.t
		o := tensor.NewMeta(t.Sizes(), t.Strides(), t.StorageOffset(), t.DType(), t.Device()).WithRaw(t.Raw())
		o.Keys = t.Keys
		saved[i] = o
	}
	for i, s := range state {
		s.t.SetData(with[i])
	}
	return func() {
		for i, s := range state {
			s.t.SetData(saved[i])
		}
	}
}

// constantNames maps the tensors held in the fields of mod's modules (not
// registered as parameters or buffers) to their dotted names: the field
// name in snake case ("Scale" -> "scale"), or its `export:"name"` tag.
func constantNames(mod stateful) map[uintptr]string {
	out := map[uintptr]string{}
	for _, nm := range mod.NamedModules() {
		v := reflect.ValueOf(nm.Module)
		if nm.Name == "" {
			v = reflect.ValueOf(mod) // NamedModules lists the root as its Base
		}
		for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
			if v.IsNil() {
				break
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			continue
		}
		st := v.Type()
		for i := range st.NumField() {
			f := st.Field(i)
			if f.Type != tensorType || v.Field(i).IsNil() {
				continue
			}
			name := f.Tag.Get("export")
			if name == "" {
				name = snakeCase(f.Name)
			}
			if nm.Name != "" {
				name = nm.Name + "." + name
			}
			ptrs := []uintptr{v.Field(i).Pointer()}
			// On a functionalized device the trace sees the tensor's
			// inner value.
			if fv := v.Field(i); fv.CanInterface() {
				if t := fv.Interface().(*tensor.Tensor); functional.IsFunctional(t) {
					ptrs = append(ptrs, reflect.ValueOf(functional.Unwrap(t)).Pointer())
				}
			}
			for _, p := range ptrs {
				if _, ok := out[p]; !ok {
					out[p] = name
				}
			}
		}
	}
	return out
}

// snakeCase turns a Go field name into a Python attribute name: "Scale" ->
// "scale", "RunningMean" -> "running_mean", "HTTPCode" -> "http_code".
func snakeCase(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) && i > 0 {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

var nonAlnum = regexp.MustCompile(`[^a-zA-Z0-9]`)

// placeholderName is PyTorch's placeholder_naming_pass name of a lifted
// input: the prefix of its kind and its target, lower-cased, with every
// other character than letters and digits replaced by "_":
// "fc1.weight" -> "p_fc1_weight".
func placeholderName(k InputKind, target string) string {
	prefix := map[InputKind]string{Parameter: "p_", Buffer: "b_", ConstantTensor: "c_", CustomObj: "obj_", Token: "token"}[k]
	if k == Token {
		return prefix
	}
	return prefix + nonAlnum.ReplaceAllString(strings.ToLower(target), "_")
}

// namer gives placeholders unique names as PyTorch's
// _rename_without_collisions does for them: a taken name gets the first
// free suffix _1, _2, ...
type namer map[string]bool

func (n namer) take(name string) string {
	if n[name] {
		k := 1
		for n[name+"_"+strconv.Itoa(k)] {
			k++
		}
		name += "_" + strconv.Itoa(k)
	}
	n[name] = true
	return name
}

// liftedInput is one input of the export graph being built.
type liftedInput struct {
	kind       InputKind
	target     string
	persistent bool
	old        *fx.Node // the placeholder or get_attr node it replaces
	t          *tensor.Tensor
	obj        tensor.ScriptObject // a custom object's real object
	name       string
}

// lift turns the traced graph into an export graph: parameters, buffers,
// constants, user inputs as placeholders in PyTorch's order and names; the
// copy_ writes into inputs at the end become outputs; unused values are
// dropped.
func lift(raw *fx.GraphModule, mod stateful, state []stateEntry, userNames []string, dims *dimSpec, o Options) (*ExportedProgram, error) {
	if !o.NewerEffects {
		if err := hop.PlainTorchbindCalls(raw); err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
	}
	g := raw.Graph
	tokIn := compile.TokenInput(raw)
	var phs []*fx.Node
	for _, p := range g.Placeholders() {
		if p != tokIn {
			phs = append(phs, p)
		}
	}
	if len(phs) != len(state)+len(userNames) {
		return nil, fmt.Errorf("export: the traced graph has %d placeholders for %d inputs", len(phs), len(state)+len(userNames))
	}
	// The functionalized writes into inputs: copy_(input, new value) nodes
	// nobody uses.
	written := map[*fx.Node]*fx.Node{}
	drop := map[*fx.Node]bool{}
	for _, n := range g.Nodes() {
		op := n.OpTarget()
		if op == nil || op.Name != "aten::copy_" || n.NumUsers() > 0 || len(n.Args()) < 2 {
			continue
		}
		dst, ok1 := n.Args()[0].(*fx.Node)
		src, ok2 := n.Args()[1].(*fx.Node)
		if ok1 && ok2 && dst.Op == fx.OpPlaceholder {
			written[dst] = src
			drop[n] = true
		}
	}
	for i, s := range state {
		if s.kind == Parameter && written[phs[i]] != nil {
			return nil, fmt.Errorf("export: Forward writes into parameter %s in place; only buffers and user inputs may be mutated", s.fqn)
		}
	}
	// Inputs in PyTorch's order: tokens, parameters, buffers, constants,
	// custom objects, user inputs.
	var ins []*liftedInput
	if tokIn != nil {
		ins = append(ins, &liftedInput{kind: Token, old: tokIn})
	}
	for i, s := range state {
		ins = append(ins, &liftedInput{kind: s.kind, target: s.fqn, persistent: s.persistent, old: phs[i], t: s.t})
	}
	fieldNames := constantNames(mod)
	objNames := objectNames(mod)
	lifted, liftedObjs := 0, 0
	var objs []*liftedInput
	for _, n := range g.Nodes() {
		if n.Op != fx.OpGetAttr {
			continue
		}
		v, _ := raw.Attr(n.Target.(string))
		if _, isGraph := v.(*fx.GraphModule); isGraph {
			continue // a higher-order op's sub-program stays an attribute
		}
		if obj, isObj := v.(tensor.ScriptObject); isObj {
			// An object Forward reads from the module: a CUSTOM_OBJ input
			// named after its field (PyTorch's lift_constants_pass).
			target, ok := objNames[obj]
			if !ok {
				target = "lifted_custom_" + strconv.Itoa(liftedObjs)
				liftedObjs++
			}
			objs = append(objs, &liftedInput{kind: CustomObj, target: target, old: n, obj: obj})
			continue
		}
		t, ok := v.(*tensor.Tensor)
		if !ok {
			return nil, fmt.Errorf("export: attribute %s of the traced graph is a %T, not a tensor", n.Target, v)
		}
		if err := checkNotWritten(n); err != nil {
			return nil, err
		}
		target, ok := fieldNames[reflect.ValueOf(t).Pointer()]
		if !ok {
			target = "lifted_tensor_" + strconv.Itoa(lifted)
			lifted++
		}
		ins = append(ins, &liftedInput{kind: ConstantTensor, target: target, old: n, t: t})
	}
	ins = append(ins, objs...)
	for i, name := range userNames {
		ins = append(ins, &liftedInput{kind: UserInput, target: name, old: phs[len(state)+i]})
	}
	// Names: user inputs first, then the lifted state, as PyTorch's
	// placeholder_naming_pass gives them.
	taken := namer{}
	for _, in := range ins {
		if in.kind == UserInput {
			in.name = taken.take(in.target)
		}
	}
	for _, in := range ins {
		if in.kind != UserInput {
			in.name = taken.take(placeholderName(in.kind, in.target))
		}
	}

	ng := fx.New()
	gm := fx.NewGraphModule(ng)
	remap := map[*fx.Node]*fx.Node{}
	sig := &ExportGraphSignature{}
	for _, in := range ins {
		p := ng.Placeholder(in.name)
		for k, v := range in.old.Meta {
			p.Meta[k] = v
		}
		remap[in.old] = p
		spec := InputSpec{Kind: in.kind, Arg: argSpec(p), Target: in.target, Persistent: in.persistent}
		if in.kind == UserInput || in.kind == Token {
			spec.Target = ""
		}
		if in.kind == Token {
			spec.Arg = TokenArgument{p.Name}
		}
		sig.InputSpecs = append(sig.InputSpecs, spec)
	}
	get := func(x *fx.Node) *fx.Node { return remap[x] }
	for _, n := range g.Nodes() {
		if n.Op == fx.OpPlaceholder || n.Op == fx.OpOutput || drop[n] {
			continue
		}
		if n.Op == fx.OpGetAttr {
			if remap[n] != nil {
				continue // a lifted constant
			}
			// A sub-GraphModule of a higher-order op: the exported
			// module holds it under the same name.
			v, _ := raw.Attr(n.Target.(string))
			gm.SetAttr(n.Target.(string), v)
		}
		c := ng.CopyNode(n, get)
		if c.Target == hop.WithEffectsOp && !o.NewerEffects {
			c.Target = hop.WithEffectsSeedOp // seed 001's spelling
		}
		remap[n] = c
	}
	// Outputs: tokens, buffer mutations, user input mutations, user outputs.
	var outs fx.Tuple
	flat := flatOutputs(g.OutputNode())
	if tokIn != nil {
		if len(flat) == 0 || flat[0] == nil {
			return nil, fmt.Errorf("export: the traced graph does not return its effect token first")
		}
		v := remap[flat[0]]
		outs = append(outs, v)
		sig.OutputSpecs = append(sig.OutputSpecs, OutputSpec{Kind: OutputToken, Arg: TokenArgument{v.Name}})
		flat = flat[1:]
	}
	for _, in := range ins {
		if in.kind != Buffer || written[in.old] == nil {
			continue
		}
		v := remap[written[in.old]]
		outs = append(outs, v)
		sig.OutputSpecs = append(sig.OutputSpecs, OutputSpec{Kind: BufferMutation, Arg: TensorArgument{v.Name}, Target: in.target})
	}
	for _, in := range ins {
		if in.kind != UserInput || written[in.old] == nil {
			continue
		}
		v := remap[written[in.old]]
		outs = append(outs, v)
		sig.OutputSpecs = append(sig.OutputSpecs, OutputSpec{Kind: UserInputMutation, Arg: TensorArgument{v.Name}, Target: in.name})
	}
	for _, o := range flat {
		if o == nil {
			outs = append(outs, nil)
			sig.OutputSpecs = append(sig.OutputSpecs, OutputSpec{Kind: UserOutput, Arg: ConstantArgument{}})
			continue
		}
		v := remap[o]
		outs = append(outs, v)
		sig.OutputSpecs = append(sig.OutputSpecs, OutputSpec{Kind: UserOutput, Arg: argSpec(v)})
	}
	ng.Output(outs)
	if _, err := ng.EliminateDeadCode(); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	if err := gm.Lint(); err != nil {
		return nil, fmt.Errorf("export: the export graph is malformed: %w", err)
	}
	ep := &ExportedProgram{
		GraphModule:      gm,
		GraphSignature:   sig,
		StateDict:        map[string]*tensor.Tensor{},
		Constants:        map[string]*tensor.Tensor{},
		CustomObjs:       map[string]tensor.ScriptObject{},
		RangeConstraints: map[string]ValueRange{},
	}
	for _, in := range ins {
		switch {
		case in.kind == CustomObj:
			ep.CustomObjs[in.target] = in.obj
		case in.kind == Parameter || in.kind == Buffer && in.persistent:
			ep.StateDict[in.target] = in.t
		case in.kind == Buffer || in.kind == ConstantTensor:
			ep.Constants[in.target] = in.t
		}
	}
	dims.record(ep)
	recordUnbacked(ep, gm)
	return ep, nil
}

// recordUnbacked puts the unbacked sizes of the graph's values (a cond
// whose branches' outputs differ in size; compile.UnbackedName) into the
// range constraints, as PyTorch does: u0: VR[0, int_oo].
func recordUnbacked(ep *ExportedProgram, gm *fx.GraphModule) {
	for _, n := range gm.Graph.Nodes() {
		if t, ok := n.Meta[fx.MetaVal].(*tensor.Tensor); ok && t != nil {
			for _, size := range t.Sizes() {
				if name, ok := compile.UnbackedName(size); ok {
					ep.RangeConstraints[name] = ValueRange{0, math.MaxInt}
				}
			}
		}
	}
	for _, name := range gm.AttrNames() {
		if v, _ := gm.Attr(name); v != nil {
			if sub, ok := v.(*fx.GraphModule); ok {
				recordUnbacked(ep, sub)
			}
		}
	}
}

// checkNotWritten refuses an in-place write into a tensor Forward closes
// over that is neither a parameter nor a buffer: export cannot return its
// new value.
func checkNotWritten(attr *fx.Node) error {
	for _, u := range attr.Users() {
		op := u.OpTarget()
		if op == nil {
			continue
		}
		for _, i := range op.Schema.Mutates() {
			if i < len(u.Args()) && u.Args()[i] == attr {
				return fmt.Errorf("export: Forward writes in place (%s) into a tensor it holds that is neither a parameter nor a buffer; register it as a buffer", op.Name)
			}
		}
	}
	return nil
}

// flatOutputs lists the nodes the traced graph returns (nil for None).
func flatOutputs(out *fx.Node) []*fx.Node {
	var res []*fx.Node
	var walk func(a any)
	walk = func(a any) {
		switch v := a.(type) {
		case *fx.Node:
			res = append(res, v)
		case []any:
			for _, x := range v {
				walk(x)
			}
		case fx.Tuple:
			for _, x := range v {
				walk(x)
			}
		case nil:
			res = append(res, nil)
		}
	}
	if out != nil && len(out.Args()) > 0 {
		walk(out.Args()[0])
	}
	return res
}

// ValueRange is the range of a symbolic size (PyTorch's ValueRanges),
// printed "VR[2, 1024]"; an unbounded Max (math.MaxInt) prints int_oo.
type ValueRange struct{ Min, Max int }

func (r ValueRange) String() string {
	hi := strconv.Itoa(r.Max)
	if r.Max == math.MaxInt {
		hi = "int_oo"
	}
	return "VR[" + strconv.Itoa(r.Min) + ", " + hi + "]"
}

// dimSpec is the dynamic dimensions of the user inputs: a symbol ("s0")
// per dynamic dimension.
type dimSpec struct {
	syms    [][]string // per user input, per dimension: symbol or ""
	ranges  map[string]ValueRange
	dimName map[string]string // symbol -> Dim name
	order   []string          // symbols in order of first use
	example map[string]int    // symbol -> example size
	names   []string          // user input names
}

// resolveDims checks the declared dynamic dimensions against the example
// inputs and gives each Dim name a symbol.
func resolveDims(args []*tensor.Tensor, shapes []map[int]*Dimension, names []string) (*dimSpec, error) {
	d := &dimSpec{syms: make([][]string, len(args)), ranges: map[string]ValueRange{},
		dimName: map[string]string{}, example: map[string]int{}, names: names}
	if len(shapes) > len(args) {
		return nil, fmt.Errorf("export: dynamic shapes given for %d inputs, the module takes %d", len(shapes), len(args))
	}
	byName := map[string]string{}
	for i, m := range shapes {
		if len(m) == 0 {
			continue
		}
		rank := args[i].Dim()
		d.syms[i] = make([]string, rank)
		keys := make([]int, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			dm := m[k]
			if dm == nil {
				continue
			}
			j := k
			if j < 0 {
				j += rank
			}
			if j < 0 || j >= rank {
				return nil, fmt.Errorf("export: dynamic dimension %d of input %d (%s), which has %d dimensions", k, i, names[i], rank)
			}
			if dm.Name == "" || dm.Min < 0 || dm.Max < dm.Min {
				return nil, fmt.Errorf("export: invalid Dim %q with range [%d, %d]", dm.Name, dm.Min, dm.Max)
			}
			size := args[i].Size(j)
			if size < dm.Min || size > dm.Max {
				return nil, fmt.Errorf("export: the example input *args[%d] has size %d in dimension %d, outside the range [%d, %d] of Dim %s",
					i, size, j, dm.Min, dm.Max, dm.Name)
			}
			sym, ok := byName[dm.Name]
			if !ok {
				sym = "s" + strconv.Itoa(len(d.order))
				byName[dm.Name] = sym
				d.order = append(d.order, sym)
				d.ranges[sym] = ValueRange{dm.Min, dm.Max}
				d.dimName[sym] = dm.Name
				d.example[sym] = size
			} else {
				if r := d.ranges[sym]; r.Min != dm.Min || r.Max != dm.Max {
					return nil, fmt.Errorf("export: two Dims named %s with different ranges", dm.Name)
				}
				if d.example[sym] != size {
					return nil, fmt.Errorf("export: Dim %s is used for sizes %d and %d of the example inputs, which must be equal",
						dm.Name, d.example[sym], size)
				}
			}
			d.syms[i][j] = sym
		}
	}
	return d, nil
}

// record puts the dynamic dimensions into the program.
func (d *dimSpec) record(ep *ExportedProgram) {
	ep.inputDims = d.syms
	ep.dimNames = d.dimName
	for s, r := range d.ranges {
		ep.RangeConstraints[s] = r
	}
}

// symbolize traces Forward so that the graph holds for every size of the
// declared Dims (compile.Symbolize): the ints that depend on them are
// computed from sym_size.int nodes of the user inputs. When the graph
// cannot be made symbolic (Forward branches on a size, or a size reaches
// the graph other than as k·size+c), the Dims it depends on were
// specialized: that is PyTorch's "Constraints violated" error.
func (d *dimSpec) symbolize(fwd reflect.Value, state []stateEntry, args []*tensor.Tensor, decomps compile.Decompositions) (*fx.GraphModule, error) {
	// Dynamic inputs are traced contiguous, as the graph assumes them.
	in := slices.Clone(args)
	for i, a := range args {
		if len(d.syms[i]) > 0 && !a.IsContiguous() {
			in[i] = tensor.NewMetaContiguous(a.Sizes(), a.DType(), a.Device())
		}
	}
	fn, inputs, opts := forwardFn(fwd, state, in, decomps)
	dynamic := func(only string) map[int]map[int]int {
		out := map[int]map[int]int{}
		for i, ss := range d.syms {
			for j, s := range ss {
				if s == "" || only != "" && s != only {
					continue
				}
				if out[len(state)+i] == nil {
					out[len(state)+i] = map[int]int{}
				}
				out[len(state)+i][j] = slices.Index(d.order, s)
			}
		}
		return out
	}
	// The probe trace keeps within each Dim's range.
	maxSize := map[int]int{}
	for k, s := range d.order {
		if r := d.ranges[s]; r.Max < math.MaxInt {
			maxSize[k] = r.Max
		}
	}
	gm, err := compile.SymbolizeWithin(fn, inputs, dynamic(""), maxSize, opts)
	if err == nil {
		return gm, nil
	}
	if _, terr := compile.Trace(fn, inputs, opts); terr != nil {
		return nil, fmt.Errorf("export: %w", terr)
	}
	why := err
	var bad, lines []string
	for _, s := range d.order {
		if _, err := compile.SymbolizeWithin(fn, inputs, dynamic(s), maxSize, opts); err == nil {
			continue
		}
		name := d.dimName[s]
		bad = append(bad, name)
		r := d.ranges[s]
		rng := fmt.Sprintf("%d <= %s <= %d", r.Min, name, r.Max)
		if r.Max == math.MaxInt {
			rng = fmt.Sprintf("%d <= %s", r.Min, name)
		}
		lines = append(lines, fmt.Sprintf("  - Not all values of %s = %s in the specified range %s are valid because %s was inferred to be a constant (%d).",
			name, d.source(s), rng, name, d.example[s]))
	}
	if len(bad) == 0 { // only the sizes together change the graph
		for _, s := range d.order {
			bad = append(bad, d.dimName[s])
		}
		lines = append(lines, "  - the graph depends on the sizes of "+strings.Join(bad, ", ")+" together")
	}
	return nil, fmt.Errorf("export: Constraints violated (%s)! The traced graph depends on the size of a dimension declared dynamic in a way export cannot express (%v); mark it static or keep the size out of the graph.\n%s",
		strings.Join(bad, ", "), strings.TrimPrefix(why.Error(), "compile: "), strings.Join(lines, "\n"))
}

// source names where a symbol's size comes from, as PyTorch's guards do:
// L['x'].size()[0].
func (d *dimSpec) source(sym string) string {
	for i, ss := range d.syms {
		for j, s := range ss {
			if s == sym {
				return fmt.Sprintf("L['%s'].size()[%d]", d.names[i], j)
			}
		}
	}
	return sym
}

// moduleForward returns m's state and its Forward method, or the error
// saying which of them m lacks.
func moduleForward(m nn.Module) (stateful, reflect.Value, error) {
	mod, ok := m.(stateful)
	if !ok {
		return nil, reflect.Value{}, fmt.Errorf("export: %T does not embed nn.Base", m)
	}
	fwd := reflect.ValueOf(m).MethodByName("Forward")
	if !fwd.IsValid() {
		return nil, reflect.Value{}, fmt.Errorf("export: %T has no Forward method", m)
	}
	return mod, fwd, nil
}

// nonNil reports the first nil input.
func nonNil(args []*tensor.Tensor) error {
	for i, a := range args {
		if a == nil {
			return fmt.Errorf("export: input %d is nil", i)
		}
	}
	return nil
}

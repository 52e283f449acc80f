package export

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/tensor"
)

// ExportedProgram is an exported module (torch.export.ExportedProgram): a
// functional graph of ATen ops, its signature, and the state its lifted
// inputs stand for.
type ExportedProgram struct {
	// GraphModule holds the graph. Its placeholders and returned tuple are
	// ordered and named as GraphSignature says; it has no get_attr nodes.
	GraphModule *fx.GraphModule
	// GraphSignature says what each input and output is.
	GraphSignature *ExportGraphSignature
	// StateDict holds the parameters and persistent buffers by fully
	// qualified name; Constants the lifted constant tensors and the
	// non-persistent buffers. An exported program shares them with the
	// module it was exported from.
	StateDict map[string]*tensor.Tensor
	Constants map[string]*tensor.Tensor
	// CustomObjs holds the lifted custom (TorchBind) objects by name: the
	// objects the module held, shared with it.
	CustomObjs map[string]tensor.ScriptObject
	// RangeConstraints maps each symbolic size ("s0") to its range.
	RangeConstraints map[string]ValueRange

	inputDims [][]string        // per user input, per dimension: its symbol or ""
	dimNames  map[string]string // symbol -> the Dim's name
}

// Graph returns the program's graph.
func (ep *ExportedProgram) Graph() *fx.Graph { return ep.GraphModule.Graph }

// userInputIndices returns the indices of the user inputs among the
// placeholders.
func (ep *ExportedProgram) userInputIndices() []int {
	var out []int
	for i, s := range ep.GraphSignature.InputSpecs {
		if s.Kind == UserInput {
			out = append(out, i)
		}
	}
	return out
}

// symAt returns the symbol of dimension j of user input i, or "".
func (ep *ExportedProgram) symAt(i, j int) string {
	if i >= 0 && i < len(ep.inputDims) && j >= 0 && j < len(ep.inputDims[i]) {
		return ep.inputDims[i][j]
	}
	return ""
}

// String summarises the program as PyTorch prints an ExportedProgram: the
// graph as print_readable shows it (values annotated with dtype and shape,
// dynamic sizes by symbol; no stack-trace comments), the signature and the
// range constraints.
func (ep *ExportedProgram) String() string {
	code := ep.readableCode()
	gmText := "class GraphModule(torch.nn.Module):\n" + indentLines(code, "    ")
	var b strings.Builder
	b.WriteString("ExportedProgram:\n    ")
	b.WriteString(strings.ReplaceAll(gmText, "\n", "\n    "))
	b.WriteString("\nGraph signature: ")
	b.WriteString(strings.ReplaceAll(ep.GraphSignature.String(), "\n", "\n    "))
	b.WriteString("\nRange constraints: ")
	b.WriteString(ep.rangeString())
	b.WriteString("\n")
	return b.String()
}

func indentLines(s, pad string) string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = pad + lines[i]
	}
	return strings.Join(lines, "\n")
}

func (ep *ExportedProgram) rangeString() string {
	syms := make([]string, 0, len(ep.RangeConstraints))
	for s := range ep.RangeConstraints {
		syms = append(syms, s)
	}
	sort.Slice(syms, func(i, j int) bool { return symLess(syms[i], syms[j]) })
	parts := make([]string, len(syms))
	for i, s := range syms {
		parts[i] = s + ": " + ep.RangeConstraints[s].String()
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// symLess orders s2 before s10.
func symLess(a, b string) bool {
	na, ea := strconv.Atoi(strings.TrimPrefix(a, "s"))
	nb, eb := strconv.Atoi(strings.TrimPrefix(b, "s"))
	if ea == nil && eb == nil {
		return na < nb
	}
	return a < b
}

// dtypeAbbrs are print_readable's dtype abbreviations.
var dtypeAbbrs = map[tensor.DType]string{
	tensor.Bool: "b8", tensor.Uint8: "u8", tensor.Int8: "i8", tensor.Int16: "i16", tensor.Int32: "i32",
	tensor.Int64: "i64", tensor.Float16: "f16", tensor.BFloat16: "bf16", tensor.Float32: "f32", tensor.Float64: "f64",
}

// annotation is the type annotation print_readable gives a value:
// "f32[s0, 4]" for a tensor, its sizes in the dynamic dims' symbols where
// they depend on them; "Sym(2*s0)" for a size computed from them.
func (ep *ExportedProgram) annotation(n *fx.Node, userIdx int) (string, bool) {
	if e, ok := n.Meta[compile.MetaSymExpr].(string); ok && e != "" {
		return `"Sym(` + e + `)"`, true
	}
	t, ok := n.Meta[fx.MetaVal].(*tensor.Tensor)
	if !ok || t == nil {
		return "", false
	}
	shape, _ := n.Meta[compile.MetaSymShape].([]string)
	dims := make([]string, t.Dim())
	for j, s := range t.Sizes() {
		if sym := ep.symAt(userIdx, j); userIdx >= 0 && sym != "" {
			dims[j] = sym
		} else if u, ok := compile.UnbackedName(s); ok {
			dims[j] = u
		} else if j < len(shape) && shape[j] != "" {
			dims[j] = shape[j]
		} else {
			dims[j] = strconv.Itoa(s)
		}
	}
	return `"` + dtypeAbbrs[t.DType()] + "[" + strings.Join(dims, ", ") + `]"`, true
}

// readableCode is the graph's code as PyTorch 2's verbose codegen prints it
// (values freed after their last use, unused ones at once), with type
// annotations, without the class line.
func (ep *ExportedProgram) readableCode() string {
	g := ep.GraphModule.Graph
	code := strings.TrimLeft(ep.GraphModule.CodeWith(fx.CodeOptions{FreeUnused: true}), "\n")
	byName := map[string]*fx.Node{}
	userIdx := map[*fx.Node]int{}
	k := 0
	for _, n := range g.Nodes() {
		byName[n.Name] = n
		if n.Op == fx.OpPlaceholder {
			if i := slices.IndexFunc(ep.GraphSignature.InputSpecs, func(s InputSpec) bool { return argName(s.Arg) == n.Name }); i >= 0 &&
				ep.GraphSignature.InputSpecs[i].Kind == UserInput {
				userIdx[n] = k
				k++
			}
		}
	}
	lines := strings.Split(code, "\n")
	for i, line := range lines {
		if i == 0 && strings.HasPrefix(line, "def forward(self") {
			params := strings.TrimSuffix(strings.TrimPrefix(line, "def forward("), "):")
			parts := strings.Split(params, ", ")
			for j, p := range parts {
				if n := byName[p]; n != nil && n.Op == fx.OpPlaceholder {
					ui, isUser := userIdx[n]
					if !isUser {
						ui = -1
					}
					if a, ok := ep.annotation(n, ui); ok {
						parts[j] = p + ": " + a
					}
				}
			}
			lines[i] = "def forward(" + strings.Join(parts, ", ") + "):"
			continue
		}
		body := strings.TrimPrefix(line, "    ")
		eq := strings.Index(body, " = ")
		if eq <= 0 || strings.HasPrefix(body, "return ") {
			continue
		}
		if n := byName[body[:eq]]; n != nil && n.Op != fx.OpPlaceholder {
			if a, ok := ep.annotation(n, -1); ok {
				lines[i] = "    " + body[:eq] + ": " + a + body[eq:]
			}
		}
	}
	return strings.Join(lines, "\n")
}

// RunDecompositions returns the program with the ops of table replaced by
// what they decompose into (ExportedProgram.run_decompositions; see
// compile.RunDecompositions, which rewrites the graph call by call). It
// works on every program: effect tokens and with_effects calls (effectful
// ops are kept whole), custom objects, buffer and user-input mutations,
// higher-order ops (their sub-graphs are decomposed too) and dynamic
// dimensions (sizes stay symbolic). The new program shares the state and
// keeps the signature, its outputs named after the new graph's values; a
// constant tensor a decomposition makes is lifted to a CONSTANT_TENSOR
// input after the program's other constants.
func (ep *ExportedProgram) RunDecompositions(table compile.Decompositions) (*ExportedProgram, error) {
	// The user inputs' dynamic dims (a loaded program keeps them here, not
	// on its placeholders).
	shapes := make([][]string, len(ep.GraphSignature.InputSpecs))
	for i, k := range ep.userInputIndices() {
		if i < len(ep.inputDims) {
			shapes[k] = ep.inputDims[i]
		}
	}
	gm, err := compile.RunDecompositionsShapes(ep.GraphModule, table, shapes)
	if err != nil {
		return nil, fmt.Errorf("export: RunDecompositions: %w", err)
	}
	sig := ep.GraphSignature.clone()
	out := *ep
	names := make([]string, len(sig.InputSpecs))
	for i, s := range sig.InputSpecs {
		names[i] = argName(s.Arg)
	}
	gm, names, err = liftNewConstants(gm, &out, sig, names)
	if err != nil {
		return nil, fmt.Errorf("export: RunDecompositions: %w", err)
	}
	ngm, err := relabel(gm, names)
	if err != nil {
		return nil, fmt.Errorf("export: RunDecompositions: %w", err)
	}
	outs := flatOutputs(ngm.Graph.OutputNode())
	if len(outs) != len(sig.OutputSpecs) {
		return nil, fmt.Errorf("export: RunDecompositions: the new graph returns %d values for %d outputs", len(outs), len(sig.OutputSpecs))
	}
	for i, o := range outs {
		if o == nil {
			continue
		}
		switch sig.OutputSpecs[i].Arg.(type) {
		case TensorArgument:
			sig.OutputSpecs[i].Arg = TensorArgument{o.Name}
		case TokenArgument:
			sig.OutputSpecs[i].Arg = TokenArgument{o.Name}
		case SymIntArgument:
			sig.OutputSpecs[i].Arg = SymIntArgument{o.Name}
		}
	}
	out.GraphModule, out.GraphSignature = ngm, sig
	return &out, nil
}

// liftNewConstants turns the tensor attributes a decomposition made
// (get_attr nodes) into CONSTANT_TENSOR placeholders named as export names
// lifted constants (c_lifted_tensor_N), placed after the program's last
// constant (before its custom objects and user inputs), as PyTorch's
// lift_constants_pass does. It updates sig and out's Constants (a copy) and
// returns the graph and its placeholders' names.
func liftNewConstants(gm *fx.GraphModule, out *ExportedProgram, sig *ExportGraphSignature, names []string) (*fx.GraphModule, []string, error) {
	var attrs []*fx.Node
	for _, n := range gm.Graph.Nodes() {
		if n.Op != fx.OpGetAttr {
			continue
		}
		if v, _ := gm.Attr(n.Target.(string)); v != nil {
			if _, ok := v.(*tensor.Tensor); ok {
				attrs = append(attrs, n)
			}
		}
	}
	if len(attrs) == 0 {
		return gm, names, nil
	}
	// Where the new inputs go: after the tokens, parameters, buffers and
	// constants.
	at := 0
	for i, s := range sig.InputSpecs {
		switch s.Kind {
		case Token, Parameter, Buffer, ConstantTensor:
			at = i + 1
		}
	}
	taken := namer{}
	for _, n := range gm.Graph.Nodes() {
		taken.take(n.Name)
	}
	consts := make(map[string]*tensor.Tensor, len(out.Constants)+len(attrs))
	for k, v := range out.Constants {
		consts[k] = v
	}
	g := gm.Graph
	phs := g.Placeholders()
	var specs []InputSpec
	var newNames []string
	k := 0
	for _, n := range attrs {
		v, _ := gm.Attr(n.Target.(string))
		target := ""
		for {
			target = "lifted_tensor_" + strconv.Itoa(k)
			k++
			if _, used := consts[target]; !used {
				break
			}
		}
		consts[target] = v.(*tensor.Tensor)
		name := taken.take(placeholderName(ConstantTensor, target))
		var p *fx.Node
		func() {
			if at < len(phs) {
				defer g.InsertingBefore(phs[at])()
			} else if len(phs) > 0 {
				defer g.InsertingAfter(phs[len(phs)-1])()
			} else {
				defer g.InsertingBefore(g.First())()
			}
			p = g.Placeholder(name)
		}()
		copyMeta(n, p)
		n.ReplaceAllUsesWith(p)
		if err := g.EraseNode(n); err != nil {
			return nil, nil, err
		}
		specs = append(specs, InputSpec{Kind: ConstantTensor, Arg: TensorArgument{p.Name}, Target: target})
		newNames = append(newNames, p.Name)
	}
	sig.InputSpecs = slices.Concat(sig.InputSpecs[:at:at], specs, sig.InputSpecs[at:])
	out.Constants = consts
	return gm, slices.Concat(names[:at:at], newNames, names[at:]), nil
}

func copyMeta(from, to *fx.Node) {
	for k, v := range from.Meta {
		to.Meta[k] = v
	}
}

// relabel copies gm with its placeholders named names, returning a tuple,
// without unused values.
func relabel(gm *fx.GraphModule, names []string) (*fx.GraphModule, error) {
	g := gm.Graph
	phs := g.Placeholders()
	if len(phs) != len(names) {
		return nil, fmt.Errorf("the graph has %d placeholders for %d inputs", len(phs), len(names))
	}
	ng := fx.New()
	ngm := fx.NewGraphModule(ng)
	remap := map[*fx.Node]*fx.Node{}
	for i, p := range phs {
		q := ng.Placeholder(names[i])
		for k, v := range p.Meta {
			q.Meta[k] = v
		}
		remap[p] = q
	}
	for _, name := range gm.AttrNames() {
		v, _ := gm.Attr(name)
		ngm.SetAttr(name, v)
	}
	get := func(x *fx.Node) *fx.Node { return remap[x] }
	for _, n := range g.Nodes() {
		switch n.Op {
		case fx.OpPlaceholder:
			continue
		case fx.OpOutput:
			res := flatOutputs(n)
			tup := make(fx.Tuple, len(res))
			for i, r := range res {
				if r != nil {
					tup[i] = remap[r]
				}
			}
			ng.Output(tup)
		default:
			remap[n] = ng.CopyNode(n, get)
		}
	}
	if _, err := ng.EliminateDeadCode(); err != nil {
		return nil, err
	}
	return ngm, ngm.Lint()
}

// CheckInputs checks user inputs against the program's input shapes as
// PyTorch's exported module does before running
// (_check_input_constraints_for_graph): the number of inputs and of
// dimensions, static sizes equal to the exported ones, dynamic sizes within
// their ranges (a lower bound of 2 or less is not checked: sizes 0 and 1 are
// allowed at run time) and equal where they share a Dim.
func (ep *ExportedProgram) CheckInputs(args []*tensor.Tensor) error {
	in := make([]any, len(args))
	for i, a := range args {
		in[i] = a
	}
	return ep.CheckInputsArgs(in)
}

// CheckInputsArgs is CheckInputs over user inputs that may include script
// objects: an object must be of the class the program was exported with.
func (ep *ExportedProgram) CheckInputsArgs(args []any) error {
	idx := ep.userInputIndices()
	if len(args) != len(idx) {
		return fmt.Errorf("Unexpected number of inputs (expected %d, got %d)", len(idx), len(args))
	}
	phs := ep.GraphModule.Graph.Placeholders()
	bound := map[string]int{}
	for i, arg := range args {
		key := "*args[" + strconv.Itoa(i) + "]"
		if idx[i] >= len(phs) {
			return fmt.Errorf("export: the graph has no placeholder for input %d", i)
		}
		if sp, isObj := ep.GraphSignature.InputSpecs[idx[i]].Arg.(CustomObjArgument); isObj {
			o, ok := arg.(tensor.ScriptObject)
			if !ok || o == nil || o.QualifiedClassName() != sp.ClassFQN {
				return fmt.Errorf("Expected input at %s to be a ScriptObject of class %s, but got %s", key, sp.ClassFQN, describeArg(arg))
			}
			continue
		}
		a, _ := arg.(*tensor.Tensor)
		if a == nil {
			return fmt.Errorf("Expected input at %s to be a tensor, but got %s", key, describeArg(arg))
		}
		val, ok := phs[idx[i]].Meta[fx.MetaVal].(*tensor.Tensor)
		if !ok || val == nil {
			continue
		}
		if a.Dim() != val.Dim() {
			return fmt.Errorf("Unexpected number of dimensions in input at %s.shape (expected %s, got %s)",
				key, ep.sizeRepr(i, val.Sizes()), sizeRepr(a.Sizes()))
		}
		for j, got := range a.Sizes() {
			sym := ep.symAt(i, j)
			if sym == "" {
				if got != val.Size(j) {
					return fmt.Errorf("Expected input at %s.shape[%d] to be equal to %d, but got %d", key, j, val.Size(j), got)
				}
				continue
			}
			if prev, ok := bound[sym]; ok && prev != got {
				return fmt.Errorf("Expected input at %s.shape[%d] to be equal to %d, but got %d", key, j, prev, got)
			}
			bound[sym] = got
			r, ok := ep.RangeConstraints[sym]
			if !ok {
				continue
			}
			if r.Min > 2 && got < r.Min {
				return fmt.Errorf("Expected input at %s.shape[%d] to be >= %d, but got %d", key, j, r.Min, got)
			}
			if r.Max < math.MaxInt && got > r.Max {
				return fmt.Errorf("Expected input at %s.shape[%d] to be <= %d, but got %d", key, j, r.Max, got)
			}
		}
	}
	return nil
}

// describeArg names what a user input is, in an error.
func describeArg(a any) string {
	switch x := a.(type) {
	case nil:
		return "None"
	case *tensor.Tensor:
		if x == nil {
			return "None"
		}
		return "a tensor"
	case tensor.ScriptObject:
		return "a ScriptObject of class " + x.QualifiedClassName()
	}
	return fmt.Sprintf("a %T", a)
}

// sizeRepr prints sizes as torch.Size does.
func sizeRepr(s []int) string {
	parts := make([]string, len(s))
	for i, n := range s {
		parts[i] = strconv.Itoa(n)
	}
	return "torch.Size([" + strings.Join(parts, ", ") + "])"
}

// sizeRepr of user input i's exported shape, dynamic sizes by symbol.
func (ep *ExportedProgram) sizeRepr(i int, s []int) string {
	parts := make([]string, len(s))
	for j, n := range s {
		if sym := ep.symAt(i, j); sym != "" {
			parts[j] = sym
		} else {
			parts[j] = strconv.Itoa(n)
		}
	}
	return "torch.Size([" + strings.Join(parts, ", ") + "])"
}

// Module is an exported program made callable again (ep.module()): an
// nn.Module holding the program's parameters and buffers under their
// dotted names, whose Forward runs the graph with the state put back in
// place of the lifted inputs and applies the buffer mutations to the
// buffers. It runs on the device of its inputs and state: To moves the
// parameters, buffers and constants (in place, so the program's and the
// original module's tensors move too, as in PyTorch).
type Module struct {
	nn.Base
	ep     *ExportedProgram
	inputs []*tensor.Tensor      // the lifted state, by placeholder, nil for user inputs
	objs   []tensor.ScriptObject // the lifted custom objects, by placeholder
}

// container is a sub-module of Module holding state only.
type container struct{ nn.Base }

// Module returns the program as a callable module.
func (ep *ExportedProgram) Module() *Module {
	m := &Module{ep: ep}
	m.SetName("GraphModule")
	children := map[string]*nn.Base{"": &m.Base}
	var owner func(prefix string) *nn.Base
	owner = func(prefix string) *nn.Base {
		if b, ok := children[prefix]; ok {
			return b
		}
		parent, leaf := "", prefix
		if i := strings.LastIndexByte(prefix, '.'); i >= 0 {
			parent, leaf = prefix[:i], prefix[i+1:]
		}
		c := &container{}
		c.SetName("Module")
		owner(parent).RegisterModule(leaf, c)
		children[prefix] = &c.Base
		return &c.Base
	}
	split := func(fqn string) (string, string) {
		if i := strings.LastIndexByte(fqn, '.'); i >= 0 {
			return fqn[:i], fqn[i+1:]
		}
		return "", fqn
	}
	for _, s := range ep.GraphSignature.InputSpecs {
		var t *tensor.Tensor
		switch s.Kind {
		case Parameter:
			t = ep.StateDict[s.Target]
			if t != nil {
				p, leaf := split(s.Target)
				owner(p).RegisterParameter(leaf, t)
			}
		case Buffer:
			if s.Persistent {
				t = ep.StateDict[s.Target]
			} else {
				t = ep.Constants[s.Target]
			}
			if t != nil {
				p, leaf := split(s.Target)
				owner(p).RegisterBuffer(leaf, t, s.Persistent)
			}
		case ConstantTensor:
			t = ep.Constants[s.Target]
		}
		m.inputs = append(m.inputs, t)
		var obj tensor.ScriptObject
		if s.Kind == CustomObj {
			obj = ep.CustomObjs[s.Target]
		}
		m.objs = append(m.objs, obj)
	}
	return m
}

// Program returns the exported program the module runs.
func (m *Module) Program() *ExportedProgram { return m.ep }

// To moves the parameters, buffers and lifted constants to dev, in place.
func (m *Module) To(dev tensor.Device) {
	m.Base.To(dev)
	for i, s := range m.ep.GraphSignature.InputSpecs {
		if t := m.inputs[i]; s.Kind == ConstantTensor && t != nil && t.Device() != dev {
			t.SetData(t.Detach().ToDevice(dev))
		}
	}
}

// Forward checks args against the program's input shapes (see
// CheckInputs), runs the graph with an fx.Interpreter on the state and
// args, copies the new values of mutated buffers into the buffers (and of
// mutated user inputs into args), and returns the user outputs. A program
// that returns a script object runs with ForwardArgs.
func (m *Module) Forward(args ...*tensor.Tensor) ([]*tensor.Tensor, error) {
	in := make([]any, len(args))
	for i, a := range args {
		in[i] = a
	}
	res, err := m.ForwardArgs(in...)
	if err != nil {
		return nil, err
	}
	out := make([]*tensor.Tensor, len(res))
	for i, r := range res {
		switch x := r.(type) {
		case *tensor.Tensor:
			out[i] = x
		case nil:
		default:
			return nil, fmt.Errorf("export: user output %d is a %T; run the program with ForwardArgs", i, r)
		}
	}
	return out, nil
}

// ForwardArgs is Forward over user inputs that may include script objects
// (ep.module()(tq, x)): an object input is the real object the graph's
// method calls and custom ops act on, in program order; the program's
// lifted custom objects are the module's; each effect token input is a
// fresh token and the output tokens are dropped. The user outputs are
// tensors and objects.
func (m *Module) ForwardArgs(args ...any) ([]any, error) {
	outs, err := m.run(args)
	if err != nil {
		return nil, err
	}
	var user []any
	for i, s := range m.ep.GraphSignature.OutputSpecs {
		if s.Kind != UserOutput && s.Kind != LossOutput {
			continue
		}
		if o, isObj := outs[i].(tensor.ScriptObject); isObj {
			user = append(user, o)
			continue
		}
		v, _ := outs[i].(*tensor.Tensor)
		user = append(user, v)
	}
	return user, nil
}

// run checks args, runs the graph on the state and args, applies the
// buffer and user input mutations, and returns every output of the graph.
func (m *Module) run(args []any) (fx.Tuple, error) {
	ep := m.ep
	if err := ep.CheckInputsArgs(args); err != nil {
		return nil, err
	}
	in := make([]any, len(m.inputs))
	userPos := map[string]int{}
	k := 0
	for i, s := range ep.GraphSignature.InputSpecs {
		switch s.Kind {
		case UserInput:
			in[i] = args[k]
			userPos[argName(s.Arg)] = k
			k++
		case Parameter, Buffer, ConstantTensor:
			if m.inputs[i] == nil {
				return nil, fmt.Errorf("export: the program has no tensor for %s %s", s.Kind, s.Target)
			}
			in[i] = m.inputs[i]
		case CustomObj:
			if m.objs[i] == nil {
				return nil, fmt.Errorf("export: the program has no object for %s %s", s.Kind, s.Target)
			}
			in[i] = m.objs[i]
		case Token:
			in[i] = tensor.Empty(tensor.Float32, 0)
		default:
			return nil, fmt.Errorf("export: running a program with a %s input is not supported", s.Kind)
		}
	}
	res, err := fx.NewInterpreter(ep.GraphModule).Run(in...)
	if err != nil {
		return nil, err
	}
	outs, ok := res.(fx.Tuple)
	if !ok {
		if l, isList := res.([]any); isList {
			outs = l
		} else {
			outs = fx.Tuple{res}
		}
	}
	if len(outs) != len(ep.GraphSignature.OutputSpecs) {
		return nil, fmt.Errorf("export: the graph returned %d values for %d outputs", len(outs), len(ep.GraphSignature.OutputSpecs))
	}
	bufs := map[string]*tensor.Tensor{}
	for i, s := range ep.GraphSignature.InputSpecs {
		if s.Kind == Buffer {
			bufs[s.Target] = m.inputs[i]
		}
	}
	err = tensor.Try(func() {
		for i, s := range ep.GraphSignature.OutputSpecs {
			v, _ := outs[i].(*tensor.Tensor)
			switch s.Kind {
			case BufferMutation:
				if b := bufs[s.Target]; b != nil && v != nil {
					autograd.NoGrad(func() { b.Copy_(v) })
				}
			case UserInputMutation:
				if p, ok := userPos[s.Target]; ok && v != nil {
					if dst, isT := args[p].(*tensor.Tensor); isT {
						autograd.NoGrad(func() { dst.Copy_(v) })
					}
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return outs, nil
}

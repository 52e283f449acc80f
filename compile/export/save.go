package export

import (
	"archive/zip"
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/compile/hop"
	"github.com/goaten/goaten/safetensors"
	"github.com/goaten/goaten/tensor"
	"github.com/goaten/goaten/torchbind"
)

// The archive is a zip file laid out as PyTorch's PT2 archive:
//
//	archive/archive_format                    "goaten-export"
//	archive/archive_version                   "1"
//	archive/models/model.json                 the program (graph, signature, ranges), deflated
//	archive/data/weights/model.safetensors    parameters and persistent buffers, stored
//	archive/data/constants/model.safetensors  constants and non-persistent buffers, stored
//	archive/data/custom_objs/model.safetensors the pickled state of the lifted custom objects, stored
//
// Tensors are safetensors (little-endian, contiguous) keyed by their fully
// qualified names. Files that hold tensor data are stored uncompressed, so
// loading never holds more than the archive's size of them. A custom
// (TorchBind) object is saved as its pickle state (__getstate__: named
// tensors), each tensor keyed "<object name>/<state name>"; Load rebuilds
// the object with its class's __setstate__. The file is absent when the
// program lifts no object.
const (
	archiveFormat  = "goaten-export"
	archiveVersion = "1"

	formatPath    = "archive/archive_format"
	versionPath   = "archive/archive_version"
	modelPath     = "archive/models/model.json"
	weightsPath   = "archive/data/weights/model.safetensors"
	constantsPath = "archive/data/constants/model.safetensors"
	objectsPath   = "archive/data/custom_objs/model.safetensors"
)

// Metadata keys goaten adds to the schema.
const (
	metaNodeName = "goaten_name"
	metaDimNames = "goaten_dim_names"
)

// archiveTime is the modification time of every entry, so that saving the
// same program twice gives the same bytes.
var archiveTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// Save writes the program as one self-contained zip archive: the graph and
// signature as JSON following PyTorch's export schema, the weights and
// constants as safetensors. Loading it needs goaten and the ops and devices
// the program names.
func (ep *ExportedProgram) Save(w io.Writer) error {
	model, err := ep.marshalJSON()
	if err != nil {
		return err
	}
	weights, err := safetensors.Marshal(ep.StateDict, nil)
	if err != nil {
		return fmt.Errorf("export: Save: the weights: %w", err)
	}
	consts, err := safetensors.Marshal(ep.Constants, nil)
	if err != nil {
		return fmt.Errorf("export: Save: the constants: %w", err)
	}
	objs, err := ep.objectStates()
	if err != nil {
		return err
	}
	zw := zip.NewWriter(w)
	entries := []struct {
		name    string
		method  uint16
		content []byte
	}{
		{formatPath, zip.Store, []byte(archiveFormat)},
		{versionPath, zip.Store, []byte(archiveVersion)},
		{modelPath, zip.Deflate, model},
		{weightsPath, zip.Store, weights},
		{constantsPath, zip.Store, consts},
	}
	if objs != nil {
		entries = append(entries, struct {
			name    string
			method  uint16
			content []byte
		}{objectsPath, zip.Store, objs})
	}
	for _, e := range entries {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: e.method, Modified: archiveTime})
		if err != nil {
			return fmt.Errorf("export: Save: %w", err)
		}
		if _, err := f.Write(e.content); err != nil {
			return fmt.Errorf("export: Save: %w", err)
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("export: Save: %w", err)
	}
	return nil
}

// objectStates is the safetensors file of the lifted custom objects'
// pickle states, or nil when the program lifts none.
func (ep *ExportedProgram) objectStates() ([]byte, error) {
	state := map[string]*tensor.Tensor{}
	lifted := false
	for _, sp := range ep.GraphSignature.InputSpecs {
		if sp.Kind != CustomObj {
			continue
		}
		lifted = true
		obj, ok := ep.CustomObjs[sp.Target].(*torchbind.Object)
		if !ok {
			return nil, fmt.Errorf("export: Save: custom object %s is a %T, not a torchbind object", sp.Target, ep.CustomObjs[sp.Target])
		}
		if !obj.Class().HasMethod("__getstate__") {
			return nil, fmt.Errorf("export: Save: custom object %s of class %s has no pickle state: register its __getstate__ and __setstate__ with Pickle", sp.Target, obj.QualifiedClassName())
		}
		var st map[string]*tensor.Tensor
		if err := tensor.Try(func() { st = obj.GetState() }); err != nil {
			return nil, fmt.Errorf("export: Save: custom object %s: __getstate__: %w", sp.Target, err)
		}
		for k, t := range st {
			if t == nil {
				return nil, fmt.Errorf("export: Save: custom object %s: __getstate__ gives no tensor for %q", sp.Target, k)
			}
			state[sp.Target+"/"+k] = t
		}
	}
	if !lifted {
		return nil, nil
	}
	b, err := safetensors.Marshal(state, nil)
	if err != nil {
		return nil, fmt.Errorf("export: Save: the custom objects: %w", err)
	}
	return b, nil
}

// Save writes ep to a new file at path (torch.export.save); see
// ExportedProgram.Save.
func Save(ep *ExportedProgram, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = ep.Save(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// marshalJSON returns the program's JSON.
func (ep *ExportedProgram) marshalJSON() ([]byte, error) {
	p, err := ep.toSchema()
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("export: Save: %w", err)
	}
	return b, nil
}

// saver builds the schema form of a graph: the top-level one, or a
// higher-order op's sub-program (depth > 0), each with its own tensor
// values.
type saver struct {
	ep     *ExportedProgram
	values map[string]jTensorMeta
	syms   map[string]json.RawMessage // sym_int_values
	exprs  map[*fx.Node]string        // a symbolic int's expression: "2*s0"
	userOf map[*fx.Node]int           // user input placeholders -> their index
	gm     *fx.GraphModule
	depth  int
}

// maxGraphDepth is how deeply higher-order ops' sub-programs may nest (a
// cond in a while_loop's body is depth 2), when saving and loading.
const maxGraphDepth = 16

func (ep *ExportedProgram) toSchema() (*jProgram, error) {
	s := &saver{ep: ep, gm: ep.GraphModule}
	user := 0
	userOf := map[*fx.Node]int{}
	s.userOf = userOf
	for i, sp := range ep.GraphSignature.InputSpecs {
		if sp.Kind == UserInput {
			userOf[ep.GraphModule.Graph.Placeholders()[i]] = user
			user++
		}
	}
	jg, err := s.graph(userOf)
	if err != nil {
		return nil, err
	}
	return s.program(jg)
}

// graph writes s.gm's graph. userOf gives the user input index of the
// placeholders that are user inputs.
func (s *saver) graph(userOf map[*fx.Node]int) (*jGraph, error) {
	s.values = map[string]jTensorMeta{}
	s.syms = map[string]json.RawMessage{}
	if s.exprs == nil {
		s.exprs = map[*fx.Node]string{}
	}
	jg := &jGraph{
		Inputs: []jArg{}, Outputs: []jArg{}, Nodes: []jNode{}, TensorValues: s.values,
		SymIntValues: s.syms, SymBoolValues: map[string]json.RawMessage{},
		CustomObjValues: map[string]json.RawMessage{}, SymFloatValues: map[string]json.RawMessage{},
	}
	for _, n := range s.gm.Graph.Nodes() {
		switch n.Op {
		case fx.OpPlaceholder:
			if e, ok := n.Meta[compile.MetaSymExpr].(string); ok && isSymInt(n) {
				return nil, fmt.Errorf("export: Save: input %s is a symbolic int (Sym(%s), a while_loop's int carry); saving symbolic int inputs is not supported", n.Name, e)
			}
			if o, isObj := n.Meta[fx.MetaVal].(tensor.ScriptObject); isObj {
				jg.Inputs = append(jg.Inputs, jArg{AsCustomObj: &jCustomObjArg{Name: n.Name, ClassFQN: o.QualifiedClassName()}})
				continue
			}
			jg.Inputs = append(jg.Inputs, jArg{AsTensor: &jName{n.Name}})
			ui, isUser := userOf[n]
			if !isUser {
				ui = -1
			}
			if err := s.value(n.Name, n.Meta[fx.MetaVal], ui); err != nil {
				return nil, err
			}
		case fx.OpGetAttr:
			v, _ := s.gm.Attr(n.Target.(string))
			if _, isGraph := v.(*fx.GraphModule); !isGraph {
				return nil, fmt.Errorf("export: Save: node %s reads attribute %s; an export graph has its state lifted to inputs", n.Name, n.Target)
			}
			for _, u := range n.Users() {
				if _, isHOP := u.Target.(*hop.Op); !isHOP {
					return nil, fmt.Errorf("export: Save: node %s uses sub-program %s; only higher-order ops can", u.Name, n.Target)
				}
			}
			// written inside the higher-order op's node that reads it
		case fx.OpCallFunction:
			if n.Target == fx.GetItem {
				if err := checkGetItem(n); err != nil {
					return nil, err
				}
				continue // written as an output of the node it reads
			}
			var jn jNode
			var err error
			if h, isHOP := n.Target.(*hop.Op); isHOP {
				jn, err = s.hopNode(n, h)
			} else if n.Target == hop.CallTorchbindOp {
				jn, err = s.torchbindNode(n)
			} else if op, isOp := n.Target.(*fx.Operator); isOp {
				jn, err = s.symOp(n, op)
			} else {
				jn, err = s.node(n)
			}
			if err != nil {
				return nil, err
			}
			jg.Nodes = append(jg.Nodes, jn)
		case fx.OpOutput:
			if s.depth > 0 && len(n.Args()) > 0 {
				if o, single := n.Args()[0].(*fx.Node); single {
					jg.IsSingleTensorReturn = true
					jg.Outputs = append(jg.Outputs, jArg{AsTensor: &jName{o.Name}})
					continue
				}
			}
			for _, o := range flatOutputs(n) {
				if o == nil {
					jg.Outputs = append(jg.Outputs, jArg{AsNone: boolPtr(true)})
				} else if obj, isObj := o.Meta[fx.MetaVal].(tensor.ScriptObject); isObj {
					jg.Outputs = append(jg.Outputs, jArg{AsCustomObj: &jCustomObjArg{Name: o.Name, ClassFQN: obj.QualifiedClassName()}})
				} else {
					jg.Outputs = append(jg.Outputs, jArg{AsTensor: &jName{o.Name}})
				}
			}
		default:
			return nil, fmt.Errorf("export: Save: node %s is a %s node, which cannot be saved", n.Name, n.Op)
		}
	}
	return jg, nil
}

// program wraps the top-level graph into the program with its signature.
func (s *saver) program(jg *jGraph) (*jProgram, error) {
	ep := s.ep
	sig, err := s.signature()
	if err != nil {
		return nil, err
	}
	meta := map[string]string{}
	if len(ep.dimNames) > 0 {
		b, _ := json.Marshal(ep.dimNames)
		meta[metaDimNames] = string(b)
	}
	ranges := map[string]jRange{}
	for sym, r := range ep.RangeConstraints {
		jr := jRange{MinVal: i64(r.Min)}
		if r.Max != math.MaxInt {
			jr.MaxVal = i64(r.Max)
		}
		ranges[sym] = jr
	}
	return &jProgram{
		GraphModule: jGraphModule{
			Graph: *jg, Signature: sig, ModuleCallGraph: []json.RawMessage{}, Metadata: meta,
		},
		OpsetVersion:     map[string]int{},
		RangeConstraints: ranges,
		SchemaVersion:    jSchemaVersion{schemaMajor, schemaMinor},
		Verifiers:        []string{},
		TorchVersion:     "goaten",
	}, nil
}

// checkGetItem accepts getitem nodes that read an element of an op's
// result.
func checkGetItem(n *fx.Node) error {
	a := n.Args()
	if len(a) != 2 {
		return fmt.Errorf("export: Save: getitem node %s has %d arguments", n.Name, len(a))
	}
	src, ok := a[0].(*fx.Node)
	if !ok || src.OpTarget() == nil && !isHOPCall(src) {
		return fmt.Errorf("export: Save: getitem node %s does not read the result of an op call", n.Name)
	}
	if _, ok := a[1].(int); !ok {
		return fmt.Errorf("export: Save: getitem node %s has index %v", n.Name, a[1])
	}
	return nil
}

// value records the metadata of the tensor named name. userIdx >= 0 marks
// user input userIdx, whose dynamic sizes are written as symbols.
func (s *saver) value(name string, v any, userIdx int) error {
	t, ok := v.(*tensor.Tensor)
	if !ok || t == nil {
		return fmt.Errorf("export: Save: value %s is a %T, not a tensor (its node has no example value)", name, v)
	}
	code, ok := scalarTypes[t.DType()]
	if !ok {
		return fmt.Errorf("export: Save: value %s has dtype %s", name, t.DType())
	}
	m := jTensorMeta{
		DType: code, RequiresGrad: t.RequiresGrad(), Device: jDevice{Type: t.Device().String()},
		StorageOffset: symInt(t.StorageOffset()), Layout: layoutStrided,
		Sizes: make([]jSymInt, t.Dim()), Strides: make([]jSymInt, t.Dim()),
	}
	for j, size := range t.Sizes() {
		m.Sizes[j] = symInt(size)
		if sym, ok := compile.UnbackedName(size); ok {
			// A data-dependent size: its symbol, without a hint.
			m.Sizes[j] = jSymInt{AsExpr: &jSymExpr{ExprStr: sym}}
		}
		if sym := s.ep.symAt(userIdx, j); sym != "" && userIdx >= 0 {
			m.Sizes[j] = jSymInt{AsExpr: &jSymExpr{ExprStr: sym, Hint: &jSymExprHint{AsInt: i64(size)}}}
		}
		m.Strides[j] = symInt(t.Stride(j))
	}
	s.values[name] = m
	return nil
}

// nodeValue records the metadata of the tensor a node computes, its sizes
// that depend on the dynamic dims as expressions (compile.MetaSymShape)
// with their sizes at export as hints, as PyTorch writes them. Strides
// are written as their values at export.
func (s *saver) nodeValue(n *fx.Node) error {
	if err := s.value(n.Name, n.Meta[fx.MetaVal], -1); err != nil {
		return err
	}
	shape, _ := n.Meta[compile.MetaSymShape].([]string)
	m := s.values[n.Name]
	for j, e := range shape {
		if e != "" && j < len(m.Sizes) && m.Sizes[j].AsInt != nil {
			m.Sizes[j] = jSymInt{AsExpr: &jSymExpr{ExprStr: e, Hint: &jSymExprHint{AsInt: m.Sizes[j].AsInt}}}
		}
	}
	s.values[n.Name] = m
	return nil
}

// node writes a call of an op: its target, its arguments by schema name,
// its outputs by the names of the values that hold them.
func (s *saver) node(n *fx.Node) (jNode, error) {
	op := n.OpTarget()
	if op == nil {
		return jNode{}, fmt.Errorf("export: Save: node %s calls %v; only registered ops can be saved", n.Name, fx.Repr(n.Target))
	}
	sc := op.Schema
	jn := jNode{Target: fx.OpQualifiedName(op), Inputs: []jNamedArg{}, Outputs: []jArg{}, Metadata: map[string]string{}}
	if len(n.Args()) > len(sc.Args) {
		return jNode{}, fmt.Errorf("export: Save: node %s passes %d arguments to %s", n.Name, len(n.Args()), op.Name)
	}
	for i, a := range n.Args() {
		ja, err := s.arg(n, a, sc.Args[i].Type)
		if err != nil {
			return jNode{}, err
		}
		k := argPositional
		jn.Inputs = append(jn.Inputs, jNamedArg{Name: sc.Args[i].Name, Arg: ja, Kind: &k})
	}
	for _, kw := range n.Kwargs() {
		i := sc.ArgIndex(kw.Name)
		if i < 0 {
			return jNode{}, fmt.Errorf("export: Save: node %s passes unknown keyword %s to %s", n.Name, kw.Name, op.Name)
		}
		ja, err := s.arg(n, kw.Value, sc.Args[i].Type)
		if err != nil {
			return jNode{}, err
		}
		k := argKeyword
		jn.Inputs = append(jn.Inputs, jNamedArg{Name: kw.Name, Arg: ja, Kind: &k})
	}
	rets := sc.Returns
	switch {
	case len(rets) == 1 && rets[0].Type.Base().Kind == tensor.TTensor:
		jn.Outputs = append(jn.Outputs, jArg{AsTensor: &jName{n.Name}})
		return jn, s.nodeValue(n)
	case len(rets) == 0:
		jn.Metadata[metaNodeName] = n.Name
		return jn, nil
	case len(rets) == 1 && rets[0].Type.Kind == tensor.TInt:
		// sym_size.int: a symbolic int.
		jn.Outputs = append(jn.Outputs, jArg{AsSymInt: &jSymIntArg{AsName: &n.Name}})
		return jn, s.symValue(n)
	}
	// Tuple or list results: the getitem nodes that read them.
	items := map[int]*fx.Node{}
	count := 0
	if l, ok := n.Meta[fx.MetaVal].([]*tensor.Tensor); ok {
		count = len(l)
	}
	for _, u := range n.Users() {
		if u.Target != fx.GetItem {
			return jn, fmt.Errorf("export: Save: node %s uses the whole result of %s; only its elements (getitem) can be saved", u.Name, n.Name)
		}
		idx, _ := u.Args()[1].(int)
		if idx < 0 || items[idx] != nil {
			return jn, fmt.Errorf("export: Save: getitem node %s reads element %d of %s", u.Name, idx, n.Name)
		}
		items[idx] = u
		count = max(count, idx+1)
	}
	list := len(rets) == 1 && rets[0].Type.Kind == tensor.TList && rets[0].Type.Elem.Base().Kind == tensor.TTensor
	if !list {
		for _, r := range rets {
			if r.Type.Base().Kind != tensor.TTensor {
				return jn, fmt.Errorf("export: Save: node %s: %s returns a %s, which cannot be saved", n.Name, op.Name, r.Type)
			}
		}
		count = len(rets)
	}
	names := make([]jName, count)
	for i := range count {
		if u := items[i]; u != nil {
			names[i] = jName{u.Name}
			if err := s.nodeValue(u); err != nil {
				return jn, err
			}
		}
	}
	if list {
		jn.Outputs = append(jn.Outputs, jArg{AsTensors: &names})
	} else {
		for _, nm := range names {
			if nm.Name == "" {
				jn.Outputs = append(jn.Outputs, jArg{AsNone: boolPtr(true)})
			} else {
				jn.Outputs = append(jn.Outputs, jArg{AsTensor: &jName{nm.Name}})
			}
		}
	}
	jn.Metadata[metaNodeName] = n.Name
	return jn, nil
}

func isHOPCall(n *fx.Node) bool {
	_, ok := n.Target.(*hop.Op)
	return n.Op == fx.OpCallFunction && ok
}

// hopNode writes a call of a higher-order op as PyTorch's serializer does
// (serialize_hoo_inputs): positional arguments without names, each
// sub-program an as_graph argument holding its whole graph, tensor lists
// as_tensors; its results are the getitem nodes that read them
// (as_tensors), its name in metadata.
func (s *saver) hopNode(n *fx.Node, h *hop.Op) (jNode, error) {
	if s.depth >= maxGraphDepth {
		return jNode{}, fmt.Errorf("export: Save: node %s: higher-order ops nest more than %d deep", n.Name, maxGraphDepth)
	}
	jn := jNode{Target: h.QualifiedName(), Inputs: []jNamedArg{}, Outputs: []jArg{}, Metadata: map[string]string{metaNodeName: n.Name}}
	tensorName := func(v any) (jName, error) {
		x, ok := v.(*fx.Node)
		if !ok || x.Op == fx.OpGetAttr {
			return jName{}, fmt.Errorf("export: Save: node %s passes %s in a list to %s; only tensors can be saved there", n.Name, fx.Repr(v), h.QualifiedName())
		}
		return jName{x.Name}, nil
	}
	convert := func(a any) (jArg, error) {
		var ja jArg
		switch x := a.(type) {
		case *fx.Node:
			if x.Op != fx.OpGetAttr {
				var err error
				if ja, err = s.arg(n, x, nil); err != nil {
					return jArg{}, err
				}
				break
			}
			name := x.Target.(string)
			v, _ := s.gm.Attr(name)
			sub, ok := v.(*fx.GraphModule)
			if !ok {
				return jArg{}, fmt.Errorf("export: Save: node %s passes attribute %s (%T) to %s", n.Name, name, v, h.QualifiedName())
			}
			ss := &saver{ep: s.ep, gm: sub, depth: s.depth + 1}
			jg, err := ss.graph(nil)
			if err != nil {
				return jArg{}, fmt.Errorf("%w (in sub-program %s of node %s)", err, name, n.Name)
			}
			ja = jArg{AsGraph: &jGraphArg{Name: name, Graph: jg}}
		case *tensor.Op:
			// auto_functionalized's op: as_operator, its qualified name.
			name := fx.OpQualifiedName(x)
			ja = jArg{AsOperator: &name}
		case fx.Tuple, []any:
			xs, _ := x.([]any)
			if t, isTuple := x.(fx.Tuple); isTuple {
				xs = t
			}
			names := make([]jName, len(xs))
			for i, e := range xs {
				var err error
				if names[i], err = tensorName(e); err != nil {
					return jArg{}, err
				}
			}
			ja = jArg{AsTensors: &names}
		default:
			var err error
			if ja, err = s.arg(n, a, nil); err != nil {
				return jArg{}, err
			}
		}
		return ja, nil
	}
	// A list mixing tensors with ints (a while_loop's int carries) has no
	// form in the schema: PyTorch's serialize_input refuses it.
	for _, a := range n.Args() {
		if err := mixedList(n, a); err != nil {
			return jNode{}, err
		}
	}
	for _, a := range n.Args() {
		ja, err := convert(a)
		if err != nil {
			return jNode{}, err
		}
		k := argPositional
		jn.Inputs = append(jn.Inputs, jNamedArg{Name: "", Arg: ja, Kind: &k})
	}
	// Keyword arguments (tag_activation_checkpoint's use_reentrant,
	// auto_functionalized's op arguments) follow, by name, as
	// serialize_hoo_inputs writes them.
	for _, kw := range n.Kwargs() {
		if x, ok := kw.Value.(*fx.Node); ok && x.Op == fx.OpGetAttr {
			return jNode{}, fmt.Errorf("export: Save: node %s passes a sub-program as keyword argument %s to %s", n.Name, kw.Name, h.QualifiedName())
		}
		ja, err := convert(kw.Value)
		if err != nil {
			return jNode{}, err
		}
		k := argKeyword
		jn.Inputs = append(jn.Inputs, jNamedArg{Name: kw.Name, Arg: ja, Kind: &k})
	}
	vals, ok := n.Meta[fx.MetaVal].([]*tensor.Tensor)
	if !ok {
		return jNode{}, fmt.Errorf("export: Save: node %s: the result of %s is a %T, not a list of tensors", n.Name, h.QualifiedName(), n.Meta[fx.MetaVal])
	}
	names := make([]jName, len(vals))
	for _, u := range n.Users() {
		idx, isInt := 0, false
		if u.Target == fx.GetItem && len(u.Args()) == 2 {
			idx, isInt = u.Args()[1].(int)
		}
		if !isInt || idx < 0 || idx >= len(vals) || names[idx].Name != "" {
			return jNode{}, fmt.Errorf("export: Save: node %s uses the result of %s other than by reading its elements once each (getitem)", u.Name, n.Name)
		}
		names[idx] = jName{u.Name}
		if err := s.nodeValue(u); err != nil {
			return jNode{}, err
		}
	}
	jn.Outputs = append(jn.Outputs, jArg{AsTensors: &names})
	return jn, nil
}

// mixedList refuses a list argument of a higher-order op's node n that
// holds something other than tensors, in PyTorch's words.
func mixedList(n *fx.Node, a any) error {
	var xs []any
	switch x := a.(type) {
	case fx.Tuple:
		xs = x
	case []any:
		xs = x
	default:
		return nil
	}
	mixed := false
	types := make([]string, len(xs))
	for i, e := range xs {
		types[i] = "<class 'torch.fx.node.Node'>"
		switch x := e.(type) {
		case *fx.Node:
			mixed = mixed || isSymInt(x)
		case int:
			types[i], mixed = "<class 'int'>", true
		case bool:
			types[i], mixed = "<class 'bool'>", true
		case float64:
			types[i], mixed = "<class 'float'>", true
		}
	}
	if !mixed {
		return nil
	}
	return fmt.Errorf("export: Save: node %s: Unsupported list/tuple argument type: [%s]", n.Name, strings.Join(types, ", "))
}

// torchbindNode writes a plain call_torchbind(obj, 'method', *args) node
// as a higher-order op's: positional arguments without names, its result
// an as_tensor output named after the node (none for a method returning
// no tensor), its name in metadata.
func (s *saver) torchbindNode(n *fx.Node) (jNode, error) {
	if len(n.Kwargs()) > 0 {
		return jNode{}, fmt.Errorf("export: Save: node %s passes keyword arguments to call_torchbind", n.Name)
	}
	jn := jNode{Target: hop.CallTorchbindOp.QualifiedName(), Inputs: []jNamedArg{}, Outputs: []jArg{}, Metadata: map[string]string{metaNodeName: n.Name}}
	for _, a := range n.Args() {
		ja, err := s.arg(n, a, nil)
		if err != nil {
			return jNode{}, err
		}
		k := argPositional
		jn.Inputs = append(jn.Inputs, jNamedArg{Name: "", Arg: ja, Kind: &k})
	}
	if t, ok := n.Meta[fx.MetaVal].(*tensor.Tensor); ok && t != nil {
		jn.Outputs = append(jn.Outputs, jArg{AsTensor: &jName{n.Name}})
		return jn, s.value(n.Name, t, -1)
	}
	if _, ok := n.Meta[fx.MetaVal].(int); ok && n.NumUsers() > 0 {
		// A method's int result the graph reads at run time (size()).
		jn.Outputs = append(jn.Outputs, jArg{AsSymInt: &jSymIntArg{AsName: &n.Name}})
		return jn, s.symValue(n)
	}
	if n.NumUsers() > 0 {
		return jNode{}, fmt.Errorf("export: Save: node %s: call_torchbind's non-tensor result is used, which cannot be saved", n.Name)
	}
	return jn, nil
}

// arg writes one argument value of node n, whose schema type is t.
func (s *saver) arg(n *fx.Node, v any, t *tensor.Type) (jArg, error) {
	bad := func() (jArg, error) {
		return jArg{}, fmt.Errorf("export: Save: node %s has argument %s (%T) for a %s parameter, which cannot be saved", n.Name, fx.Repr(v), v, t)
	}
	switch x := v.(type) {
	case nil:
		return jArg{AsNone: boolPtr(true)}, nil
	case *fx.Node:
		if isSymInt(x) {
			return jArg{AsSymInt: &jSymIntArg{AsName: &x.Name}}, nil
		}
		if o, isObj := x.Meta[fx.MetaVal].(tensor.ScriptObject); isObj {
			return jArg{AsCustomObj: &jCustomObjArg{Name: x.Name, ClassFQN: o.QualifiedClassName()}}, nil
		}
		return jArg{AsTensor: &jName{x.Name}}, nil
	case *tensor.Op:
		name := fx.OpQualifiedName(x)
		return jArg{AsOperator: &name}, nil
	case bool:
		return jArg{AsBool: &x}, nil
	case int, int8, int16, int32, int64, uint8, uint16, uint32:
		k := toInt64(x)
		return jArg{AsInt: &k}, nil
	case float64:
		f := jFloat(x)
		return jArg{AsFloat: &f}, nil
	case float32:
		f := jFloat(x)
		return jArg{AsFloat: &f}, nil
	case tensor.Scalar:
		switch {
		case x.IsBool():
			b := x.Bool()
			return jArg{AsBool: &b}, nil
		case x.IsFloat():
			f := jFloat(x.Float64())
			return jArg{AsFloat: &f}, nil
		}
		k := x.Int64()
		return jArg{AsInt: &k}, nil
	case string:
		return jArg{AsString: &x}, nil
	case tensor.DType:
		code, ok := scalarTypes[x]
		if !ok {
			return bad()
		}
		return jArg{AsScalarType: &code}, nil
	case tensor.MemoryFormat:
		code, ok := memoryFormats[x]
		if !ok {
			return bad()
		}
		return jArg{AsMemoryFormat: &code}, nil
	case tensor.Layout:
		code := layoutStrided
		return jArg{AsLayout: &code}, nil
	case tensor.Device:
		return jArg{AsDevice: &jDevice{Type: x.String()}}, nil
	case fx.Tuple:
		return s.list(n, []any(x), t, bad)
	case []any:
		return s.list(n, x, t, bad)
	}
	if x, ok := v.(fx.Target); ok && x == hop.CallTorchbindOp {
		name := x.QualifiedName()
		return jArg{AsOperator: &name}, nil
	}
	return bad()
}

// list writes a list argument, choosing the variant from the schema type
// (an empty list has no elements to tell).
func (s *saver) list(n *fx.Node, xs []any, t *tensor.Type, bad func() (jArg, error)) (jArg, error) {
	elem := t.Base()
	if elem.Kind == tensor.TList {
		elem = elem.Elem
	}
	switch {
	case elem.Kind == tensor.TOptional && elem.Elem.Kind == tensor.TTensor:
		out := make([]jOptTensor, len(xs))
		for i, x := range xs {
			switch y := x.(type) {
			case nil:
				out[i] = jOptTensor{AsNone: boolPtr(true)}
			case *fx.Node:
				out[i] = jOptTensor{AsTensor: &jName{y.Name}}
			default:
				return bad()
			}
		}
		return jArg{AsOptionalTensors: &out}, nil
	case elem.Kind == tensor.TTensor:
		out := make([]jName, len(xs))
		for i, x := range xs {
			y, ok := x.(*fx.Node)
			if !ok {
				return bad()
			}
			out[i] = jName{y.Name}
		}
		return jArg{AsTensors: &out}, nil
	case elem.Base().Kind == tensor.TInt && slices.ContainsFunc(xs, func(x any) bool { _, ok := x.(*fx.Node); return ok }):
		out := make([]jSymIntArg, len(xs))
		for i, x := range xs {
			switch y := x.(type) {
			case *fx.Node:
				if !isSymInt(y) {
					return bad()
				}
				out[i] = jSymIntArg{AsName: &y.Name}
			default:
				if !isInt(x) {
					return bad()
				}
				out[i] = jSymIntArg{AsInt: i64(int(toInt64(x)))}
			}
		}
		return jArg{AsSymInts: &out}, nil
	case elem.Base().Kind == tensor.TInt:
		out := make([]int64, len(xs))
		for i, x := range xs {
			if !isInt(x) {
				return bad()
			}
			out[i] = toInt64(x)
		}
		return jArg{AsInts: &out}, nil
	case elem.Base().Kind == tensor.TFloat || elem.Base().Kind == tensor.TScalar:
		out := make([]jFloat, len(xs))
		for i, x := range xs {
			switch y := x.(type) {
			case float64:
				out[i] = jFloat(y)
			case float32:
				out[i] = jFloat(y)
			default:
				if !isInt(x) {
					return bad()
				}
				out[i] = jFloat(toInt64(x))
			}
		}
		return jArg{AsFloats: &out}, nil
	case elem.Base().Kind == tensor.TBool:
		out := make([]bool, len(xs))
		for i, x := range xs {
			b, ok := x.(bool)
			if !ok {
				return bad()
			}
			out[i] = b
		}
		return jArg{AsBools: &out}, nil
	case elem.Base().Kind == tensor.TStr:
		out := make([]string, len(xs))
		for i, x := range xs {
			str, ok := x.(string)
			if !ok {
				return bad()
			}
			out[i] = str
		}
		return jArg{AsStrings: &out}, nil
	}
	return bad()
}

// symOps are the operators on symbolic ints a graph may hold, by the
// names PyTorch's serializer gives them.
var symOps = map[*fx.Operator]string{
	fx.Add: "_operator.add", fx.Sub: "_operator.sub", fx.Mul: "_operator.mul", fx.FloorDiv: "_operator.floordiv",
}

// isSymInt reports whether a node computes a symbolic int.
func isSymInt(n *fx.Node) bool {
	_, ok := n.Meta[fx.MetaVal].(int)
	return ok
}

// symOp writes an operator on symbolic ints (sym_size_int * 2) as
// PyTorch's serializer does: target _operator.mul, arguments a and b.
func (s *saver) symOp(n *fx.Node, op *fx.Operator) (jNode, error) {
	target, ok := symOps[op]
	if !ok || len(n.Args()) != 2 || len(n.Kwargs()) > 0 {
		return jNode{}, fmt.Errorf("export: Save: node %s calls %v; only registered ops and add, sub, mul, floordiv of sizes can be saved", n.Name, fx.Repr(n.Target))
	}
	jn := jNode{Target: target, Inputs: []jNamedArg{}, Outputs: []jArg{{AsSymInt: &jSymIntArg{AsName: &n.Name}}}, Metadata: map[string]string{}}
	for i, a := range n.Args() {
		var ja jArg
		switch x := a.(type) {
		case *fx.Node:
			if !isSymInt(x) {
				return jNode{}, fmt.Errorf("export: Save: node %s applies %s to %s, which is not a size", n.Name, op.TargetName(), x.Name)
			}
			ja.AsSymInt = &jSymIntArg{AsName: &x.Name}
		case int:
			ja.AsInt = i64(x)
		default:
			return jNode{}, fmt.Errorf("export: Save: node %s applies %s to %s", n.Name, op.TargetName(), fx.Repr(a))
		}
		k := argPositional
		jn.Inputs = append(jn.Inputs, jNamedArg{Name: []string{"a", "b"}[i], Arg: ja, Kind: &k})
	}
	return jn, s.symValue(n)
}

// symValue records the sym_int_values entry of a symbolic int node: its
// expression in the input symbols ("2*s0") with its value at export as the
// hint.
func (s *saver) symValue(n *fx.Node) error {
	v, ok := n.Meta[fx.MetaVal].(int)
	if !ok {
		return fmt.Errorf("export: Save: node %s has no int value", n.Name)
	}
	expr := func(a any) string {
		if x, ok := a.(*fx.Node); ok {
			return s.exprs[x]
		}
		return fmt.Sprint(a)
	}
	paren := func(e string) string {
		if strings.ContainsAny(e, "+-") && !strings.HasPrefix(e, "(") {
			return "(" + e + ")"
		}
		return e
	}
	var e string
	args := n.Args()
	switch n.Target {
	case fx.Add:
		e = expr(args[0]) + " + " + expr(args[1])
	case fx.Sub:
		e = expr(args[0]) + " - " + expr(args[1])
	case fx.Mul:
		a, b := paren(expr(args[0])), paren(expr(args[1]))
		if _, isNum := args[1].(int); isNum {
			a, b = b, a
		}
		e = a + "*" + b
	case fx.FloorDiv:
		e = "(" + paren(expr(args[0])) + "//" + paren(expr(args[1])) + ")"
	default: // sym_size.int(x, d)
		e = strconv.Itoa(v)
		if x, ok := args[0].(*fx.Node); ok && len(args) > 1 {
			if d, ok := args[1].(int); ok {
				if ui, isUser := s.userOf[x]; isUser {
					if t, ok := x.Meta[fx.MetaVal].(*tensor.Tensor); ok && d < 0 {
						d += t.Dim()
					}
					if sym := s.ep.symAt(ui, d); sym != "" {
						e = sym
					}
				}
			}
		}
	}
	s.exprs[n] = e
	b, err := json.Marshal(jSymInt{AsExpr: &jSymExpr{ExprStr: e, Hint: &jSymExprHint{AsInt: i64(v)}}})
	if err != nil {
		return err
	}
	s.syms[n.Name] = b
	return nil
}

func isInt(x any) bool {
	switch x.(type) {
	case int, int8, int16, int32, int64, uint8, uint16, uint32:
		return true
	}
	return false
}

func toInt64(x any) int64 {
	switch y := x.(type) {
	case int:
		return int64(y)
	case int8:
		return int64(y)
	case int16:
		return int64(y)
	case int32:
		return int64(y)
	case int64:
		return y
	case uint8:
		return int64(y)
	case uint16:
		return int64(y)
	case uint32:
		return int64(y)
	}
	return 0
}

// signature writes the input and output specs.
func (s *saver) signature() (jSignature, error) {
	sig := jSignature{InputSpecs: []jInputSpec{}, OutputSpecs: []jOutputSpec{}}
	for _, sp := range s.ep.GraphSignature.InputSpecs {
		name := jName{argName(sp.Arg)}
		var js jInputSpec
		switch sp.Kind {
		case UserInput:
			js.UserInput = &jUserInputSpec{Arg: jArg{AsTensor: &name}}
			if a, isObj := sp.Arg.(CustomObjArgument); isObj {
				js.UserInput.Arg = jArg{AsCustomObj: &jCustomObjArg{Name: a.Name, ClassFQN: a.ClassFQN}}
			}
		case Parameter:
			js.Parameter = &jParameterSpec{Arg: name, ParameterName: sp.Target}
		case Buffer:
			js.Buffer = &jBufferSpec{Arg: name, BufferName: sp.Target, Persistent: sp.Persistent}
		case ConstantTensor:
			js.TensorConstant = &jTensorConstantSpec{Arg: name, TensorConstantName: sp.Target}
		case CustomObj:
			a, _ := sp.Arg.(CustomObjArgument)
			js.CustomObj = &jCustomObjSpec{Arg: jCustomObjArg{Name: a.Name, ClassFQN: a.ClassFQN}, CustomObjName: sp.Target}
		case Token:
			js.Token = &jTokenSpec{Arg: name}
		default:
			return sig, fmt.Errorf("export: Save: %s inputs cannot be saved yet", sp.Kind)
		}
		sig.InputSpecs = append(sig.InputSpecs, js)
	}
	for _, sp := range s.ep.GraphSignature.OutputSpecs {
		name := jName{argName(sp.Arg)}
		var js jOutputSpec
		switch sp.Kind {
		case UserOutput:
			a := jArg{AsTensor: &name}
			if _, isConst := sp.Arg.(ConstantArgument); isConst {
				a = jArg{AsNone: boolPtr(true)}
			}
			if o, isObj := sp.Arg.(CustomObjArgument); isObj {
				a = jArg{AsCustomObj: &jCustomObjArg{Name: o.Name, ClassFQN: o.ClassFQN}}
			}
			js.UserOutput = &jUserOutputSpec{Arg: a}
		case LossOutput:
			js.LossOutput = &jArgSpec{Arg: name}
		case BufferMutation:
			js.BufferMutation = &jBufferMutationSpec{Arg: name, BufferName: sp.Target}
		case UserInputMutation:
			js.UserInputMutation = &jUserInputNameSpec{Arg: name, UserInputName: sp.Target}
		case OutputToken:
			js.Token = &jArgSpec{Arg: name}
		case GradientToParameter:
			js.GradientToParameter = &jGradParamSpec{Arg: name, ParameterName: sp.Target}
		case GradientToUserInput:
			js.GradientToUserInput = &jUserInputNameSpec{Arg: name, UserInputName: sp.Target}
		default:
			return sig, fmt.Errorf("export: Save: %s outputs cannot be saved yet", sp.Kind)
		}
		sig.OutputSpecs = append(sig.OutputSpecs, js)
	}
	return sig, nil
}

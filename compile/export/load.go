package export

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/compile/hop"
	"github.com/goaten/goaten/safetensors"
	"github.com/goaten/goaten/tensor"
	"github.com/goaten/goaten/torchbind"
)

// Limits on what Load accepts, checked before anything is allocated for it.
var (
	// maxModelBytes bounds the program's JSON.
	maxModelBytes int64 = 64 << 20
	// maxSmallBytes bounds the format and version files.
	maxSmallBytes int64 = 64
	// maxNodes bounds the number of nodes of a graph.
	maxNodes = 1 << 20
	// maxRank bounds the number of dimensions of a tensor.
	maxRank = 64
)

// LoadError is what Load returns for a malformed archive.
type LoadError struct{ Msg string }

func (e *LoadError) Error() string { return "export.Load: " + e.Msg }

func loadErrorf(format string, args ...any) error {
	return &LoadError{Msg: fmt.Sprintf(format, args...)}
}

// LoadFile loads the program saved at path (torch.export.load).
func LoadFile(path string) (*ExportedProgram, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return Load(f, st.Size())
}

// Load reads a program written by Save from the size bytes of r. It needs
// only goaten and the registered ops and devices the program names: an op
// that is not registered is an error in PyTorch's words ("We failed to
// resolve torch.ops.mylib.foo.default to an operator"). A malformed archive
// (truncated, of another version, with unknown fields or values, dangling or
// forward references between nodes, weights that do not match the graph's
// inputs, sizes past the limits) is an error, never a panic; sizes are
// checked before anything is allocated for them.
func Load(r io.ReaderAt, size int64) (ep *ExportedProgram, err error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, loadErrorf("not a readable zip archive: %v", err)
	}
	files := map[string]*zip.File{}
	for _, f := range zr.File {
		if files[f.Name] != nil {
			return nil, loadErrorf("the archive holds %s twice", f.Name)
		}
		files[f.Name] = f
	}
	read := func(name string, limit int64) ([]byte, error) {
		f := files[name]
		if f == nil {
			return nil, loadErrorf("the archive has no %s", name)
		}
		return readEntry(f, limit, size)
	}
	format, err := read(formatPath, maxSmallBytes)
	if err != nil {
		return nil, err
	}
	if string(format) != archiveFormat {
		return nil, loadErrorf("%s is %q, not %q", formatPath, clip(format), archiveFormat)
	}
	version, err := read(versionPath, maxSmallBytes)
	if err != nil {
		return nil, err
	}
	if string(version) != archiveVersion {
		return nil, loadErrorf("archive version %q is not supported (this goaten reads version %s)", clip(version), archiveVersion)
	}
	model, err := read(modelPath, maxModelBytes)
	if err != nil {
		return nil, err
	}
	// The tensor data is read after the graph, straight into the tensors
	// (readTensors); here its entries are only checked.
	for _, name := range []string{weightsPath, constantsPath} {
		if files[name] == nil {
			return nil, loadErrorf("the archive has no %s", name)
		}
		if err := checkEntry(files[name], size, size); err != nil {
			return nil, err
		}
	}
	var objs []byte
	if files[objectsPath] != nil {
		if objs, err = read(objectsPath, size); err != nil {
			return nil, err
		}
	}
	var p jProgram
	dec := json.NewDecoder(bytes.NewReader(model))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, loadErrorf("%s: %v", modelPath, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, loadErrorf("%s: data after the program", modelPath)
	}
	if p.SchemaVersion.Major != schemaMajor {
		return nil, loadErrorf("Serialized schema version SchemaVersion(major=%d, minor=%d) does not match our current schema version (%d, %d).",
			p.SchemaVersion.Major, p.SchemaVersion.Minor, schemaMajor, schemaMinor)
	}
	l := &loader{p: &p, byName: map[string]*fx.Node{}}
	var lerr error
	if perr := tensor.Try(func() { lerr = l.load() }); perr != nil {
		lerr = perr
	}
	if lerr != nil {
		var le *LoadError
		if errors.As(lerr, &le) {
			return nil, lerr
		}
		return nil, loadErrorf("%v", lerr)
	}
	wf, err := readTensors(files[weightsPath], size)
	if err != nil {
		return nil, err
	}
	cf, err := readTensors(files[constantsPath], size)
	if err != nil {
		return nil, err
	}
	if err := l.loadState(wf, cf); err != nil {
		return nil, err
	}
	if err := l.loadObjects(objs); err != nil {
		return nil, err
	}
	return l.ep, nil
}

// readTensors reads a safetensors entry of the archive, whose data goes
// from the archive straight into the tensors' storage (the one copy of the
// weights Load makes), then reads on to the entry's end, where the zip
// reader checks its CRC-32.
func readTensors(f *zip.File, archiveSize int64) (*safetensors.File, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, loadErrorf("%s: %v", f.Name, err)
	}
	defer rc.Close()
	tf, err := safetensors.ReadSize(rc, int64(f.UncompressedSize64))
	if err != nil {
		return nil, loadErrorf("%s: %v", f.Name, err)
	}
	var one [1]byte
	switch n, err := io.ReadFull(rc, one[:]); {
	case n > 0:
		return nil, loadErrorf("%s: data past the tensors", f.Name)
	case err != io.EOF:
		return nil, loadErrorf("%s: %v", f.Name, err)
	}
	return tf, nil
}

func clip(b []byte) string {
	if len(b) > 32 {
		return string(b[:32]) + "..."
	}
	return string(b)
}

// readEntry reads a whole entry of at most limit bytes. A stored entry
// cannot be larger than the archive; a compressed one is refused when its
// header claims more than limit, and reading stops past limit whatever the
// header says (the zip reader checks sizes and checksums at the end).
func readEntry(f *zip.File, limit, archiveSize int64) ([]byte, error) {
	if err := checkEntry(f, limit, archiveSize); err != nil {
		return nil, err
	}
	rc, err := f.Open()
	if err != nil {
		return nil, loadErrorf("%s: %v", f.Name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, loadErrorf("%s: %v", f.Name, err)
	}
	if int64(len(b)) > limit {
		return nil, loadErrorf("%s: more than the limit of %d bytes", f.Name, limit)
	}
	return b, nil
}

// checkEntry checks an entry's method and sizes before it is read (see
// readEntry).
func checkEntry(f *zip.File, limit, archiveSize int64) error {
	switch f.Method {
	case zip.Store:
		if f.CompressedSize64 != f.UncompressedSize64 || f.UncompressedSize64 > uint64(max(archiveSize, 0)) {
			return loadErrorf("%s: stored entry of %d bytes in a %d-byte archive", f.Name, f.UncompressedSize64, archiveSize)
		}
	case zip.Deflate:
		if f.Name == weightsPath || f.Name == constantsPath {
			return loadErrorf("%s: tensor data must be stored uncompressed", f.Name)
		}
	default:
		return loadErrorf("%s: unsupported compression method %d", f.Name, f.Method)
	}
	if f.UncompressedSize64 > uint64(max(limit, 0)) {
		return loadErrorf("%s: %d bytes, more than the limit of %d", f.Name, f.UncompressedSize64, limit)
	}
	return nil
}

// loader builds a program from its schema form.
type loader struct {
	p      *jProgram
	g      *fx.Graph
	gm     *fx.GraphModule
	byName map[string]*fx.Node
	syms   map[string]ValueRange
	ep     *ExportedProgram
	metas  map[string]*tensor.Tensor // placeholder name -> its example value

	jg    *jGraph // the graph being read: the program's, or a sub-program's
	depth int     // how deeply jg nests in higher-order ops' sub-programs
	nodes *int    // nodes read so far, in every graph
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (l *loader) load() error {
	if len(l.p.GraphModule.ModuleCallGraph) > 0 {
		return loadErrorf("module_call_graph entries are not supported")
	}
	if err := l.ranges(); err != nil {
		return err
	}
	l.jg = &l.p.GraphModule.Graph
	l.nodes = new(int)
	l.metas = map[string]*tensor.Tensor{}
	if err := l.graph(); err != nil {
		return err
	}
	sig, err := l.signature()
	if err != nil {
		return err
	}
	l.ep = &ExportedProgram{
		GraphModule: l.gm, GraphSignature: sig, StateDict: map[string]*tensor.Tensor{},
		Constants: map[string]*tensor.Tensor{}, RangeConstraints: l.syms,
	}
	return l.dims()
}

// graph reads l.jg into a new graph module: inputs, nodes, outputs.
func (l *loader) graph() error {
	jg := l.jg
	*l.nodes += len(jg.Nodes)
	if len(jg.Nodes) > maxNodes || *l.nodes > maxNodes {
		return loadErrorf("the graph has more than the limit of %d nodes", maxNodes)
	}
	for what, m := range map[string]map[string]json.RawMessage{
		"sym_bool_values":   jg.SymBoolValues,
		"custom_obj_values": jg.CustomObjValues, "sym_float_values": jg.SymFloatValues,
	} {
		if len(m) > 0 {
			return loadErrorf("graph %s are not supported", what)
		}
	}
	l.g = fx.New()
	l.gm = fx.NewGraphModule(l.g)
	for i, in := range jg.Inputs {
		if in.AsCustomObj != nil && countSet(&in) == 1 && l.depth == 0 {
			if err := l.objectInput(i, in.AsCustomObj); err != nil {
				return err
			}
			continue
		}
		if in.AsTensor == nil || countSet(&in) != 1 {
			return loadErrorf("graph input %d is not a tensor", i)
		}
		name := in.AsTensor.Name
		if err := l.checkName(name); err != nil {
			return err
		}
		meta, syms, err := l.tensorMeta(name, l.depth == 0)
		if err != nil {
			return err
		}
		p := l.g.Placeholder(name)
		if p.Name != name {
			return loadErrorf("graph input %q is not a usable name", name)
		}
		p.Meta[fx.MetaVal] = meta
		if l.depth == 0 {
			p.Meta[metaSyms] = syms
			l.metas[name] = meta
		}
		l.byName[name] = p
	}
	for i := range jg.Nodes {
		if err := l.node(i, &jg.Nodes[i]); err != nil {
			return err
		}
	}
	for name := range jg.SymIntValues {
		if n := l.byName[name]; n == nil || !isSymInt(n) {
			return loadErrorf("sym_int_values has %q, which is not a symbolic int of the graph", clip([]byte(name)))
		}
	}
	if jg.IsSingleTensorReturn {
		if l.depth == 0 || len(jg.Outputs) != 1 || jg.Outputs[0].AsTensor == nil || countSet(&jg.Outputs[0]) != 1 {
			return loadErrorf("is_single_tensor_return is set on a graph that is not a sub-program returning one tensor")
		}
		n := l.byName[jg.Outputs[0].AsTensor.Name]
		if n == nil {
			return loadErrorf("graph output 0 refers to %q, which no node defines", clip([]byte(jg.Outputs[0].AsTensor.Name)))
		}
		l.g.Output(n)
	} else {
		outs := make(fx.Tuple, len(jg.Outputs))
		for i := range jg.Outputs {
			o := &jg.Outputs[i]
			switch {
			case countSet(o) != 1:
				return loadErrorf("graph output %d: an Argument must have exactly one field set", i)
			case o.AsTensor != nil:
				n := l.byName[o.AsTensor.Name]
				if n == nil {
					return loadErrorf("graph output %d refers to %q, which no node defines", i, clip([]byte(o.AsTensor.Name)))
				}
				outs[i] = n
			case o.AsNone != nil:
			case o.AsCustomObj != nil && l.depth == 0:
				n := l.byName[o.AsCustomObj.Name]
				if n == nil || !isObject(n) {
					return loadErrorf("graph output %d refers to %q, which is no custom object of the graph", i, clip([]byte(o.AsCustomObj.Name)))
				}
				outs[i] = n
			default:
				return loadErrorf("graph output %d is neither a tensor nor None", i)
			}
		}
		l.g.Output(outs)
	}
	if err := l.gm.Lint(); err != nil {
		return loadErrorf("the graph is malformed: %v", err)
	}
	return nil
}

// metaSyms is the Meta key where a loaded placeholder keeps the symbols of
// its sizes until the signature is read.
const metaSyms = "goaten_export_syms"

func countSet(u any) int {
	n, _ := setFields(u)
	return n
}

func (l *loader) checkName(name string) error {
	if !identRE.MatchString(name) || len(name) > 1024 {
		return loadErrorf("%q is not a valid node name", clip([]byte(name)))
	}
	if l.byName[name] != nil {
		return loadErrorf("two values are named %s", name)
	}
	return nil
}

// ranges reads the range constraints.
func (l *loader) ranges() error {
	l.syms = map[string]ValueRange{}
	for sym, r := range l.p.RangeConstraints {
		if !identRE.MatchString(sym) {
			return loadErrorf("range constraint on %q, which is not a symbol", clip([]byte(sym)))
		}
		if r.MinVal == nil || *r.MinVal < 0 {
			return loadErrorf("range constraint on %s has no valid min_val", sym)
		}
		lo, err := intOf(*r.MinVal)
		if err != nil {
			return loadErrorf("range constraint on %s: %v", sym, err)
		}
		hi := math.MaxInt
		if r.MaxVal != nil {
			if hi, err = intOf(*r.MaxVal); err != nil {
				return loadErrorf("range constraint on %s: %v", sym, err)
			}
			if hi < lo {
				return loadErrorf("range constraint on %s is empty: [%d, %d]", sym, lo, hi)
			}
		}
		l.syms[sym] = ValueRange{lo, hi}
	}
	return nil
}

// tensorMeta returns a metadata-only tensor for the value name, and its
// symbolic sizes by dimension ("" for static ones). A graph input's
// (symbolic) must be a symbol of the range constraints; another value's may
// be an expression in them ("s0*s1", see checkSymExpr).
func (l *loader) tensorMeta(name string, symbolic bool) (*tensor.Tensor, []string, error) {
	m, ok := l.jg.TensorValues[name]
	if !ok {
		return nil, nil, loadErrorf("value %s has no tensor_values entry", name)
	}
	dt, ok := dtypeOf(m.DType)
	if !ok {
		return nil, nil, loadErrorf("value %s has unknown dtype %d", name, m.DType)
	}
	if m.Layout != layoutStrided {
		return nil, nil, loadErrorf("value %s has layout %d; only strided tensors are supported", name, m.Layout)
	}
	dev, err := device(m.Device)
	if err != nil {
		return nil, nil, loadErrorf("value %s: %v", name, err)
	}
	if len(m.Sizes) > maxRank || len(m.Strides) != len(m.Sizes) {
		return nil, nil, loadErrorf("value %s has %d sizes and %d strides (at most %d dimensions)", name, len(m.Sizes), len(m.Strides), maxRank)
	}
	sizes := make([]int, len(m.Sizes))
	strides := make([]int, len(m.Sizes))
	var syms []string
	for j, s := range m.Sizes {
		switch {
		case countSet(&s) != 1:
			return nil, nil, loadErrorf("value %s: size %d must be an int or an expression", name, j)
		case s.AsInt != nil:
			if *s.AsInt < 0 || *s.AsInt > math.MaxInt32*int64(1<<20) {
				return nil, nil, loadErrorf("value %s has size %d in dimension %d", name, *s.AsInt, j)
			}
			sizes[j] = int(*s.AsInt)
		case !symbolic:
			e := s.AsExpr
			if hint, ok := compile.UnbackedHint(e.ExprStr); ok {
				// A data-dependent size (u0): fake values take its hint.
				if _, ok := l.syms[e.ExprStr]; !ok {
					return nil, nil, loadErrorf("value %s has size %q, which is not a symbol of the range constraints", name, e.ExprStr)
				}
				sizes[j] = hint
				break
			}
			// A value computed in the graph: its size is an expression in
			// the symbols, kept for printing; the hint is its size at
			// export.
			if err := checkSymExpr(e.ExprStr, l.syms); err != nil {
				return nil, nil, loadErrorf("value %s has size %q: %v", name, clip([]byte(e.ExprStr)), err)
			}
			if e.Hint == nil || e.Hint.AsInt == nil || *e.Hint.AsInt < 0 || *e.Hint.AsInt > math.MaxInt32*int64(1<<20) {
				return nil, nil, loadErrorf("value %s: symbolic size %s has no valid hint", name, e.ExprStr)
			}
			sizes[j] = int(*e.Hint.AsInt)
			if syms == nil {
				syms = make([]string, len(m.Sizes))
			}
			syms[j] = e.ExprStr
		default:
			e := s.AsExpr
			r, ok := l.syms[e.ExprStr]
			if !ok {
				return nil, nil, loadErrorf("value %s has size %q, which is not a symbol of the range constraints", name, clip([]byte(e.ExprStr)))
			}
			if e.Hint == nil || e.Hint.AsInt == nil || *e.Hint.AsInt < 0 || *e.Hint.AsInt > math.MaxInt32 {
				return nil, nil, loadErrorf("value %s: symbolic size %s has no valid hint", name, e.ExprStr)
			}
			sizes[j] = int(*e.Hint.AsInt)
			if sizes[j] < r.Min || sizes[j] > r.Max {
				return nil, nil, loadErrorf("value %s: the hint %d of %s is outside its range %s", name, sizes[j], e.ExprStr, r)
			}
			if syms == nil {
				syms = make([]string, len(m.Sizes))
			}
			syms[j] = e.ExprStr
		}
		st := m.Strides[j]
		if countSet(&st) != 1 || st.AsInt == nil || *st.AsInt < 0 || *st.AsInt > math.MaxInt32*int64(1<<20) {
			return nil, nil, loadErrorf("value %s has an invalid stride in dimension %d", name, j)
		}
		strides[j] = int(*st.AsInt)
	}
	off := m.StorageOffset
	if countSet(&off) != 1 || off.AsInt == nil || *off.AsInt < 0 || *off.AsInt > math.MaxInt32*int64(1<<20) {
		return nil, nil, loadErrorf("value %s has an invalid storage offset", name)
	}
	if _, ok := extent(sizes, strides, int(*off.AsInt)); !ok {
		return nil, nil, loadErrorf("value %s is too large", name)
	}
	t := tensor.NewMeta(sizes, strides, int(*off.AsInt), dt, dev)
	if m.RequiresGrad && dt.IsFloat() {
		autograd.SetRequiresGrad(t, true)
	}
	return t, syms, nil
}

// extent is the number of elements a layout spans, with ok false when it
// overflows 2^48 elements.
func extent(sizes, strides []int, off int) (int, bool) {
	const limit = 1 << 48
	n := off + 1
	for j, s := range sizes {
		if s == 0 {
			return 0, true
		}
		hi, lo := bits.Mul64(uint64(s-1), uint64(strides[j]))
		if hi != 0 || lo > limit {
			return 0, false
		}
		n += int(lo)
		if n > limit {
			return 0, false
		}
	}
	num := 1
	for _, s := range sizes {
		hi, lo := bits.Mul64(uint64(num), uint64(s))
		if hi != 0 || lo > limit {
			return 0, false
		}
		num = int(lo)
	}
	return n, true
}

func device(d jDevice) (tensor.Device, error) {
	dev, ok := tensor.LookupDevice(d.Type)
	if !ok {
		return 0, fmt.Errorf("unknown device %q (import the package that registers it)", clip([]byte(d.Type)))
	}
	if d.Index != nil && *d.Index != 0 {
		return 0, fmt.Errorf("device %s:%d: device indices are not supported", d.Type, *d.Index)
	}
	return dev, nil
}

var targetRE = regexp.MustCompile(`^torch\.ops\.([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)$`)

// resolveTarget finds the registered op a node's target names.
func resolveTarget(target string) (*tensor.Op, error) {
	m := targetRE.FindStringSubmatch(target)
	if m == nil {
		return nil, loadErrorf("unsupported node target %q: only calls of registered ops (torch.ops.<namespace>.<op>.<overload>) can be loaded", clip([]byte(target)))
	}
	name := m[1] + "::" + m[2]
	if m[3] != "default" {
		name += "." + m[3]
	}
	op, ok := tensor.LookupOp(name)
	if !ok || op.Schema == nil || fx.OpQualifiedName(op) != target {
		return nil, loadErrorf("We failed to resolve %s to an operator. If it's a custom op, this is usually because the custom op is not registered when deserializing. Please import the package that registers it before loading.", target)
	}
	return op, nil
}

// symHint is the value at export of the symbolic int name, from its
// sym_int_values entry.
func (l *loader) symHint(name, where string) (int, string, error) {
	raw, ok := l.p.GraphModule.Graph.SymIntValues[name]
	if !ok {
		return 0, "", loadErrorf("%s: symbolic int %s has no sym_int_values entry", where, name)
	}
	var v jSymInt
	if err := json.Unmarshal(raw, &v); err != nil || countSet(&v) != 1 {
		return 0, "", loadErrorf("%s: the sym_int_values entry of %s is not a SymInt", where, name)
	}
	h := v.AsInt
	if v.AsExpr != nil && v.AsExpr.Hint != nil {
		h = v.AsExpr.Hint.AsInt
	}
	if h == nil || *h < -math.MaxInt32*int64(1<<20) || *h > math.MaxInt32*int64(1<<20) {
		return 0, "", loadErrorf("%s: symbolic int %s has no valid hint", where, name)
	}
	expr := ""
	if v.AsExpr != nil {
		if err := checkSymExpr(v.AsExpr.ExprStr, l.syms); err != nil {
			return 0, "", loadErrorf("%s: symbolic int %s is %q: %v", where, name, clip([]byte(v.AsExpr.ExprStr)), err)
		}
		expr = v.AsExpr.ExprStr
	}
	return int(*h), expr, nil
}

// maxExprLen bounds a symbolic expression.
const maxExprLen = 256

// checkSymExpr checks that e is an expression of sympy's printing over
// the symbols of the range constraints: symbols, integers, + - * ** // and
// balanced parentheses, at most maxExprLen bytes. It is read for printing
// only: the sizes at run time come from the graph's own nodes.
func checkSymExpr(e string, syms map[string]ValueRange) error {
	if len(e) > maxExprLen {
		return fmt.Errorf("longer than %d bytes", maxExprLen)
	}
	depth, operands := 0, 0
	for i := 0; i < len(e); {
		c := e[i]
		switch {
		case c == ' ' || c == '+' || c == '-' || c == '*' || c == '/':
			i++
		case c == '(':
			depth++
			i++
		case c == ')':
			if depth--; depth < 0 {
				return fmt.Errorf("unbalanced parentheses")
			}
			i++
		case c >= '0' && c <= '9':
			for i < len(e) && e[i] >= '0' && e[i] <= '9' {
				i++
			}
			operands++
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(e) && (e[j] == '_' || e[j] >= 'a' && e[j] <= 'z' || e[j] >= 'A' && e[j] <= 'Z' || e[j] >= '0' && e[j] <= '9') {
				j++
			}
			if _, ok := syms[e[i:j]]; !ok {
				return fmt.Errorf("%s is not a symbol of the range constraints", e[i:j])
			}
			i = j
			operands++
		default:
			return fmt.Errorf("unexpected character %q", c)
		}
	}
	if depth != 0 || operands == 0 {
		return fmt.Errorf("not an expression")
	}
	return nil
}

// symOpsByName are the operators on symbolic ints a graph may call.
var symOpsByName = map[string]*fx.Operator{}

func init() {
	for op, name := range symOps {
		symOpsByName[name] = op
	}
}

// symOp adds node i, an operator on symbolic ints (_operator.mul).
func (l *loader) symOp(i int, jn *jNode) error {
	op, ok := symOpsByName[jn.Target]
	where := fmt.Sprintf("node %d (%s)", i, clip([]byte(jn.Target)))
	if !ok {
		return loadErrorf("unsupported node target %q: of the operators only add, sub, mul, floordiv of sizes can be loaded", clip([]byte(jn.Target)))
	}
	if jn.IsHopSingleTensorReturn != nil {
		return loadErrorf("%s: is_hop_single_tensor_return is set", where)
	}
	if len(jn.Inputs) != 2 {
		return loadErrorf("%s: %d arguments, the operator takes 2", where, len(jn.Inputs))
	}
	args := make([]any, 2)
	for k := range jn.Inputs {
		in := &jn.Inputs[k]
		if in.Name != []string{"a", "b"}[k] || in.Kind != nil && *in.Kind != argPositional {
			return loadErrorf("%s: argument %d is %q, want positional %s", where, k, clip([]byte(in.Name)), []string{"a", "b"}[k])
		}
		v, err := l.arg(&in.Arg, &tensor.Type{Kind: tensor.TInt}, where+" argument "+in.Name)
		if err != nil {
			return err
		}
		args[k] = v
	}
	if len(jn.Outputs) != 1 || jn.Outputs[0].AsSymInt == nil || jn.Outputs[0].AsSymInt.AsName == nil || countSet(&jn.Outputs[0]) != 1 {
		return loadErrorf("%s: the node must have one as_sym_int output", where)
	}
	return l.symNode(op, args, nil, *jn.Outputs[0].AsSymInt.AsName, where)
}

// symNode adds a call computing a symbolic int named name.
func (l *loader) symNode(target any, args []any, kwargs fx.Kwargs, name, where string) error {
	if err := l.checkName(name); err != nil {
		return loadErrorf("%s: %v", where, err)
	}
	hint, expr, err := l.symHint(name, where)
	if err != nil {
		return err
	}
	var n *fx.Node
	if err := tensor.Try(func() { n = l.g.CreateNode(fx.OpCallFunction, target, args, kwargs, name) }); err != nil {
		return loadErrorf("%s: %v", where, err)
	}
	if n.Name != name {
		return loadErrorf("%s: %q is not a usable node name", where, name)
	}
	n.Meta[fx.MetaVal] = hint
	if expr != "" {
		n.Meta[compile.MetaSymExpr] = expr
	}
	l.byName[name] = n
	return nil
}

// node adds node i of the graph.
func (l *loader) node(i int, jn *jNode) error {
	if strings.HasPrefix(jn.Target, "_operator.") {
		return l.symOp(i, jn)
	}
	switch jn.Target {
	case hop.WithEffectsSeedOp.QualifiedName():
		return l.hopNode(i, jn, hop.WithEffectsSeedOp)
	case hop.CallTorchbindOp.QualifiedName():
		return l.torchbindNode(i, jn)
	}
	if name, ok := strings.CutPrefix(jn.Target, hopPrefix); ok {
		h, found := hop.Lookup(name)
		if !found || h.QualifiedName() != jn.Target {
			return loadErrorf("node %d: unknown higher-order op %q", i, clip([]byte(jn.Target)))
		}
		return l.hopNode(i, jn, h)
	}
	op, err := resolveTarget(jn.Target)
	if err != nil {
		return err
	}
	if jn.IsHopSingleTensorReturn != nil {
		return loadErrorf("node %d: is_hop_single_tensor_return is set on a call of %s", i, op.Name)
	}
	sc := op.Schema
	where := fmt.Sprintf("node %d (%s)", i, jn.Target)
	var args []any
	var kwargs fx.Kwargs
	seen := map[string]bool{}
	for k := range jn.Inputs {
		in := &jn.Inputs[k]
		ai := sc.ArgIndex(in.Name)
		if ai < 0 {
			return loadErrorf("%s: %s has no argument %q", where, op.Name, clip([]byte(in.Name)))
		}
		if seen[in.Name] {
			return loadErrorf("%s: argument %s given twice", where, in.Name)
		}
		seen[in.Name] = true
		a := sc.Args[ai]
		keyword := a.KwargOnly
		if in.Kind != nil {
			switch *in.Kind {
			case argPositional:
				keyword = false
			case argKeyword:
				keyword = true
			default:
				return loadErrorf("%s: argument %s has unknown kind %d", where, in.Name, *in.Kind)
			}
		}
		v, err := l.arg(&in.Arg, a.Type, where+" argument "+in.Name)
		if err != nil {
			return err
		}
		if keyword {
			kwargs = append(kwargs, fx.Kwarg{Name: in.Name, Value: v})
			continue
		}
		if a.KwargOnly || ai != len(args) || len(kwargs) > 0 {
			return loadErrorf("%s: positional argument %s out of order", where, in.Name)
		}
		args = append(args, v)
	}
	for _, a := range sc.Args[len(args):] {
		if !a.HasDefault && !seen[a.Name] {
			return loadErrorf("%s: missing argument %s", where, a.Name)
		}
	}
	rets := sc.Returns
	if len(rets) == 1 && rets[0].Type.Kind == tensor.TInt {
		if len(jn.Outputs) != 1 || jn.Outputs[0].AsSymInt == nil || jn.Outputs[0].AsSymInt.AsName == nil || countSet(&jn.Outputs[0]) != 1 {
			return loadErrorf("%s: %s returns a SymInt, the node must have one as_sym_int output", where, op.Name)
		}
		return l.symNode(op, args, kwargs, *jn.Outputs[0].AsSymInt.AsName, where)
	}
	single := len(rets) == 1 && rets[0].Type.Base().Kind == tensor.TTensor
	name := jn.Metadata[metaNodeName]
	if single {
		if len(jn.Outputs) != 1 || jn.Outputs[0].AsTensor == nil || countSet(&jn.Outputs[0]) != 1 {
			return loadErrorf("%s: %s returns one tensor, the node must have one tensor output", where, op.Name)
		}
		name = jn.Outputs[0].AsTensor.Name
	} else if name == "" {
		name = defaultNodeName(sc.Name)
	}
	if err := l.checkName(name); err != nil {
		return loadErrorf("%s: %v", where, err)
	}
	var n *fx.Node
	if err := tensor.Try(func() { n = l.g.CreateNode(fx.OpCallFunction, op, args, kwargs, name) }); err != nil {
		return loadErrorf("%s: %v", where, err)
	}
	if n.Name != name {
		return loadErrorf("%s: %q is not a usable node name", where, name)
	}
	l.byName[name] = n
	if single {
		meta, shape, err := l.tensorMeta(name, false)
		if err != nil {
			return err
		}
		n.Meta[fx.MetaVal] = meta
		if shape != nil {
			n.Meta[compile.MetaSymShape] = shape
		}
		return nil
	}
	return l.items(n, jn, where)
}

// hopPrefix starts the target of a higher-order op's node.
const hopPrefix = "torch.ops.higher_order."

// hopNode adds node i, a call of the higher-order op h (see
// saver.hopNode): its sub-programs are read into sub-GraphModules,
// attributes of the graph module read by get_attr nodes, at most
// maxGraphDepth deep. The call's arguments are checked when it runs (by
// the op's FromNode).
func (l *loader) hopNode(i int, jn *jNode, h *hop.Op) error {
	where := fmt.Sprintf("node %d (%s)", i, h.QualifiedName())
	if jn.IsHopSingleTensorReturn != nil && *jn.IsHopSingleTensorReturn {
		return loadErrorf("%s: single tensor returns of higher-order ops are not supported", where)
	}
	var args []any
	var kwargs fx.Kwargs
	seen := map[string]bool{} // keyword names
	for k := range jn.Inputs {
		in := &jn.Inputs[k]
		keyword := in.Kind != nil && *in.Kind == argKeyword
		if keyword && !identRE.MatchString(in.Name) {
			return loadErrorf("%s: keyword argument %d has no valid name", where, k)
		}
		if !keyword && in.Kind != nil && *in.Kind != argPositional {
			return loadErrorf("%s: argument %d is not positional", where, k)
		}
		if !keyword && len(kwargs) > 0 {
			return loadErrorf("%s: positional argument %d after a keyword argument", where, k)
		}
		if keyword {
			if seen[in.Name] {
				return loadErrorf("%s: keyword argument %s given twice", where, in.Name)
			}
			seen[in.Name] = true
		}
		add := func(v any) {
			if keyword {
				kwargs = append(kwargs, fx.Kwarg{Name: in.Name, Value: v})
			} else {
				args = append(args, v)
			}
		}
		a := &in.Arg
		if a.AsOperator != nil && countSet(a) == 1 {
			op, err := l.arg(a, nil, fmt.Sprintf("%s argument %d", where, k)) // an op, or call_torchbind
			if err != nil {
				return err
			}
			add(op)
			continue
		}
		if a.AsGraph == nil || countSet(a) != 1 {
			if a.AsTensor == nil && a.AsTensors == nil && a.AsNone == nil && a.AsInt == nil &&
				a.AsFloat == nil && a.AsBool == nil && a.AsString == nil && a.AsCustomObj == nil {
				return loadErrorf("%s: argument %d must be a sub-program, an operator, a tensor, a list of tensors, None, a number, a string or a custom object", where, k)
			}
			v, err := l.arg(a, nil, fmt.Sprintf("%s argument %d", where, k))
			if err != nil {
				return err
			}
			if !hopArgFits(v) {
				return loadErrorf("%s: argument %d refers to a value that is not a tensor", where, k)
			}
			add(v)
			continue
		}
		if keyword {
			return loadErrorf("%s: keyword argument %s is a sub-program", where, in.Name)
		}
		sub, err := l.subgraph(a.AsGraph, fmt.Sprintf("%s argument %d", where, k))
		if err != nil {
			return err
		}
		args = append(args, sub)
	}
	name := jn.Metadata[metaNodeName]
	if name == "" {
		name = h.Name()
	}
	if err := l.checkName(name); err != nil {
		return loadErrorf("%s: %v", where, err)
	}
	n := l.g.CreateNode(fx.OpCallFunction, h, args, kwargs, name)
	if n.Name != name {
		return loadErrorf("%s: %q is not a usable node name", where, name)
	}
	// Not in byName: only its elements (getitem) are values.
	if len(jn.Outputs) != 1 || jn.Outputs[0].AsTensors == nil || countSet(&jn.Outputs[0]) != 1 {
		return loadErrorf("%s: a higher-order op's node must have one as_tensors output", where)
	}
	if len(*jn.Outputs[0].AsTensors) > maxNodes {
		return loadErrorf("%s: too many outputs", where)
	}
	var names []*jName
	for k := range *jn.Outputs[0].AsTensors {
		nm := &(*jn.Outputs[0].AsTensors)[k]
		if nm.Name == "" {
			nm = nil
		}
		names = append(names, nm)
	}
	return l.getItems(n, names, where)
}

// hopArgFits reports whether the nodes in a higher-order op's argument are
// tensors.
func hopArgFits(v any) bool {
	switch x := v.(type) {
	case *fx.Node:
		_, ok := x.Meta[fx.MetaVal].(*tensor.Tensor)
		return ok || isObject(x)
	case []any:
		for _, e := range x {
			if !hopArgFits(e) {
				return false
			}
		}
	}
	return true
}

// subgraph reads a sub-program argument into a sub-GraphModule attribute
// and returns the get_attr node that reads it.
func (l *loader) subgraph(ga *jGraphArg, where string) (*fx.Node, error) {
	if l.depth+1 > maxGraphDepth {
		return nil, loadErrorf("%s: higher-order ops' sub-programs nest more than %d deep", where, maxGraphDepth)
	}
	if ga.Graph == nil {
		return nil, loadErrorf("%s: the sub-program %q has no graph", where, clip([]byte(ga.Name)))
	}
	if !identRE.MatchString(ga.Name) || len(ga.Name) > 1024 {
		return nil, loadErrorf("%s: %q is not a valid attribute name", where, clip([]byte(ga.Name)))
	}
	prev, taken := l.gm.Attr(ga.Name)
	child := &loader{p: l.p, byName: map[string]*fx.Node{}, syms: l.syms, jg: ga.Graph, depth: l.depth + 1, nodes: l.nodes}
	if err := child.graph(); err != nil {
		var le *LoadError
		if errors.As(err, &le) {
			return nil, loadErrorf("%s: in sub-program %s: %s", where, ga.Name, le.Msg)
		}
		return nil, err
	}
	if taken {
		// One sub-program several calls share (invoke_subgraph's
		// subgraph_1 = self.subgraph_0): each call carries its graph,
		// which must be the same.
		pg, ok := prev.(*fx.GraphModule)
		if !ok || pg.Code() != child.gm.Code() {
			return nil, loadErrorf("%s: two different sub-programs are named %s", where, ga.Name)
		}
		return l.g.GetAttr(ga.Name), nil
	}
	l.gm.SetAttr(ga.Name, child.gm)
	return l.g.GetAttr(ga.Name), nil
}

// defaultNodeName is how FX names a call of op name when nothing else says.
func defaultNodeName(op string) string {
	if s := strings.TrimSuffix(strings.TrimPrefix(op, "__"), "__"); s != "" {
		return s
	}
	return "call"
}

// items adds the getitem nodes reading the elements of a tuple or list
// result.
func (l *loader) items(n *fx.Node, jn *jNode, where string) error {
	rets := n.OpTarget().Schema.Returns
	var names []*jName
	switch {
	case len(rets) == 0:
		if len(jn.Outputs) != 0 {
			return loadErrorf("%s: the op returns nothing but the node has %d outputs", where, len(jn.Outputs))
		}
		return nil
	case len(rets) == 1 && rets[0].Type.Kind == tensor.TList && rets[0].Type.Elem.Kind == tensor.TTensor:
		if len(jn.Outputs) != 1 || jn.Outputs[0].AsTensors == nil || countSet(&jn.Outputs[0]) != 1 {
			return loadErrorf("%s: the op returns a list of tensors, the node must have one as_tensors output", where)
		}
		for k := range *jn.Outputs[0].AsTensors {
			nm := &(*jn.Outputs[0].AsTensors)[k]
			if nm.Name == "" {
				nm = nil
			}
			names = append(names, nm)
		}
	default:
		for _, r := range rets {
			if r.Type.Kind != tensor.TTensor {
				return loadErrorf("%s: the op returns a %s, which cannot be loaded", where, r.Type)
			}
		}
		if len(jn.Outputs) != len(rets) {
			return loadErrorf("%s: the op returns %d tensors, the node has %d outputs", where, len(rets), len(jn.Outputs))
		}
		for k := range jn.Outputs {
			o := &jn.Outputs[k]
			switch {
			case countSet(o) != 1:
				return loadErrorf("%s: output %d must have exactly one field set", where, k)
			case o.AsTensor != nil:
				names = append(names, o.AsTensor)
			case o.AsNone != nil:
				names = append(names, nil)
			default:
				return loadErrorf("%s: output %d is neither a tensor nor None", where, k)
			}
		}
	}
	return l.getItems(n, names, where)
}

// getItems adds the getitem nodes named names reading the elements of n's
// result (nil: an element nobody reads).
func (l *loader) getItems(n *fx.Node, names []*jName, where string) error {
	vals := make([]*tensor.Tensor, len(names))
	for k, nm := range names {
		if nm == nil {
			continue
		}
		if err := l.checkName(nm.Name); err != nil {
			return loadErrorf("%s: output %d: %v", where, k, err)
		}
		gi := l.g.CreateNode(fx.OpCallFunction, fx.GetItem, []any{n, k}, nil, nm.Name)
		if gi.Name != nm.Name {
			return loadErrorf("%s: %q is not a usable node name", where, nm.Name)
		}
		meta, shape, err := l.tensorMeta(nm.Name, false)
		if err != nil {
			return err
		}
		gi.Meta[fx.MetaVal] = meta
		if shape != nil {
			gi.Meta[compile.MetaSymShape] = shape
		}
		vals[k] = meta
		l.byName[nm.Name] = gi
	}
	n.Meta[fx.MetaVal] = vals
	return nil
}

// arg reads an argument value and checks it against the schema type t.
func (l *loader) arg(a *jArg, t *tensor.Type, where string) (any, error) {
	cnt, _ := setFields(a)
	if cnt != 1 {
		return nil, loadErrorf("%s: an Argument must have exactly one field set, it has %d", where, cnt)
	}
	ref := func(name string) (*fx.Node, error) {
		n := l.byName[name]
		if n == nil {
			return nil, loadErrorf("%s refers to %q, which no node before it defines", where, clip([]byte(name)))
		}
		return n, nil
	}
	var v any
	switch {
	case a.AsGraph != nil:
		return nil, loadErrorf("%s: a sub-program can only be an argument of a higher-order op", where)
	case a.AsOperator != nil:
		if t != nil {
			return nil, loadErrorf("%s: an operator can only be an argument of a higher-order op", where)
		}
		if *a.AsOperator == hop.CallTorchbindOp.QualifiedName() {
			return hop.CallTorchbindOp, nil
		}
		op, err := resolveTarget(*a.AsOperator)
		if err != nil {
			return nil, err
		}
		return op, nil
	case a.AsCustomObj != nil:
		n, err := ref(a.AsCustomObj.Name)
		if err != nil {
			return nil, err
		}
		o, ok := n.Meta[fx.MetaVal].(tensor.ScriptObject)
		if !ok || o.QualifiedClassName() != a.AsCustomObj.ClassFQN {
			return nil, loadErrorf("%s: %s is not a custom object of class %s", where, n.Name, clip([]byte(a.AsCustomObj.ClassFQN)))
		}
		v = n
	case a.AsNone != nil:
		v = nil
	case a.AsTensor != nil:
		n, err := ref(a.AsTensor.Name)
		if err != nil {
			return nil, err
		}
		v = n
	case a.AsTensors != nil:
		xs := make([]any, len(*a.AsTensors))
		for i, nm := range *a.AsTensors {
			n, err := ref(nm.Name)
			if err != nil {
				return nil, err
			}
			xs[i] = n
		}
		v = xs
	case a.AsOptionalTensors != nil:
		xs := make([]any, len(*a.AsOptionalTensors))
		for i := range *a.AsOptionalTensors {
			o := &(*a.AsOptionalTensors)[i]
			switch {
			case countSet(o) != 1:
				return nil, loadErrorf("%s: an OptionalTensorArgument must have exactly one field set", where)
			case o.AsTensor != nil:
				n, err := ref(o.AsTensor.Name)
				if err != nil {
					return nil, err
				}
				xs[i] = n
			}
		}
		v = xs
	case a.AsInt != nil:
		k, err := intOf(*a.AsInt)
		if err != nil {
			return nil, loadErrorf("%s: %v", where, err)
		}
		v = k
	case a.AsInts != nil:
		xs := make([]any, len(*a.AsInts))
		for i, x := range *a.AsInts {
			k, err := intOf(x)
			if err != nil {
				return nil, loadErrorf("%s: %v", where, err)
			}
			xs[i] = k
		}
		v = xs
	case a.AsSymInt != nil:
		x, err := l.symArg(a.AsSymInt, ref, where)
		if err != nil {
			return nil, err
		}
		v = x
	case a.AsSymInts != nil:
		xs := make([]any, len(*a.AsSymInts))
		for i := range *a.AsSymInts {
			x, err := l.symArg(&(*a.AsSymInts)[i], ref, where)
			if err != nil {
				return nil, err
			}
			xs[i] = x
		}
		v = xs
	case a.AsFloat != nil:
		v = float64(*a.AsFloat)
	case a.AsFloats != nil:
		xs := make([]any, len(*a.AsFloats))
		for i, x := range *a.AsFloats {
			xs[i] = float64(x)
		}
		v = xs
	case a.AsBool != nil:
		v = *a.AsBool
	case a.AsBools != nil:
		xs := make([]any, len(*a.AsBools))
		for i, x := range *a.AsBools {
			xs[i] = x
		}
		v = xs
	case a.AsString != nil:
		v = *a.AsString
	case a.AsStrings != nil:
		xs := make([]any, len(*a.AsStrings))
		for i, x := range *a.AsStrings {
			xs[i] = x
		}
		v = xs
	case a.AsScalarType != nil:
		d, ok := dtypeOf(*a.AsScalarType)
		if !ok {
			return nil, loadErrorf("%s: unknown scalar type %d", where, *a.AsScalarType)
		}
		v = d
	case a.AsMemoryFormat != nil:
		found := false
		for mf, code := range memoryFormats {
			if code == *a.AsMemoryFormat {
				v, found = mf, true
			}
		}
		if !found {
			return nil, loadErrorf("%s: unknown memory format %d", where, *a.AsMemoryFormat)
		}
	case a.AsLayout != nil:
		if *a.AsLayout != layoutStrided {
			return nil, loadErrorf("%s: unsupported layout %d", where, *a.AsLayout)
		}
		v = tensor.Strided
	case a.AsDevice != nil:
		d, err := device(*a.AsDevice)
		if err != nil {
			return nil, loadErrorf("%s: %v", where, err)
		}
		v = d
	}
	if t != nil && !fits(v, t) {
		return nil, loadErrorf("%s: %s does not fit the parameter type %s", where, fx.Repr(v), t)
	}
	return v, nil
}

// symArg reads a SymIntArgument: a symbolic int node or an int.
func (l *loader) symArg(a *jSymIntArg, ref func(string) (*fx.Node, error), where string) (any, error) {
	switch {
	case countSet(a) != 1:
		return nil, loadErrorf("%s: a SymIntArgument must have exactly one field set", where)
	case a.AsName != nil:
		n, err := ref(*a.AsName)
		if err != nil {
			return nil, err
		}
		if !isSymInt(n) {
			return nil, loadErrorf("%s: %s is not a symbolic int", where, n.Name)
		}
		return n, nil
	}
	k, err := intOf(*a.AsInt)
	if err != nil {
		return nil, loadErrorf("%s: %v", where, err)
	}
	return k, nil
}

// fits reports whether a loaded value can be bound to a parameter of type
// t, so that running the graph never meets an argument of the wrong kind.
func fits(v any, t *tensor.Type) bool {
	if t.Kind == tensor.TOptional {
		return v == nil || fits(v, t.Elem)
	}
	switch t.Kind {
	case tensor.TClass:
		n, ok := v.(*fx.Node)
		if !ok {
			return false
		}
		o, ok := n.Meta[fx.MetaVal].(tensor.ScriptObject)
		return ok && o.QualifiedClassName() == t.Name
	case tensor.TTensor:
		switch x := v.(type) {
		case *fx.Node:
			_, ok := x.Meta[fx.MetaVal].(*tensor.Tensor)
			return ok || isSymInt(x) // a symbolic int for a Tensor, as a Python int
		case int, float64, bool: // a Python number for a Tensor
			return true
		}
	case tensor.TInt:
		if n, isNode := v.(*fx.Node); isNode {
			return isSymInt(n)
		}
		_, ok := v.(int)
		return ok
	case tensor.TFloat:
		switch v.(type) {
		case int, float64:
			return true
		}
	case tensor.TBool:
		_, ok := v.(bool)
		return ok
	case tensor.TStr:
		_, ok := v.(string)
		return ok
	case tensor.TScalar:
		switch v.(type) {
		case int, float64, bool:
			return true
		}
	case tensor.TScalarType:
		_, ok := v.(tensor.DType)
		return ok
	case tensor.TLayout:
		_, ok := v.(tensor.Layout)
		return ok
	case tensor.TDevice:
		_, ok := v.(tensor.Device)
		return ok
	case tensor.TMemoryFormat:
		_, ok := v.(tensor.MemoryFormat)
		return ok
	case tensor.TList:
		if _, isInt := v.(int); isInt && t.Elem.Kind == tensor.TInt {
			return true // int[1] dim=0
		}
		// int[1] is PyTorch's "a bare int is a list of one", not a
		// length: mean.dim's int[1]? dim takes [-1, -2].
		xs, ok := v.([]any)
		if !ok || (t.Size > 1 && len(xs) != t.Size && len(xs) != 1) {
			return false
		}
		for _, x := range xs {
			if !fits(x, t.Elem) {
				return false
			}
		}
		return true
	}
	return false
}

// signature reads the input and output specs and checks them against the
// graph.
func (l *loader) signature() (*ExportGraphSignature, error) {
	js := &l.p.GraphModule.Signature
	phs := l.g.Placeholders()
	if len(js.InputSpecs) != len(phs) {
		return nil, loadErrorf("the signature has %d input specs for %d graph inputs", len(js.InputSpecs), len(phs))
	}
	sig := &ExportGraphSignature{}
	targets := map[string]bool{}
	users := map[string]bool{}
	buffers := map[string]bool{}
	params := map[string]bool{}
	for i := range js.InputSpecs {
		s := &js.InputSpecs[i]
		cnt, _ := setFields(s)
		if cnt != 1 {
			return nil, loadErrorf("input spec %d must have exactly one field set, it has %d", i, cnt)
		}
		var spec InputSpec
		var name string
		switch {
		case s.UserInput != nil:
			a := &s.UserInput.Arg
			switch {
			case countSet(a) == 1 && a.AsTensor != nil:
				name = a.AsTensor.Name
				spec = InputSpec{Kind: UserInput, Arg: TensorArgument{name}}
			case countSet(a) == 1 && a.AsCustomObj != nil:
				name = a.AsCustomObj.Name
				spec = InputSpec{Kind: UserInput, Arg: CustomObjArgument{name, a.AsCustomObj.ClassFQN}}
			default:
				return nil, loadErrorf("input spec %d: only tensor and custom object user inputs are supported", i)
			}
			users[name] = true
		case s.Parameter != nil:
			name = s.Parameter.Arg.Name
			spec = InputSpec{Kind: Parameter, Target: s.Parameter.ParameterName}
			params[spec.Target] = true
		case s.Buffer != nil:
			name = s.Buffer.Arg.Name
			spec = InputSpec{Kind: Buffer, Target: s.Buffer.BufferName, Persistent: s.Buffer.Persistent}
			buffers[spec.Target] = true
		case s.TensorConstant != nil:
			name = s.TensorConstant.Arg.Name
			spec = InputSpec{Kind: ConstantTensor, Target: s.TensorConstant.TensorConstantName}
		case s.CustomObj != nil:
			name = s.CustomObj.Arg.Name
			spec = InputSpec{Kind: CustomObj, Target: s.CustomObj.CustomObjName, Arg: CustomObjArgument{name, s.CustomObj.Arg.ClassFQN}}
			if strings.Contains(spec.Target, "/") {
				return nil, loadErrorf("input spec %d: custom object name %q has a /", i, clip([]byte(spec.Target)))
			}
		case s.Token != nil:
			name = s.Token.Arg.Name
			spec = InputSpec{Kind: Token, Arg: TokenArgument{name}}
			if m := l.metas[name]; m == nil || m.Dim() != 1 || m.Size(0) != 0 {
				return nil, loadErrorf("input spec %d: the token %q is not an empty tensor input", i, clip([]byte(name)))
			}
		default:
			return nil, loadErrorf("input spec %d: constant inputs are not supported", i)
		}
		if name != phs[i].Name {
			return nil, loadErrorf("input spec %d names %q, but graph input %d is %s", i, clip([]byte(name)), i, phs[i].Name)
		}
		_, objSpec := spec.Arg.(CustomObjArgument)
		if objSpec != isObject(phs[i]) {
			return nil, loadErrorf("input spec %d (%s) and graph input %s disagree on whether it is a custom object", i, spec.Kind, name)
		}
		if a, ok := spec.Arg.(CustomObjArgument); ok && phs[i].Meta[fx.MetaVal].(tensor.ScriptObject).QualifiedClassName() != a.ClassFQN {
			return nil, loadErrorf("input spec %d names class %q, graph input %s is of another class", i, clip([]byte(a.ClassFQN)), name)
		}
		if spec.Arg == nil {
			spec.Arg = TensorArgument{name}
		}
		if spec.Kind != UserInput && spec.Kind != Token {
			if spec.Target == "" || len(spec.Target) > 1024 || targets[spec.Target] {
				return nil, loadErrorf("input spec %d has an empty, too long or repeated target %q", i, clip([]byte(spec.Target)))
			}
			targets[spec.Target] = true
			if syms, _ := phs[i].Meta[metaSyms].([]string); syms != nil {
				return nil, loadErrorf("input %s (%s) has symbolic sizes; only user inputs may", name, spec.Kind)
			}
		}
		sig.InputSpecs = append(sig.InputSpecs, spec)
	}
	if err := checkTargets(sig.InputSpecs); err != nil {
		return nil, err
	}
	outs := flatOutputs(l.g.OutputNode())
	if len(js.OutputSpecs) != len(outs) {
		return nil, loadErrorf("the signature has %d output specs for %d graph outputs", len(js.OutputSpecs), len(outs))
	}
	for i := range js.OutputSpecs {
		s := &js.OutputSpecs[i]
		cnt, _ := setFields(s)
		if cnt != 1 {
			return nil, loadErrorf("output spec %d must have exactly one field set, it has %d", i, cnt)
		}
		var spec OutputSpec
		var name string
		switch {
		case s.UserOutput != nil:
			a := &s.UserOutput.Arg
			switch {
			case countSet(a) == 1 && a.AsTensor != nil:
				name = a.AsTensor.Name
				spec = OutputSpec{Kind: UserOutput, Arg: TensorArgument{name}}
			case countSet(a) == 1 && a.AsNone != nil:
				spec = OutputSpec{Kind: UserOutput, Arg: ConstantArgument{}}
			case countSet(a) == 1 && a.AsCustomObj != nil:
				name = a.AsCustomObj.Name
				spec = OutputSpec{Kind: UserOutput, Arg: CustomObjArgument{name, a.AsCustomObj.ClassFQN}}
			default:
				return nil, loadErrorf("output spec %d: only tensor, custom object and None user outputs are supported", i)
			}
		case s.LossOutput != nil:
			name = s.LossOutput.Arg.Name
			spec = OutputSpec{Kind: LossOutput, Arg: TensorArgument{name}}
		case s.BufferMutation != nil:
			name = s.BufferMutation.Arg.Name
			spec = OutputSpec{Kind: BufferMutation, Arg: TensorArgument{name}, Target: s.BufferMutation.BufferName}
			if !buffers[spec.Target] {
				return nil, loadErrorf("output spec %d mutates %q, which is not a buffer input", i, clip([]byte(spec.Target)))
			}
		case s.UserInputMutation != nil:
			name = s.UserInputMutation.Arg.Name
			spec = OutputSpec{Kind: UserInputMutation, Arg: TensorArgument{name}, Target: s.UserInputMutation.UserInputName}
			if !users[spec.Target] {
				return nil, loadErrorf("output spec %d mutates %q, which is not a user input", i, clip([]byte(spec.Target)))
			}
		case s.Token != nil:
			name = s.Token.Arg.Name
			spec = OutputSpec{Kind: OutputToken, Arg: TokenArgument{name}}
		case s.GradientToParameter != nil:
			name = s.GradientToParameter.Arg.Name
			spec = OutputSpec{Kind: GradientToParameter, Arg: TensorArgument{name}, Target: s.GradientToParameter.ParameterName}
			if !params[spec.Target] {
				return nil, loadErrorf("output spec %d is the gradient of %q, which is not a parameter input", i, clip([]byte(spec.Target)))
			}
		case s.GradientToUserInput != nil:
			name = s.GradientToUserInput.Arg.Name
			spec = OutputSpec{Kind: GradientToUserInput, Arg: TensorArgument{name}, Target: s.GradientToUserInput.UserInputName}
			if !users[spec.Target] {
				return nil, loadErrorf("output spec %d is the gradient of %q, which is not a user input", i, clip([]byte(spec.Target)))
			}
		default:
			return nil, loadErrorf("output spec %d: unknown kind", i)
		}
		got := ""
		if outs[i] != nil {
			got = outs[i].Name
			if _, objOut := spec.Arg.(CustomObjArgument); objOut != isObject(outs[i]) {
				return nil, loadErrorf("output spec %d (%s) and graph output %s disagree on whether it is a custom object", i, spec.Kind, got)
			}
		}
		if name != got {
			return nil, loadErrorf("output spec %d names %q, but graph output %d is %q", i, clip([]byte(name)), i, got)
		}
		sig.OutputSpecs = append(sig.OutputSpecs, spec)
	}
	return sig, nil
}

// dims reads the dynamic dimensions of the user inputs.
func (l *loader) dims() error {
	ep := l.ep
	phs := l.g.Placeholders()
	used := map[string]bool{}
	for i, s := range ep.GraphSignature.InputSpecs {
		syms, _ := phs[i].Meta[metaSyms].([]string)
		delete(phs[i].Meta, metaSyms)
		if s.Kind != UserInput {
			continue
		}
		ep.inputDims = append(ep.inputDims, syms)
		for _, x := range syms {
			if x != "" {
				used[x] = true
			}
		}
	}
	ep.dimNames = map[string]string{}
	if raw, ok := l.p.GraphModule.Metadata[metaDimNames]; ok {
		var names map[string]string
		if err := json.Unmarshal([]byte(raw), &names); err != nil {
			return loadErrorf("metadata %s: %v", metaDimNames, err)
		}
		for sym, name := range names {
			if !used[sym] {
				return loadErrorf("metadata %s names symbol %q, which no input uses", metaDimNames, clip([]byte(sym)))
			}
			ep.dimNames[sym] = name
		}
	}
	for k := range l.p.GraphModule.Metadata {
		if k != metaDimNames {
			return loadErrorf("unknown graph module metadata %q", clip([]byte(k)))
		}
	}
	return nil
}

// loadState reads the weights and constants and checks them against the
// graph inputs they stand for.
func (l *loader) loadState(wf, cf *safetensors.File) error {
	ep := l.ep
	want := map[string]bool{}
	for _, s := range ep.GraphSignature.InputSpecs {
		var file *safetensors.File
		var dst map[string]*tensor.Tensor
		path := weightsPath
		switch {
		case s.Kind == Parameter || s.Kind == Buffer && s.Persistent:
			file, dst = wf, ep.StateDict
		case s.Kind == Buffer || s.Kind == ConstantTensor:
			file, dst, path = cf, ep.Constants, constantsPath
		default:
			continue
		}
		want[path+"\x00"+s.Target] = true
		t := file.Tensors[s.Target]
		if t == nil {
			return loadErrorf("%s has no tensor %q for input %s (%s)", path, clip([]byte(s.Target)), argName(s.Arg), s.Kind)
		}
		meta := l.metas[argName(s.Arg)]
		if t.DType() != meta.DType() || !slices.Equal(t.Sizes(), meta.Sizes()) {
			return loadErrorf("tensor %q is %s%s in %s, but the graph's input %s is %s%s", s.Target,
				dtypeAbbrs[t.DType()], tensor.ShapeString(t.Sizes()), path, argName(s.Arg), dtypeAbbrs[meta.DType()], tensor.ShapeString(meta.Sizes()))
		}
		if s.Kind == Parameter && meta.RequiresGrad() {
			autograd.SetRequiresGrad(t, true)
		}
		dst[s.Target] = t
	}
	for _, f := range []struct {
		path string
		file *safetensors.File
	}{{weightsPath, wf}, {constantsPath, cf}} {
		names := append([]string(nil), f.file.Names...)
		sort.Strings(names)
		for _, n := range names {
			if !want[f.path+"\x00"+n] {
				return loadErrorf("%s holds tensor %q, which no graph input stands for", f.path, clip([]byte(n)))
			}
		}
	}
	return nil
}

// checkTargets makes sure the parameters and buffers can be registered in a
// module tree under their dotted names: no empty component, and no name
// that is both a tensor and a module holding others ("a" and "a.b").
func checkTargets(specs []InputSpec) error {
	// Sorted, the names below a module m ("m.") follow the place where m+"."
	// would go; no prefix of a target is copied (targets may be long and
	// have many components).
	var leaves []string
	for _, s := range specs {
		if s.Kind != Parameter && s.Kind != Buffer {
			continue
		}
		if slices.Contains(strings.Split(s.Target, "."), "") {
			return loadErrorf("%s target %q has an empty component", s.Kind, clip([]byte(s.Target)))
		}
		leaves = append(leaves, s.Target)
	}
	slices.Sort(leaves)
	for _, name := range leaves {
		i, _ := slices.BinarySearch(leaves, name+".")
		if i < len(leaves) && strings.HasPrefix(leaves[i], name+".") {
			return loadErrorf("%q is both a tensor and a module holding other tensors", clip([]byte(name)))
		}
	}
	return nil
}

// objectValue is the example value of a custom object input of a loaded
// graph: its class, no state.
type objectValue struct{ class string }

// QualifiedClassName implements tensor.ScriptObject.
func (o *objectValue) QualifiedClassName() string { return o.class }

// IsFake implements tensor.ScriptObject: it stands for an object.
func (o *objectValue) IsFake() bool { return true }

func (o *objectValue) String() string { return "<custom object of " + o.class + ">" }

// classRE is a custom class's qualified name.
var classRE = regexp.MustCompile(`^__torch__\.torch\.classes\.[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*$`)

// isObject reports whether node n is a custom object.
func isObject(n *fx.Node) bool {
	_, ok := n.Meta[fx.MetaVal].(tensor.ScriptObject)
	return ok
}

// objectInput adds graph input i, a custom object.
func (l *loader) objectInput(i int, a *jCustomObjArg) error {
	if err := l.checkName(a.Name); err != nil {
		return err
	}
	if !classRE.MatchString(a.ClassFQN) {
		return loadErrorf("graph input %d: %q is not a custom class name (__torch__.torch.classes.ns.Name)", i, clip([]byte(a.ClassFQN)))
	}
	p := l.g.Placeholder(a.Name)
	if p.Name != a.Name {
		return loadErrorf("graph input %q is not a usable name", a.Name)
	}
	p.Meta[fx.MetaVal] = &objectValue{a.ClassFQN}
	l.byName[a.Name] = p
	return nil
}

// torchbindNode adds node i, a plain call_torchbind(obj, 'method', *args)
// (see saver.torchbindNode).
func (l *loader) torchbindNode(i int, jn *jNode) error {
	where := fmt.Sprintf("node %d (%s)", i, hop.CallTorchbindOp.QualifiedName())
	if jn.IsHopSingleTensorReturn != nil {
		return loadErrorf("%s: is_hop_single_tensor_return is set", where)
	}
	if len(jn.Inputs) < 2 {
		return loadErrorf("%s: call_torchbind takes an object, a method name and its arguments", where)
	}
	var args []any
	for k := range jn.Inputs {
		in := &jn.Inputs[k]
		if in.Kind != nil && *in.Kind != argPositional {
			return loadErrorf("%s: argument %d is not positional", where, k)
		}
		a := &in.Arg
		if a.AsGraph != nil || a.AsOperator != nil {
			return loadErrorf("%s: argument %d cannot be a sub-program or an operator", where, k)
		}
		v, err := l.arg(a, nil, fmt.Sprintf("%s argument %d", where, k))
		if err != nil {
			return err
		}
		if !hopArgFits(v) {
			return loadErrorf("%s: argument %d refers to a value that is neither a tensor nor a custom object", where, k)
		}
		args = append(args, v)
	}
	if n, ok := args[0].(*fx.Node); !ok || !isObject(n) {
		return loadErrorf("%s: the first argument must be a custom object", where)
	}
	if _, ok := args[1].(string); !ok {
		return loadErrorf("%s: the second argument must be the method name", where)
	}
	name := jn.Metadata[metaNodeName]
	switch {
	case len(jn.Outputs) == 1 && jn.Outputs[0].AsSymInt != nil && jn.Outputs[0].AsSymInt.AsName != nil && countSet(&jn.Outputs[0]) == 1:
		// A method's int result the graph reads at run time.
		return l.symNode(hop.CallTorchbindOp, args, nil, *jn.Outputs[0].AsSymInt.AsName, where)
	case len(jn.Outputs) == 1 && jn.Outputs[0].AsTensor != nil && countSet(&jn.Outputs[0]) == 1:
		name = jn.Outputs[0].AsTensor.Name
	case len(jn.Outputs) != 0:
		return loadErrorf("%s: call_torchbind's node has one tensor output or none", where)
	case name == "":
		name = "call_torchbind"
	}
	if err := l.checkName(name); err != nil {
		return loadErrorf("%s: %v", where, err)
	}
	n := l.g.CreateNode(fx.OpCallFunction, hop.CallTorchbindOp, args, nil, name)
	if n.Name != name {
		return loadErrorf("%s: %q is not a usable node name", where, name)
	}
	if len(jn.Outputs) == 0 {
		return nil // not in byName: nothing reads its result
	}
	meta, _, err := l.tensorMeta(name, false)
	if err != nil {
		return err
	}
	n.Meta[fx.MetaVal] = meta
	l.byName[name] = n
	return nil
}

// loadObjects rebuilds the lifted custom objects from their pickle states
// with their registered classes' __setstate__ (see Save).
func (l *loader) loadObjects(data []byte) error {
	ep := l.ep
	ep.CustomObjs = map[string]tensor.ScriptObject{}
	var specs []InputSpec
	for _, s := range ep.GraphSignature.InputSpecs {
		if s.Kind == CustomObj {
			specs = append(specs, s)
		}
	}
	if data == nil {
		if len(specs) > 0 {
			return loadErrorf("the archive has no %s for custom object %s", objectsPath, specs[0].Target)
		}
		return nil
	}
	f, err := safetensors.Parse(data)
	if err != nil {
		return loadErrorf("%s: %v", objectsPath, err)
	}
	states := map[string]map[string]*tensor.Tensor{}
	for _, name := range f.Names {
		obj, key, ok := strings.Cut(name, "/")
		if !ok {
			return loadErrorf("%s: tensor %q is not named <object>/<state>", objectsPath, clip([]byte(name)))
		}
		if states[obj] == nil {
			states[obj] = map[string]*tensor.Tensor{}
		}
		states[obj][key] = f.Tensors[name]
	}
	for _, s := range specs {
		a, _ := s.Arg.(CustomObjArgument)
		st, ok := states[s.Target]
		if !ok {
			st = map[string]*tensor.Tensor{}
		}
		delete(states, s.Target)
		rest, _ := strings.CutPrefix(a.ClassFQN, tensor.ClassPrefix)
		ns, name, _ := strings.Cut(rest, ".")
		cls, found := torchbind.Lookup(ns + "::" + name)
		if !found {
			return loadErrorf("Tried to instantiate class '%s.%s', but it does not exist! Ensure that it is registered via torchbind.Register (custom object %s); import the package that registers it before loading.", ns, name, s.Target)
		}
		if !cls.HasMethod("__setstate__") {
			return loadErrorf("class %s does not define __setstate__: custom object %s cannot be rebuilt", a.ClassFQN, s.Target)
		}
		obj, err := setState(cls, st)
		if err != nil {
			return loadErrorf("custom object %s: %s.__setstate__: %v", s.Target, a.ClassFQN, err)
		}
		ep.CustomObjs[s.Target] = obj
	}
	for obj := range states {
		return loadErrorf("%s holds the state of %q, which no custom object input stands for", objectsPath, clip([]byte(obj)))
	}
	return nil
}

// setState calls a class's __setstate__, a panic of it (on a state it does
// not expect) becoming the error.
func setState(cls *torchbind.Class, st map[string]*tensor.Tensor) (obj *torchbind.Object, err error) {
	defer func() {
		if r := recover(); r != nil {
			obj = nil
			if e := tensor.Caught(r); e != nil {
				err = e
			} else {
				err = fmt.Errorf("%v", r)
			}
		}
	}()
	return cls.SetState(st), nil
}

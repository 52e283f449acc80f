package fx

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/goaten/goaten/tensor"
)

// CodeOptions choose between the PyTorch versions whose gm.code goaten can
// reproduce. The zero value prints as PyTorch 1.13.
type CodeOptions struct {
	// FreeUnused also frees, right after it runs, a node whose value nobody
	// uses (`copy_ = ...;  a_1 = b = copy_ = None`), as PyTorch 2.x's
	// delete_unused_values does. PyTorch 1.13 leaves such values alone.
	FreeUnused bool
}

// PythonCode returns the source of the forward function the graph stands
// for, exactly as FX's Graph.python_code(root_module="self").src: it starts
// with "\n\n\ndef forward(self, ...):\n" and, since every body line is
// indented after a final newline, ends with "\n    ".
func (g *Graph) PythonCode(opts CodeOptions) string {
	c := &codegen{g: g, opts: opts, ns: newNamespace()}
	return c.run()
}

type codegen struct {
	g    *Graph
	opts CodeOptions
	ns   *namespace
	body strings.Builder
}

// name is the node's identifier in the generated code: FX re-creates every
// name in a fresh namespace that already holds its custom builtins, so a
// node's name only changes there if it could not be a Python identifier.
func (c *codegen) name(n *Node) string { return c.ns.create(n.Name, n) }

func (c *codegen) run() string {
	for _, b := range customBuiltinOrder {
		c.ns.create(b, builtinName(b))
	}
	nodes := c.g.Nodes()
	// The last use of each node: walking backwards, the first user met. A
	// user's list keeps the order its arguments name the nodes.
	lastUses := map[*Node][]*Node{}
	counted := map[*Node]bool{}
	for i := len(nodes) - 1; i >= 0; i-- {
		user := nodes[i]
		register := func(x *Node) {
			if !counted[x] {
				counted[x] = true
				lastUses[user] = append(lastUses[user], x)
			}
		}
		ForEachNode(user.args, register)
		ForEachNode(user.kwargs, register)
	}

	var freeVars []string
	for _, n := range nodes {
		switch n.Op {
		case OpPlaceholder:
			target := n.Target.(string)
			v := target
			if len(n.args) > 0 {
				v += " = " + c.repr(n.args[0])
			}
			freeVars = append(freeVars, v)
			raw := strings.ReplaceAll(target, "*", "")
			if name := c.name(n); raw != name {
				c.body.WriteString(name + " = " + raw + "\n")
			}
			continue // placeholders free nothing
		case OpGetAttr:
			c.body.WriteString(c.name(n) + " = " + formatTarget("self", n.Target.(string)))
		case OpCallFunction:
			c.body.WriteString(c.name(n) + " = " + c.call(n))
		case OpOutput:
			c.body.WriteString("return " + c.repr(n.args[0]) + "\n")
			continue // the output frees nothing
		}
		free := lastUses[n]
		if c.opts.FreeUnused && len(n.users) == 0 {
			free = append(append([]*Node(nil), free...), n)
		}
		if len(free) == 0 {
			c.body.WriteString("\n")
			continue
		}
		c.body.WriteString(";  ")
		for _, x := range free {
			c.body.WriteString(c.name(x) + " = ")
		}
		c.body.WriteString("None\n")
	}
	body := c.body.String()
	if body == "" {
		body = "pass\n"
	}
	lines := strings.Split(body, "\n")
	for i := range lines {
		lines[i] = "    " + lines[i]
	}
	return "\n\n\ndef forward(" + strings.Join(append([]string{"self"}, freeVars...), ", ") + "):\n" +
		strings.Join(lines, "\n")
}

// call prints a call_function node's right-hand side.
func (c *codegen) call(n *Node) string {
	if f, ok := n.Target.(CallFormatter); ok && len(n.kwargs) == 0 {
		args := make([]string, len(n.args))
		for i, a := range n.args {
			args[i] = c.repr(a)
		}
		if s, ok := f.FormatCall(args); ok {
			return s
		}
	}
	parts := make([]string, 0, len(n.args)+len(n.kwargs))
	for _, a := range n.args {
		parts = append(parts, c.repr(a))
	}
	for _, kw := range n.kwargs {
		parts = append(parts, kw.Name+" = "+c.repr(kw.Value))
	}
	return qualifiedName(n.Target) + "(" + strings.Join(parts, ", ") + ")"
}

// qualifiedName is how code refers to a callable: torch.ops.aten.add.Tensor,
// torch.ops.aten.sigmoid.default, or the Target's own name.
func qualifiedName(t any) string {
	switch v := t.(type) {
	case *tensor.Op:
		if v == nil || v.Schema == nil {
			return "<unknown>"
		}
		return OpQualifiedName(v)
	case Target:
		return v.QualifiedName()
	}
	return "<unknown>"
}

// OpQualifiedName is the Python expression of an op overload:
// "torch.ops.aten.add.Tensor", "torch.ops.aten.sigmoid.default".
func OpQualifiedName(op *tensor.Op) string {
	s := op.Schema
	ov := s.Overload
	if ov == "" {
		ov = "default"
	}
	return "torch.ops." + s.Namespace + "." + s.Name + "." + ov
}

// formatTarget is FX's _format_target: "self.a.b", with getattr(...) for a
// part that is not an identifier.
func formatTarget(base, target string) string {
	r := base
	for _, e := range strings.Split(target, ".") {
		if !isIdentifier(e) {
			r = "getattr(" + r + ", \"" + e + "\")"
		} else {
			r += "." + e
		}
	}
	return r
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || unicode.IsLetter(r) || i > 0 && (unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) || unicode.Is(unicode.Pc, r)) {
			continue
		}
		return false
	}
	return true
}

// repr prints an argument as Python's repr would in FX's generated code.
func (c *codegen) repr(a any) string {
	if n, ok := a.(*Node); ok && n != nil {
		return c.name(n)
	}
	return reprWith(a, c.repr)
}

// Repr prints an argument the way FX's generated code does (nodes by name):
// None, True, 2, 0.7071067811865476, 1e-05, inf, 'moo', [-1], (x_1,),
// torch.float32, device(type='cpu'), torch.contiguous_format,
// torch.ops.aten.add.Tensor.
func Repr(a any) string {
	var r func(any) string
	r = func(a any) string {
		if n, ok := a.(*Node); ok && n != nil {
			return n.Name
		}
		return reprWith(a, r)
	}
	return r(a)
}

func reprWith(a any, elem func(any) string) string {
	switch v := a.(type) {
	case nil:
		return "None"
	case *Node:
		return "None" // a nil *Node
	case bool:
		if v {
			return "True"
		}
		return "False"
	case int:
		return strconv.Itoa(v)
	case int8, int16, int32, int64:
		return strconv.FormatInt(reflect.ValueOf(v).Int(), 10)
	case uint8, uint16, uint32, uint64:
		return strconv.FormatUint(reflect.ValueOf(v).Uint(), 10)
	case float64:
		return PyFloat(v)
	case float32:
		return PyFloat(float64(v))
	case tensor.Scalar:
		switch {
		case v.IsBool():
			return reprWith(v.Bool(), elem)
		case v.IsFloat():
			return PyFloat(v.Float64())
		}
		return strconv.FormatInt(v.Int64(), 10)
	case string:
		return PyStr(v)
	case tensor.DType:
		return "torch." + v.String()
	case tensor.Device:
		return "device(type=" + PyStr(v.String()) + ")"
	case tensor.MemoryFormat:
		return "torch." + v.String()
	case tensor.Layout:
		return "torch." + v.String()
	case *tensor.Op:
		if v == nil {
			return "None"
		}
		return OpQualifiedName(v)
	case Target:
		return v.QualifiedName()
	case Tuple:
		if len(v) == 1 {
			return "(" + elem(v[0]) + ",)"
		}
		return "(" + joinRepr(v, elem) + ")"
	case []any:
		return "[" + joinRepr(v, elem) + "]"
	}
	rv := reflect.ValueOf(a)
	if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
		items := make([]any, rv.Len())
		for i := range items {
			items[i] = rv.Index(i).Interface()
		}
		return "[" + joinRepr(items, elem) + "]"
	}
	return "<" + reflect.TypeOf(a).String() + ">"
}

func joinRepr(items []any, elem func(any) string) string {
	parts := make([]string, len(items))
	for i, x := range items {
		parts[i] = elem(x)
	}
	return strings.Join(parts, ", ")
}

// PyFloat is Python's repr of a float: the shortest digits that read back
// the same value, in positional form when the decimal exponent is in
// [-4, 16) ("0.5", "2.0", "1e+16", "1e-05"), and inf, -inf, nan.
func PyFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	i := strings.LastIndexByte(e, 'e')
	exp, _ := strconv.Atoi(e[i+1:])
	// Python switches to exponent form when the decimal point position
	// (exp+1) is below -3 or above 16.
	if exp < -4 || exp >= 16 {
		return e
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// PyStr is Python's repr of a str: single quotes unless the string holds a
// single quote and no double quote; backslash escapes for the quote, the
// backslash, \t \n \r and unprintable characters.
func PyStr(s string) string {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\udc`)
			b.WriteString(strconv.FormatUint(uint64(s[i-1]), 16))
		case r < ' ' || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteString(hex2(uint64(r)))
		case r < 0x80 || unicode.IsPrint(r):
			b.WriteRune(r)
		case r <= 0xff:
			b.WriteString(`\x` + hex2(uint64(r)))
		case r <= 0xffff:
			b.WriteString(`\u` + pad(strconv.FormatUint(uint64(r), 16), 4))
		default:
			b.WriteString(`\U` + pad(strconv.FormatUint(uint64(r), 16), 8))
		}
	}
	b.WriteByte(q)
	return b.String()
}

func hex2(v uint64) string { return pad(strconv.FormatUint(v, 16), 2) }

func pad(s string, n int) string {
	for len(s) < n {
		s = "0" + s
	}
	return s
}

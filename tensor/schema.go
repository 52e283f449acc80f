package tensor

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// TypeKind is the base kind of a schema type.
type TypeKind uint8

// Schema type kinds.
const (
	TTensor TypeKind = iota
	TInt             // int and SymInt
	TFloat
	TBool // bool and SymBool
	TStr
	TScalar
	TScalarType
	TLayout
	TDevice
	TMemoryFormat
	TGenerator
	TDimname
	TOther // Storage, Stream, Any, ...: accepted, passed through
	TList
	TOptional
	TClass // a custom class (TorchBind): __torch__.torch.classes.ns.Name
)

// Alias is an alias annotation such as (a!) or (a -> *).
type Alias struct {
	Set   string // "a"
	Write bool   // "!"
	After string // the set after "->", e.g. "*"
}

// Type is a parsed schema type.
type Type struct {
	Kind  TypeKind
	Name  string // base name as written: "Tensor", "SymInt", "int", ...
	Elem  *Type  // for TList and TOptional
	Size  int    // fixed list size (int[2]); 0 when unsized
	Alias *Alias
}

func (t *Type) String() string {
	switch t.Kind {
	case TList:
		if t.Size > 0 {
			return fmt.Sprintf("%s[%d]", t.Elem, t.Size)
		}
		return t.Elem.String() + "[]"
	case TOptional:
		return t.Elem.String() + "?"
	}
	if t.Alias != nil {
		a := t.Alias.Set
		if t.Alias.Write {
			a += "!"
		}
		if t.Alias.After != "" {
			a += " -> " + t.Alias.After
		}
		return t.Name + "(" + a + ")"
	}
	return t.Name
}

// Base strips Optional wrappers.
func (t *Type) Base() *Type {
	for t.Kind == TOptional {
		t = t.Elem
	}
	return t
}

// IsTensorLike reports whether the type holds tensors (Tensor, Tensor?, Tensor[], Tensor?[]).
func (t *Type) IsTensorLike() bool {
	b := t.Base()
	if b.Kind == TList {
		b = b.Elem.Base()
	}
	return b.Kind == TTensor
}

// Argument is one parameter of a schema.
type Argument struct {
	Name       string
	Type       *Type
	HasDefault bool
	Default    any // decoded default (see parseDefault); nil means None
	DefaultStr string
	KwargOnly  bool
}

// Return is one result of a schema.
type Return struct {
	Name string
	Type *Type
}

// Schema is a parsed PyTorch function schema.
type Schema struct {
	Namespace string // "aten"
	Name      string // "add"
	Overload  string // "Tensor"; "" for default
	Args      []Argument
	Returns   []Return
	text      string
}

// QualifiedName is "aten::add.Tensor", or "aten::add" for the default overload.
func (s *Schema) QualifiedName() string {
	n := s.Namespace + "::" + s.Name
	if s.Overload != "" {
		n += "." + s.Overload
	}
	return n
}

func (s *Schema) String() string { return s.text }

// IsInplace reports whether the op writes into self (its first argument is Tensor(a!)).
func (s *Schema) IsInplace() bool {
	return len(s.Args) > 0 && s.Args[0].Type.Alias != nil && s.Args[0].Type.Alias.Write && !s.Args[0].KwargOnly
}

// IsOut reports whether the op has a kwarg-only mutable out= argument.
func (s *Schema) IsOut() bool {
	for _, a := range s.Args {
		if a.KwargOnly && a.Type.Alias != nil && a.Type.Alias.Write {
			return true
		}
	}
	return false
}

// IsView reports whether a return aliases an input without writing it.
func (s *Schema) IsView() bool {
	for _, r := range s.Returns {
		t := r.Type
		if t.Kind == TList {
			t = t.Elem
		}
		if t.Alias != nil && !t.Alias.Write {
			return true
		}
	}
	return false
}

// Mutates lists the indices of arguments the op writes to.
func (s *Schema) Mutates() []int {
	var out []int
	for i, a := range s.Args {
		t := a.Type.Base()
		if t.Kind == TList {
			t = t.Elem.Base()
		}
		if t.Alias != nil && t.Alias.Write {
			out = append(out, i)
		}
	}
	return out
}

// IsRandom reports whether the op draws random numbers, as PyTorch's
// nondeterministic_seeded tag says: it takes a Generator, or its name, less
// leading and trailing underscores (private and in-place variants), starts
// with "rand" (rand, randn, randint, randperm, rand_like, random_), contains
// "dropout" (dropout, native_dropout, alpha_dropout, feature_dropout; not
// the *_backward ops, which replay a mask), or is one of bernoulli, normal,
// uniform, exponential, multinomial, cauchy, log_normal, geometric, poisson,
// binomial, standard_gamma, sample_dirichlet, rrelu, rrelu_with_noise. The
// rule reads only the schema, so it holds for every namespace. Such an op
// changes the generator's state, so graph passes neither drop, merge nor
// precompute its calls.
func (s *Schema) IsRandom() bool {
	for _, a := range s.Args {
		if a.Type.Base().Kind == TGenerator {
			return true
		}
	}
	name := strings.Trim(s.Name, "_")
	switch {
	case strings.HasPrefix(name, "rand"):
		return true
	case strings.Contains(name, "dropout"):
		return !strings.HasSuffix(name, "_backward")
	}
	switch name {
	case "bernoulli", "normal", "uniform", "exponential", "multinomial", "cauchy", "log_normal",
		"geometric", "poisson", "binomial", "standard_gamma", "sample_dirichlet", "rrelu", "rrelu_with_noise":
		return true
	}
	return false
}

// ArgIndex returns the index of the named argument, or -1.
func (s *Schema) ArgIndex(name string) int {
	for i, a := range s.Args {
		if a.Name == name {
			return i
		}
	}
	return -1
}

// ParseSchema parses a schema string such as
// "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor".
// A missing namespace means "aten".
func ParseSchema(text string) (*Schema, error) {
	p := &schemaParser{s: text}
	s, err := p.schema()
	if err != nil {
		return nil, fmt.Errorf("schema %q: %w", text, err)
	}
	s.text = text
	if !strings.Contains(text, "::") {
		s.text = "aten::" + text
	}
	return s, nil
}

// MustParseSchema is ParseSchema that panics on error.
func MustParseSchema(text string) *Schema {
	s, err := ParseSchema(text)
	if err != nil {
		panic(err)
	}
	return s
}

type schemaParser struct {
	s   string
	pos int
}

func (p *schemaParser) ws() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t' || p.s[p.pos] == '\n') {
		p.pos++
	}
}

func (p *schemaParser) peek() byte {
	p.ws()
	if p.pos >= len(p.s) {
		return 0
	}
	return p.s[p.pos]
}

func (p *schemaParser) accept(tok string) bool {
	p.ws()
	if strings.HasPrefix(p.s[p.pos:], tok) {
		p.pos += len(tok)
		return true
	}
	return false
}

func (p *schemaParser) expect(tok string) error {
	if !p.accept(tok) {
		return fmt.Errorf("expected %q at offset %d", tok, p.pos)
	}
	return nil
}

func isIdent(c byte, first bool) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9')
}

func (p *schemaParser) ident() (string, error) {
	p.ws()
	start := p.pos
	for p.pos < len(p.s) && isIdent(p.s[p.pos], p.pos == start) {
		p.pos++
	}
	if start == p.pos {
		return "", fmt.Errorf("expected a name at offset %d", p.pos)
	}
	return p.s[start:p.pos], nil
}

func (p *schemaParser) schema() (*Schema, error) {
	s := &Schema{Namespace: "aten"}
	name, err := p.ident()
	if err != nil {
		return nil, err
	}
	if p.accept("::") {
		s.Namespace = name
		if name, err = p.ident(); err != nil {
			return nil, err
		}
	}
	s.Name = name
	if p.peek() == '.' {
		p.pos++
		if s.Overload, err = p.ident(); err != nil {
			return nil, err
		}
	}
	if err := p.expect("("); err != nil {
		return nil, err
	}
	kwOnly := false
	for p.peek() != ')' {
		if len(s.Args) > 0 || kwOnly {
			if err := p.expect(","); err != nil {
				return nil, err
			}
		}
		if p.accept("*") {
			kwOnly = true
			continue
		}
		a, err := p.argument()
		if err != nil {
			return nil, err
		}
		a.KwargOnly = kwOnly
		s.Args = append(s.Args, *a)
	}
	p.pos++
	if err := p.expect("->"); err != nil {
		return nil, err
	}
	if p.peek() == '(' {
		p.pos++
		for p.peek() != ')' {
			if len(s.Returns) > 0 {
				if err := p.expect(","); err != nil {
					return nil, err
				}
			}
			r, err := p.ret()
			if err != nil {
				return nil, err
			}
			s.Returns = append(s.Returns, r)
		}
		p.pos++
	} else {
		t, err := p.typ()
		if err != nil {
			return nil, err
		}
		s.Returns = append(s.Returns, Return{Type: t})
	}
	if p.peek() != 0 {
		return nil, fmt.Errorf("trailing text at offset %d", p.pos)
	}
	return s, nil
}

func (p *schemaParser) ret() (Return, error) {
	t, err := p.typ()
	if err != nil {
		return Return{}, err
	}
	r := Return{Type: t}
	if c := p.peek(); isIdent(c, true) {
		r.Name, _ = p.ident()
	}
	return r, nil
}

var baseKinds = map[string]TypeKind{
	"Tensor": TTensor, "int": TInt, "SymInt": TInt, "float": TFloat, "bool": TBool, "SymBool": TBool,
	"str": TStr, "Scalar": TScalar, "ScalarType": TScalarType, "Layout": TLayout, "Device": TDevice,
	"MemoryFormat": TMemoryFormat, "Generator": TGenerator, "Dimname": TDimname,
}

// types interns parsed types by their text: a Type is never modified once
// parsed, and the registry's schemas share a few hundred distinct ones
// among thousands of arguments. Every garbage collection marks the
// registry, so its objects cost every program that allocates (issue 25).
var types struct {
	sync.Mutex
	m map[string]*Type
}

// typ parses a type, returning the interned one for its text.
func (p *schemaParser) typ() (*Type, error) {
	p.ws()
	start := p.pos
	t, err := p.parseType()
	if err != nil {
		return nil, err
	}
	key := strings.TrimRight(p.s[start:p.pos], " \t\n")
	types.Lock()
	defer types.Unlock()
	if u, ok := types.m[key]; ok {
		return u, nil
	}
	if types.m == nil {
		types.m = map[string]*Type{}
	}
	types.m[strings.Clone(key)] = t
	return t, nil
}

func (p *schemaParser) parseType() (*Type, error) {
	name, err := p.ident()
	if err != nil {
		return nil, err
	}
	k, ok := baseKinds[name]
	if !ok {
		k = TOther
	}
	if name == "__torch__" {
		// A custom class type: its qualified name is dotted.
		for p.peek() == '.' {
			p.pos++
			part, err := p.ident()
			if err != nil {
				return nil, err
			}
			name += "." + part
		}
		if !strings.HasPrefix(name, ClassPrefix) || strings.Count(name, ".") != 4 {
			return nil, fmt.Errorf("bad custom class type %q", name)
		}
		k = TClass
	}
	t := &Type{Kind: k, Name: name}
	if p.peek() == '(' {
		p.pos++
		a := &Alias{}
		if a.Set, err = p.ident(); err != nil {
			return nil, err
		}
		// Sets like "a|b" are allowed in the grammar.
		for p.accept("|") {
			more, err := p.ident()
			if err != nil {
				return nil, err
			}
			a.Set += "|" + more
		}
		a.Write = p.accept("!")
		if p.accept("->") {
			if p.accept("*") {
				a.After = "*"
			} else if a.After, err = p.ident(); err != nil {
				return nil, err
			}
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		t.Alias = a
	}
	for {
		switch p.peek() {
		case '?':
			p.pos++
			t = &Type{Kind: TOptional, Elem: t}
			continue
		case '[':
			p.pos++
			n := 0
			p.ws()
			start := p.pos
			for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
				p.pos++
			}
			if p.pos > start {
				n, _ = strconv.Atoi(p.s[start:p.pos])
			}
			if err := p.expect("]"); err != nil {
				return nil, err
			}
			t = &Type{Kind: TList, Elem: t, Size: n}
			// A list may carry its own alias annotation: Tensor(a)[] is written
			// with the alias on the element; keep it there.
			continue
		}
		break
	}
	return t, nil
}

func (p *schemaParser) argument() (*Argument, error) {
	t, err := p.typ()
	if err != nil {
		return nil, err
	}
	name, err := p.ident()
	if err != nil {
		return nil, err
	}
	a := &Argument{Name: name, Type: t}
	if p.accept("=") {
		p.ws()
		start := p.pos
		depth := 0
		inStr := byte(0)
		for p.pos < len(p.s) {
			c := p.s[p.pos]
			if inStr != 0 {
				if c == inStr {
					inStr = 0
				}
				p.pos++
				continue
			}
			if c == '\'' || c == '"' {
				inStr = c
			} else if c == '[' || c == '(' {
				depth++
			} else if c == ']' || c == ')' {
				if depth == 0 {
					break
				}
				depth--
			} else if c == ',' && depth == 0 {
				break
			}
			p.pos++
		}
		a.DefaultStr = strings.TrimSpace(p.s[start:p.pos])
		a.HasDefault = true
		if a.Default, err = parseDefault(a.DefaultStr, t); err != nil {
			return nil, fmt.Errorf("argument %s: %w", name, err)
		}
	}
	return a, nil
}

// parseDefault decodes a default value into the canonical Go value for its type.
func parseDefault(s string, t *Type) (any, error) {
	if s == "None" {
		return nil, nil
	}
	b := t.Base()
	switch b.Kind {
	case TList:
		var items []string
		if strings.HasPrefix(s, "[") {
			inner := strings.TrimSpace(s[1 : len(s)-1])
			if inner != "" {
				for _, x := range strings.Split(inner, ",") {
					items = append(items, strings.TrimSpace(x))
				}
			}
		} else {
			// int[2] padding=0 means [0, 0].
			n := max(b.Size, 1)
			for i := 0; i < n; i++ {
				items = append(items, s)
			}
		}
		switch b.Elem.Base().Kind {
		case TInt:
			out := make([]int, len(items))
			for i, x := range items {
				v, err := strconv.Atoi(x)
				if err != nil {
					return nil, err
				}
				out[i] = v
			}
			return out, nil
		case TFloat:
			out := make([]float64, len(items))
			for i, x := range items {
				v, err := strconv.ParseFloat(x, 64)
				if err != nil {
					return nil, err
				}
				out[i] = v
			}
			return out, nil
		case TBool:
			out := make([]bool, len(items))
			for i, x := range items {
				out[i] = x == "True"
			}
			return out, nil
		case TTensor:
			return []*Tensor{}, nil
		}
		return nil, fmt.Errorf("unsupported list default %q", s)
	case TInt:
		v, err := strconv.Atoi(s)
		return v, err
	case TFloat:
		return strconv.ParseFloat(s, 64)
	case TBool:
		return s == "True", nil
	case TStr:
		if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') {
			return s[1 : len(s)-1], nil
		}
		return s, nil
	case TScalar:
		if strings.ContainsAny(s, ".e") {
			f, err := strconv.ParseFloat(s, 64)
			return Float(f), err
		}
		if s == "True" || s == "False" {
			return BoolScalar(s == "True"), nil
		}
		v, err := strconv.ParseInt(s, 10, 64)
		return Int(v), err
	case TScalarType:
		if n, err := strconv.Atoi(s); err == nil {
			// c10::ScalarType numbering, as old schemas print it.
			if d, ok := scalarTypeNumbers[n]; ok {
				return d, nil
			}
		}
		d, ok := ParseDType(s)
		if !ok {
			return nil, fmt.Errorf("unknown dtype default %q", s)
		}
		return d, nil
	case TMemoryFormat:
		switch s {
		case "contiguous_format":
			return ContiguousFormat, nil
		case "preserve_format":
			return PreserveFormat, nil
		case "channels_last":
			return ChannelsLast, nil
		}
		return nil, fmt.Errorf("unknown memory format %q", s)
	case TLayout:
		return Strided, nil
	case TDevice:
		return CPU, nil
	case TTensor:
		return nil, fmt.Errorf("tensor default %q", s)
	}
	return s, nil
}

var scalarTypeNumbers = map[int]DType{0: Uint8, 1: Int8, 2: Int16, 3: Int32, 4: Int64, 5: Float16, 6: Float32, 7: Float64, 11: Bool, 15: BFloat16}

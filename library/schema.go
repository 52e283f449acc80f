package library

import (
	"fmt"
	"strings"

	"github.com/goaten/goaten/tensor"
)

// This file checks a schema string against PyTorch's grammar (the JIT lexer,
// torch/csrc/jit/frontend/function_schema_parser.cpp and
// schema_type_parser.cpp) before package tensor parses it, so that a
// malformed schema fails with PyTorch's message, which points at the
// offending token:
//
//	expected ) but found 'arrow' here:
//	foo(Tensor x, Tensor y -> Tensor
//	                       ~~ <--- HERE
//
// It only checks: the parsed schema is package tensor's.

// Token kinds: single characters are themselves; the others follow.
const (
	tkEOF = 256 + iota
	tkNumber
	tkIdent
	tkString
	tkArrow
	tkDots
	tkTrue
	tkFalse
	tkNone
	tkOther // another keyword or operator: its text is its kind's name
)

type token struct {
	kind       int
	start, end int
	text       string // the source text; for tkOther the kind's name
}

func kindName(kind int) string {
	switch kind {
	case tkEOF:
		return "eof"
	case tkNumber:
		return "number"
	case tkIdent:
		return "ident"
	case tkString:
		return "string_literal"
	case tkArrow:
		return "arrow"
	case tkDots:
		return "dots"
	case tkTrue:
		return "True"
	case tkFalse:
		return "False"
	case tkNone:
		return "None"
	}
	return string(rune(kind))
}

func (t token) kindString() string {
	if t.kind == tkOther {
		return t.text
	}
	return kindName(t.kind)
}

// keywords are the identifiers the JIT lexer reads as keywords.
var keywords = func() map[string]int {
	m := map[string]int{"True": tkTrue, "False": tkFalse, "None": tkNone}
	for _, k := range strings.Fields("def if else elif while return is and or not global for in raise assert break continue del pass class import with as Ellipsis NoneType") {
		m[k] = tkOther
	}
	return m
}()

// operators are the JIT lexer's multi-character operators and their names,
// longest first.
var operators = []struct{ text, name string }{
	{"<=>", "equivalent"}, {"**=", "**="}, {"<<=", "<<="}, {">>=", ">>="}, {"...", ""},
	{"->", ""}, {"**", "pow operator"}, {"*=", "*="}, {"//", "floordiv"}, {"/=", "/="},
	{"==", "eq"}, {"!=", "ne"}, {"<=", "le"}, {">=", "ge"}, {"<<", "<<"}, {">>", ">>"},
	{"+=", "+="}, {"-=", "-="}, {"%=", "%="}, {"&=", "&="}, {"^=", "^="}, {"|=", "|="},
}

const singleCharTokens = "+-*/%@()[]:,={}><.?!&^|~"

// schemaError is what the checker panics with; check recovers it.
type schemaError struct{ msg string }

type lexer struct {
	src       string
	pos       int
	cur, next *token
}

func newLexer(src string) *lexer {
	l := &lexer{src: src}
	t := l.lex()
	l.cur = &t
	return l
}

func (l *lexer) fail(msg string) { panic(schemaError{msg}) }

// expected is Lexer::expected: "expected X but found 'Y' here:" and the
// highlighted token.
func (l *lexer) expected(what string, t token) {
	l.fail(fmt.Sprintf("expected %s but found '%s' here:\n", what, t.kindString()) + highlight(l.src, t.start, t.end))
}

// report is an ErrorReport on a range: "\n" + message + ":\n" + highlight.
func (l *lexer) report(start, end int, msg string) {
	l.fail("\n" + msg + ":\n" + highlight(l.src, start, end))
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentChar(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || isDigit(c)
}

// numberLen is how much of s strtod reads as a number (0 if none), as the
// JIT lexer's isNumber: no sign, no leading letter.
func numberLen(s string) int {
	if s == "" || s[0] == '-' || s[0] == '+' {
		return 0
	}
	i := 0
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		j := 2
		for j < len(s) && strings.IndexByte("0123456789abcdefABCDEF", s[j]) >= 0 {
			j++
		}
		if j > 2 {
			return j
		}
	}
	digits := 0
	for i < len(s) && isDigit(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			i = j
		}
	}
	if i < len(s) && s[i] == 'j' {
		i++
	}
	return i
}

// stringLen is the length of a string literal at the start of s (0 if
// none): single, double or triple quotes, backslash escapes.
func stringLen(s string) int {
	if s == "" || (s[0] != '\'' && s[0] != '"') {
		return 0
	}
	q := s[:1]
	if strings.HasPrefix(s, strings.Repeat(q, 3)) {
		q = s[:3]
	}
	for i := len(q); i < len(s); i++ {
		switch {
		case s[i] == '\\':
			i++
		case strings.HasPrefix(s[i:], q):
			return i + len(q)
		case s[i] == '\n' && len(q) == 1:
			return 0
		}
	}
	return 0
}

func (l *lexer) lex() token {
	s := l.src
	for l.pos < len(s) {
		c := s[l.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			// Newlines are whitespace here: a schema is one declaration.
			l.pos++
			continue
		case c == '\\' && l.pos+1 < len(s) && s[l.pos+1] == '\n':
			l.pos += 2
			continue
		case c == '#':
			for l.pos < len(s) && s[l.pos] != '\n' {
				l.pos++
			}
			continue
		}
		break
	}
	start := l.pos
	if start >= len(s) {
		return token{kind: tkEOF, start: start, end: start}
	}
	rest := s[start:]
	if !(rest[0] >= 'a' && rest[0] <= 'z' || rest[0] >= 'A' && rest[0] <= 'Z') {
		if n := numberLen(rest); n > 0 {
			l.pos += n
			return token{kind: tkNumber, start: start, end: l.pos, text: rest[:n]}
		}
	}
	if n := stringLen(rest); n > 0 {
		l.pos += n
		return token{kind: tkString, start: start, end: l.pos, text: rest[:n]}
	}
	if isIdentChar(rest[0]) && !isDigit(rest[0]) {
		n := 1
		for n < len(rest) && isIdentChar(rest[n]) {
			n++
		}
		l.pos += n
		word := rest[:n]
		if k, ok := keywords[word]; ok {
			return token{kind: k, start: start, end: l.pos, text: word}
		}
		return token{kind: tkIdent, start: start, end: l.pos, text: word}
	}
	for _, op := range operators {
		if strings.HasPrefix(rest, op.text) {
			l.pos += len(op.text)
			t := token{kind: tkOther, start: start, end: l.pos, text: op.name}
			switch op.text {
			case "->":
				t.kind, t.text = tkArrow, op.text
			case "...":
				t.kind, t.text = tkDots, op.text
			}
			return t
		}
	}
	if strings.IndexByte(singleCharTokens, rest[0]) >= 0 {
		l.pos++
		return token{kind: int(rest[0]), start: start, end: l.pos, text: rest[:1]}
	}
	l.expected("a valid token", token{kind: int(rest[0]), start: start, end: start + 1})
	return token{}
}

func (l *lexer) peek() token { return *l.cur }

func (l *lexer) lookahead() token {
	if l.next == nil {
		t := l.lex()
		l.next = &t
	}
	return *l.next
}

func (l *lexer) advance() token {
	r := *l.cur
	if l.next != nil {
		l.cur, l.next = l.next, nil
	} else {
		t := l.lex()
		l.cur = &t
	}
	return r
}

func (l *lexer) nextIf(kind int) bool {
	if l.cur.kind != kind {
		return false
	}
	l.advance()
	return true
}

func (l *lexer) expect(kind int) token {
	if l.cur.kind != kind {
		l.expected(kindName(kind), *l.cur)
	}
	return l.advance()
}

// highlight is SourceRange::print_with_context with highlighting, for a
// source with no file name: up to 3 lines of context around the lines of
// [start, end), each highlighted line followed by a line of '~' under the
// range and " <--- HERE".
func highlight(str string, start, end int) string {
	const context = 3
	if end-start == len(str) {
		return str
	}
	at := func(i int) byte { // std::string::operator[] reads '\0' at size()
		if i < len(str) {
			return str[i]
		}
		return 0
	}
	substr := func(pos, n int) string {
		if pos >= len(str) {
			return ""
		}
		return str[pos:min(len(str), pos+n)]
	}
	rangeEnd := min(end, len(str))
	beginLine, endLine := start, rangeEnd
	if beginLine > len(str) {
		return ""
	}
	for beginLine > 0 && str[beginLine-1] != '\n' {
		beginLine--
	}
	for endLine < len(str) && str[endLine] != '\n' {
		endLine++
	}
	beginContext := beginLine
	for i := 0; beginContext > 0; beginContext-- {
		if str[beginContext-1] == '\n' {
			i++
		}
		if i >= context {
			break
		}
	}
	endContext := endLine
	for i := 0; endContext < len(str); endContext++ {
		if str[endContext] == '\n' {
			i++
		}
		if i >= context {
			break
		}
	}
	var b strings.Builder
	b.WriteString(str[beginContext:start])
	lineStart, lineEnd := start, start
	for lineStart < rangeEnd {
		for lineEnd < len(str) && str[lineEnd] != '\n' {
			lineEnd++
		}
		line := substr(lineStart, lineEnd-lineStart+1)
		b.WriteString(line)
		if line == "" || line[len(line)-1] != '\n' {
			b.WriteByte('\n')
		}
		hb, he := lineStart, lineStart
		for hb > 0 && str[hb-1] != '\n' {
			hb--
		}
		for he < rangeEnd && str[he] != '\n' {
			he++
		}
		empty := 0
		for i := hb; i < he; i++ {
			if str[i] == ' ' || i < start {
				empty++
			} else {
				break
			}
		}
		if hl := he - hb - empty; hl > 0 {
			more := false
			for i := lineEnd; i <= rangeEnd; i++ {
				if c := at(i); c != '\n' && c != ' ' {
					more = true
				}
			}
			b.WriteString(strings.Repeat(" ", empty))
			b.WriteString(strings.Repeat("~", hl))
			if more && lineEnd != rangeEnd {
				b.WriteByte('\n')
			} else {
				b.WriteString(" <--- HERE\n")
			}
		}
		lineEnd++
		lineStart = lineEnd
	}
	if lineEnd <= len(str) {
		tail := substr(lineEnd, endContext-lineEnd)
		b.WriteString(tail)
		if tail != "" && tail[len(tail)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// schemaType is what the checker knows of a type: its kind as PyTorch's
// TypeKind names it, and the element of a list or optional.
type schemaType struct {
	kind string
	elem *schemaType
}

var baseTypes = map[string]string{
	"Generator": "Generator", "Dimname": "String", "ScalarType": "Int", "Layout": "Int",
	"MemoryFormat": "Int", "Storage": "Int", "QScheme": "QScheme", "Quantizer": "Quantizer",
	"ConstQuantizerPtr": "Int", "Device": "DeviceObj", "Stream": "StreamObj", "Scalar": "Number",
	"str": "String", "float": "Float", "complex": "Complex", "int": "Int", "SymInt": "SymInt",
	"SymFloat": "SymFloat", "SymBool": "SymBool", "bool": "Bool", "None": "NoneType",
	"NoneType": "NoneType", "Capsule": "Capsule", "Any": "Any", "AnyClassType": "AnyClass",
	"AnyEnumType": "AnyEnum",
}

// decl is what the checker reads of a declaration.
type decl struct {
	ns, name, overload string
	nameStart          int
	isSchema           bool // an argument list follows the name
}

type schemaChecker struct {
	l          *lexer
	argNames   []string
	hasDefault []bool
	isList     []bool
	kwOnly     []bool
}

// checkSchema checks src against PyTorch's schema grammar and returns what
// it declares, or PyTorch's parse error.
func checkSchema(src string) (d decl, err error) {
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(schemaError)
			if !ok {
				panic(r)
			}
			err = &tensor.Error{Kind: tensor.RuntimeError, Msg: se.msg}
		}
	}()
	p := &schemaChecker{l: newLexer(src)}
	d = p.declaration()
	p.l.expect(tkEOF)
	if d.isSchema {
		p.checkDefaults(src)
	}
	return d, nil
}

// checkDefaults is FunctionSchema::checkSchema: a positional argument
// without a default may not follow one with a default (lists excepted).
func (p *schemaChecker) checkDefaults(src string) {
	seen := false
	for i, n := range p.argNames {
		if p.hasDefault[i] {
			seen = true
			continue
		}
		if p.isList[i] {
			continue
		}
		if seen && !p.kwOnly[i] {
			p.l.fail(fmt.Sprintf("Non-default positional argument follows default argument. Parameter %s in %s", n, strings.TrimSpace(src)))
		}
	}
}

func (p *schemaChecker) declaration() decl {
	l := p.l
	d := p.name()
	if l.peek().kind != '(' {
		return d
	}
	d.isSchema = true
	kwOnly, vararg, varret := false, false, false
	p.list('(', ',', ')', func() {
		if vararg {
			t := l.peek()
			l.report(t.start, t.end, "... must be the last element of the argument list")
		}
		switch {
		case l.nextIf('*'):
			kwOnly = true
		case l.nextIf(tkDots):
			vararg = true
		default:
			p.argument(false, kwOnly)
		}
	})
	l.expect(tkArrow)
	switch {
	case l.nextIf(tkDots):
	case l.peek().kind == '(':
		p.list('(', ',', ')', func() {
			if varret {
				t := l.peek()
				l.report(t.start, t.end, "... must be the last element of the return list")
			}
			if l.nextIf(tkDots) {
				varret = true
			} else {
				p.argument(true, false)
			}
		})
	default:
		p.argument(true, false)
	}
	return d
}

func (p *schemaChecker) name() decl {
	l := p.l
	first := l.expect(tkIdent)
	d := decl{name: first.text, nameStart: first.start}
	if l.nextIf(':') {
		l.expect(':')
		d.ns = d.name
		d.name = l.expect(tkIdent).text
	}
	if l.nextIf('.') {
		d.overload = l.expect(tkIdent).text
		// torch.ops.ns.name.default is the overload named "", and dunder
		// names are Python's.
		if d.overload == "default" || strings.HasPrefix(d.overload, "__") {
			l.fail(d.overload + " is not a legal overload name for aten operators")
		}
	}
	return d
}

func (p *schemaChecker) list(begin, sep, end int, each func()) {
	l := p.l
	if begin != 0 {
		l.expect(begin)
	}
	if end == 0 || l.peek().kind != end {
		for {
			each()
			if !l.nextIf(sep) {
				break
			}
		}
	}
	if end != 0 {
		l.expect(end)
	}
}

func (p *schemaChecker) argument(isReturn, kwOnly bool) {
	l := p.l
	t := p.typ()
	n := 0
	isList := t.kind == "List"
	if l.nextIf('[') {
		t = &schemaType{kind: "List", elem: t}
		isList = true
		l.expect(tkNumber)
		n = 1
		l.expect(']')
		p.aliasAnnotation()
		if l.nextIf('?') {
			t = &schemaType{kind: "Optional", elem: t}
		}
	}
	if isReturn {
		if l.peek().kind == tkIdent {
			l.advance()
		}
		return
	}
	name := l.expect(tkIdent).text
	hasDefault := false
	if l.nextIf('=') {
		hasDefault = true
		p.defaultValue(t, n > 0)
	}
	p.argNames = append(p.argNames, name)
	p.hasDefault = append(p.hasDefault, hasDefault)
	p.isList = append(p.isList, isList)
	p.kwOnly = append(p.kwOnly, kwOnly)
}

func (p *schemaChecker) typ() *schemaType {
	l := p.l
	cur := l.peek()
	var t *schemaType
	switch {
	case cur.kind == '(':
		p.list('(', ',', ')', func() { p.typ() })
		t = &schemaType{kind: "Tuple"}
	case cur.kind == tkIdent && (cur.text == "Future" || cur.text == "RRef"):
		l.advance()
		l.expect('(')
		p.typ()
		l.expect(')')
		t = &schemaType{kind: cur.text}
	case cur.kind == tkIdent && cur.text == "Tensor":
		l.advance()
		t = &schemaType{kind: "Tensor"}
		p.aliasAnnotation()
	case cur.kind == tkIdent && cur.text == "Dict":
		l.advance()
		l.expect('(')
		p.typ()
		l.expect(',')
		p.typ()
		l.expect(')')
		p.aliasAnnotation()
		t = &schemaType{kind: "Dict"}
	case cur.kind == tkIdent && cur.text == "__torch__":
		l.advance()
		l.expect('.')
		for _, want := range []string{"torch", "classes"} {
			tok := l.expect(tkIdent)
			if tok.text != want {
				l.report(tok.start, tok.end, "Expected classes namespace but got "+tok.text)
			}
			l.expect('.')
		}
		ns := l.expect(tkIdent)
		l.expect('.')
		cls := l.expect(tkIdent)
		if !tensor.ClassTypeRegistered(tensor.ClassPrefix + ns.text + "." + cls.text) {
			l.report(cls.start, cls.end, "Unknown custom class type "+ns.text+"."+cls.text+". Please ensure it is registered.")
		}
		t = &schemaType{kind: "Class"}
	default:
		t = p.baseType()
		p.aliasAnnotation()
	}
	for {
		if l.peek().kind == '[' && l.lookahead().kind == ']' {
			l.advance()
			l.advance()
			t = &schemaType{kind: "List", elem: t}
			p.aliasAnnotation()
		} else if l.nextIf('?') {
			t = &schemaType{kind: "Optional", elem: t}
		} else {
			break
		}
	}
	return t
}

func (p *schemaChecker) baseType() *schemaType {
	l := p.l
	tok := l.peek()
	if !l.nextIf(tkNone) {
		l.expect(tkIdent)
	}
	if k, ok := baseTypes[tok.text]; ok {
		return &schemaType{kind: k}
	}
	if tok.text != "" && tok.text[0] >= 'a' && tok.text[0] <= 'z' {
		return &schemaType{kind: "Var"} // a type variable
	}
	l.report(tok.start, tok.end, "unknown type specifier")
	return nil
}

func (p *schemaChecker) aliasAnnotation() {
	l := p.l
	sets := func() {
		wildcard := false
		p.list(0, '|', 0, func() {
			if l.nextIf('*') {
				wildcard = true
			} else if !wildcard {
				l.expect(tkIdent)
			}
		})
	}
	if l.nextIf('(') {
		sets()
		l.nextIf('!')
		if l.nextIf(tkArrow) {
			sets()
		}
		l.expect(')')
	} else {
		l.nextIf('!')
	}
}

func (p *schemaChecker) defaultValue(t *schemaType, sized bool) {
	l := p.l
	cur := l.peek()
	switch t.kind {
	case "Tensor", "Generator":
		l.expect(tkNone)
	case "String", "Optional", "Number", "Int", "SymInt", "Bool", "SymBool", "Float", "SymFloat":
		p.singleConstant()
	case "DeviceObj":
		l.expect(tkString)
	case "List":
		switch {
		case cur.kind == tkIdent:
			l.expect(tkNone)
		case sized && cur.kind != '[':
			p.singleConstant()
			p.toList(t.elem, cur)
		default:
			open := l.expect('[')
			if l.peek().kind != ']' {
				for {
					p.singleConstant()
					if !l.nextIf(',') {
						break
					}
				}
			}
			l.expect(']')
			p.toList(t.elem, open)
		}
	default:
		l.report(cur.start, cur.end, "unexpected type, file a bug report")
	}
}

func (p *schemaChecker) toList(elem *schemaType, at token) {
	switch elem.kind {
	case "Float", "Int", "SymInt", "Bool":
		return
	}
	p.l.report(at.start, at.end, "lists are only supported for float or int types")
}

func (p *schemaChecker) singleConstant() {
	l := p.l
	switch l.peek().kind {
	case tkTrue, tkFalse, tkNone, tkString:
		l.advance()
	case tkIdent:
		tok := l.advance()
		switch tok.text {
		case "float", "long", "strided", "Mean", "contiguous_format":
		default:
			cur := l.peek()
			l.report(cur.start, cur.end, "invalid numeric default value")
		}
	default:
		l.nextIf('-')
		l.expect(tkNumber)
	}
}

package fx

import (
	"strconv"
	"strings"
	"unicode"
)

// namespace hands out unique Python identifiers, following torch.fx's
// _Namespace in PyTorch 1.13:
//
//   - characters illegal in an identifier become '_' (a run of them, one '_'),
//     and a leading digit gets a '_' in front;
//   - a trailing "_<digits>" is split off as a number: "add_1" is base "add",
//     number 1 (normalized, so "x_01" asks for "x_1");
//   - the candidate (base, or base_number) is taken when it is free and not a
//     Python keyword or builtin (nor one of the names FX's generated code
//     imports); otherwise the number counts up from the one asked for (0
//     without one) until base_number is free.
//
// Names are never given back: an erased node keeps its name reserved, so a
// later node does not reuse its number.
type namespace struct {
	used  map[string]bool
	byObj map[any]string
	// taken[base] = k: base_1 ... base_k are all used, so the search for
	// a free number skips them (a graph of n "add" nodes would otherwise
	// build n²/2 candidate names).
	taken map[string]int
}

func newNamespace() *namespace {
	return &namespace{used: map[string]bool{}, byObj: map[any]string{}, taken: map[string]int{}}
}

// create returns a unique name built from candidate. A non-nil obj is
// remembered: asking again for the same obj returns the same name. obj is
// also what a builtin name may be taken by (FX lets a builtin be called by its
// own name); nodes never are builtins.
func (ns *namespace) create(candidate string, obj any) string {
	if obj != nil {
		if name, ok := ns.byObj[obj]; ok {
			return name
		}
	}
	candidate = sanitize(candidate)
	if candidate == "" {
		candidate = "_unnamed" // PyTorch 1.13 fails here; later versions use this name
	}
	base, num, hasNum := splitSuffix(candidate)
	candidate = base
	if hasNum {
		candidate = base + "_" + strconv.Itoa(num)
	}
	for ns.used[candidate] || isIllegalName(candidate, obj) {
		num++
		if k := ns.taken[base]; num <= k {
			num = k + 1 // base_num is used: the loop would go on past it
		}
		candidate = base + "_" + strconv.Itoa(num)
	}
	ns.used[candidate] = true
	if num > 0 && num == ns.taken[base]+1 {
		k := num
		for ns.used[base+"_"+strconv.Itoa(k+1)] {
			k++
		}
		ns.taken[base] = k
	}
	if obj != nil {
		ns.byObj[obj] = candidate
	}
	return candidate
}

// sanitize replaces each run of characters outside [0-9a-zA-Z_] with one '_'
// and puts '_' before a leading digit.
func sanitize(s string) string {
	var b strings.Builder
	run := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			b.WriteByte(c)
			run = false
			continue
		}
		if !run {
			b.WriteByte('_')
			run = true
		}
	}
	out := b.String()
	// Python's str.isdigit is true for any Unicode digit, but only ASCII
	// survives the replacement above.
	if out != "" && out[0] >= '0' && out[0] <= '9' {
		out = "_" + out
	}
	return out
}

// splitSuffix matches candidate against FX's "(.*)_(\d+)$": the greedy base
// takes everything before the last "_<digits>". The number is capped so that
// absurd suffixes cannot overflow.
func splitSuffix(s string) (base string, num int, ok bool) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	if i == len(s) || i == 0 || s[i-1] != '_' {
		return s, 0, false
	}
	n, err := strconv.Atoi(s[i:])
	if err != nil {
		return s, 0, false
	}
	return s[:i-1], n, true
}

// isIllegalName reports whether name may not be used by obj: Python keywords
// never, builtins and the names FX's generated code imports unless obj is
// that very object.
func isIllegalName(name string, obj any) bool {
	if pyKeywords[name] {
		return true
	}
	if pyBuiltins[name] || customBuiltins[name] {
		b, ok := obj.(builtinName)
		return !ok || string(b) != name
	}
	return false
}

// builtinName stands for a builtin or an FX custom builtin in the code
// generator's namespace, so that it may take its own name.
type builtinName string

// pyKeywords is Python 3.11's keyword.kwlist.
var pyKeywords = setOf(
	"False", "None", "True", "and", "as", "assert", "async", "await", "break",
	"class", "continue", "def", "del", "elif", "else", "except", "finally", "for",
	"from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not",
	"or", "pass", "raise", "return", "try", "while", "with", "yield")

// pyBuiltins is the set of keys of builtins.__dict__ in Python 3.11 (with
// the names the site module adds: copyright, credits, exit, help, license,
// quit).
var pyBuiltins = setOf(
	"ArithmeticError", "AssertionError", "AttributeError", "BaseException",
	"BaseExceptionGroup", "BlockingIOError", "BrokenPipeError", "BufferError",
	"BytesWarning", "ChildProcessError", "ConnectionAbortedError", "ConnectionError",
	"ConnectionRefusedError", "ConnectionResetError", "DeprecationWarning", "EOFError",
	"Ellipsis", "EncodingWarning", "EnvironmentError", "Exception", "ExceptionGroup",
	"False", "FileExistsError", "FileNotFoundError", "FloatingPointError", "FutureWarning",
	"GeneratorExit", "IOError", "ImportError", "ImportWarning", "IndentationError",
	"IndexError", "InterruptedError", "IsADirectoryError", "KeyError", "KeyboardInterrupt",
	"LookupError", "MemoryError", "ModuleNotFoundError", "NameError", "None",
	"NotADirectoryError", "NotImplemented", "NotImplementedError", "OSError",
	"OverflowError", "PendingDeprecationWarning", "PermissionError", "ProcessLookupError",
	"RecursionError", "ReferenceError", "ResourceWarning", "RuntimeError", "RuntimeWarning",
	"StopAsyncIteration", "StopIteration", "SyntaxError", "SyntaxWarning", "SystemError",
	"SystemExit", "TabError", "TimeoutError", "True", "TypeError", "UnboundLocalError",
	"UnicodeDecodeError", "UnicodeEncodeError", "UnicodeError", "UnicodeTranslateError",
	"UnicodeWarning", "UserWarning", "ValueError", "Warning", "ZeroDivisionError",
	"__build_class__", "__debug__", "__doc__", "__import__", "__loader__", "__name__",
	"__package__", "__spec__", "abs", "aiter", "all", "anext", "any", "ascii", "bin",
	"bool", "breakpoint", "bytearray", "bytes", "callable", "chr", "classmethod",
	"compile", "complex", "copyright", "credits", "delattr", "dict", "dir", "divmod",
	"enumerate", "eval", "exec", "exit", "filter", "float", "format", "frozenset",
	"getattr", "globals", "hasattr", "hash", "help", "hex", "id", "input", "int",
	"isinstance", "issubclass", "iter", "len", "license", "list", "locals", "map", "max",
	"memoryview", "min", "next", "object", "oct", "open", "ord", "pow", "print",
	"property", "quit", "range", "repr", "reversed", "round", "set", "setattr", "slice",
	"sorted", "staticmethod", "str", "sum", "super", "tuple", "type", "vars", "zip")

// customBuiltins are the names FX puts in the globals of every generated
// forward (torch/fx/graph.py _register_custom_builtin), in registration order
// in customBuiltinOrder.
var customBuiltins = setOf(customBuiltinOrder...)

var customBuiltinOrder = []string{"inf", "nan", "NoneType", "torch", "device", "fx_pytree", "pytree"}

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// snakeCase is FX's _snake_case: a '_' goes before each upper-case letter
// that follows a lower-case one, and everything is lower-cased
// ("pascalCase" -> "pascal_case", "ALL_CAPS" -> "all_caps").
func snakeCase(s string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range s {
		if prevLower && unicode.IsUpper(r) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
		prevLower = unicode.IsLower(r)
	}
	return b.String()
}

// targetToStr is FX's Graph._target_to_str for a string target: a dunder
// name loses its underscores ("__and__" -> "and"), then snake case.
func targetToStr(s string) string {
	if strings.HasPrefix(s, "__") && strings.HasSuffix(s, "__") {
		if len(s) < 4 {
			s = ""
		} else {
			s = s[2 : len(s)-2]
		}
	}
	return snakeCase(s)
}

// rename frees old and takes name, which must be free.
func (ns *namespace) rename(old, name string) bool {
	if ns.used[name] || sanitize(name) != name {
		return false
	}
	delete(ns.used, old)
	if base, num, ok := splitSuffix(old); ok && num <= ns.taken[base] {
		ns.taken[base] = num - 1 // old is free again
	}
	ns.used[name] = true
	return true
}

package nn

import (
	"reflect"
	"strings"
)

// ExtraReprer is a module that prints its settings inside its
// representation, as PyTorch's extra_repr: Linear's is
// "in_features=3, out_features=2, bias=True".
type ExtraReprer interface {
	ExtraRepr() string
}

// Repr is PyTorch's repr(module): the class name, its extra repr, and each
// sub-module on its own indented line.
//
//	Sequential(
//	  (0): Linear(in_features=4, out_features=8, bias=True)
//	  (1): ReLU()
//	)
//
// The class name is the one SetName gave, else the Go type's name.
func Repr(m Module) string {
	b := m.base()
	var extra []string
	if e, ok := m.(ExtraReprer); ok {
		if s := e.ExtraRepr(); s != "" {
			extra = strings.Split(s, "\n")
		}
	}
	var child []string
	for _, c := range b.children {
		child = append(child, "("+c.name+"): "+addIndent(Repr(c.v), 2))
	}
	lines := append(extra, child...)
	s := className(m) + "("
	if len(lines) > 0 {
		if len(extra) == 1 && len(child) == 0 {
			s += extra[0]
		} else {
			s += "\n  " + strings.Join(lines, "\n  ") + "\n"
		}
	}
	return s + ")"
}

func className(m Module) string {
	if n := m.base().typeName; n != "" {
		return n
	}
	t := reflect.TypeOf(m)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// addIndent indents every line of s but the first (PyTorch's _addindent).
func addIndent(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) == 1 {
		return s
	}
	pad := strings.Repeat(" ", n)
	for i := 1; i < len(lines); i++ {
		lines[i] = pad + lines[i]
	}
	return strings.Join(lines, "\n")
}

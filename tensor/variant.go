package tensor

import (
	"strings"
)

// FunctionalName names the functional op that an in-place op (add_.Tensor)
// or an out= op (add.out, max.dim_max) is derived from, or "" when s is
// neither or exists says there is no such op. It is the one statement of
// the rule; Op.Functional applies it to the registry and the wrapper
// generator to the schema tables.
//
//   - In place: the name without its trailing underscore and the same
//     overload (mul_.Tensor -> mul.Tensor); when there is no such overload,
//     the default one, if the in-place overload is unnamed or "Tensor"
//     (floor_divide_.Tensor -> floor_divide).
//   - out=: the overload without its "out" suffix (max.dim_max ->
//     max.dim, add.out -> add), else the default overload.
//
// An in-place variant takes the functional op's arguments, in order
// (bernoulli_.Tensor(self, p) is not bernoulli(self)'s in-place form).
func FunctionalName(s *Schema, lookup func(qualified string) *Schema) string {
	try := func(name, overload string) string {
		q := s.Namespace + "::" + name
		if overload != "" {
			q += "." + overload
		}
		f := lookup(q)
		if f == nil || s.IsInplace() && !sameArgNames(f, s) {
			return ""
		}
		return q
	}
	switch {
	case s.IsInplace() && strings.HasSuffix(s.Name, "_"):
		f := strings.TrimSuffix(s.Name, "_")
		if s.Overload != "" && s.Overload != "default" {
			if q := try(f, s.Overload); q != "" {
				return q
			}
			if s.Overload != "Tensor" {
				return ""
			}
		}
		return try(f, "")
	case s.IsOut():
		ov := strings.TrimSuffix(strings.TrimSuffix(s.Overload, "out"), "_")
		if ov != "" {
			if q := try(s.Name, ov); q != "" {
				return q
			}
		}
		return try(s.Name, "")
	}
	return ""
}

// Functional returns the functional op an in-place or out= op derives from
// (see FunctionalName), and for each of its arguments the index of the
// variant's argument that feeds it (an out= op's out tensors are left out;
// an in-place op's arguments are the functional op's, in order). It is
// worked out once per op, on first use that finds it.
func (op *Op) Functional() (f *Op, argIndex []int, ok bool) {
	if v := op.variant.Load(); v != nil {
		return v.f, v.args, true
	}
	q := FunctionalName(op.Schema, func(q string) *Schema {
		if f, ok := LookupOp(q); ok {
			return f.Schema
		}
		return nil
	})
	if q == "" {
		return nil, nil, false // not memoised: the op may be registered later
	}
	fop, _ := LookupOp(q)
	idx := make([]int, len(fop.Schema.Args))
	for i, a := range fop.Schema.Args {
		j := op.Schema.ArgIndex(a.Name)
		if j < 0 {
			return nil, nil, false // an op of that name, but not this one's functional form
		}
		idx[i] = j
	}
	op.variant.Store(&variant{fop, idx})
	return fop, idx, true
}

type variant struct {
	f    *Op
	args []int
}

// FunctionalArgs picks the functional op's arguments out of the variant's.
func (op *Op) FunctionalArgs(args []any) []any {
	_, idx, _ := op.Functional()
	out := make([]any, len(idx))
	for i, j := range idx {
		out[i] = args[j]
	}
	return out
}

func sameArgNames(a, b *Schema) bool {
	if len(a.Args) != len(b.Args) {
		return false
	}
	for i := range a.Args {
		if a.Args[i].Name != b.Args[i].Name {
			return false
		}
	}
	return true
}

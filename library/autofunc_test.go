package library_test

import (
	"fmt"
	"testing"

	"github.com/goaten/goaten/library"
	"github.com/goaten/goaten/tensor"
)

// PyTorch's test_can_auto_functionalize (test/inductor/test_auto_functionalize.py):
// each schema is defined as an op, which is auto-functionalizable or not;
// its overload packet (here its name) never is.
func TestCanAutoFunctionalize(t *testing.T) {
	expectedTrue := []string{
		"(Tensor(a!) x) -> ()",
		"(Tensor(a!) x, Tensor y, Tensor(b!) z, SymInt w, Tensor(c!)? n) -> ()",
		"(Tensor(a!) x, Tensor[] y, Tensor(b!) z, SymInt w, Tensor(c!)? n) -> ()",
		"(Tensor(a!) x, Tensor y, Tensor(b!)[] z, SymInt w) -> ()",
		"(Tensor(a!) x, Tensor y, Tensor(b!) z, SymInt w, Tensor(c!)? n) -> Tensor",
		"(Tensor(a!) x, Tensor y, Tensor(b!) z, SymInt w, Tensor(c!)? n) -> (Tensor, Tensor)",
		// Beyond PyTorch's table: the other list-like written types, and
		// a None return.
		"(Tensor(a!)?[] x) -> ()",
		"(Tensor(a!)[]? x) -> ()",
		"(Tensor(a!) x) -> None",
	}
	expectedFalse := []string{
		"(Tensor x) -> ()",
		"(Tensor(a) x) -> Tensor(a)",
		"(Tensor(a!) x) -> Tensor(a!)",
		"(Tensor(a!) x, Tensor y, Tensor(b!) z, SymInt w, Tensor(c!)? n) -> Tensor(a)",
		"(Tensor(a!) x, Tensor y, Tensor(b!) z, SymInt w, Tensor(c!)? n) -> (Tensor, Tensor(a))",
		"(Tensor(a) x, Tensor y, Tensor(b!) z, SymInt w, Tensor(c!)? n) -> (Tensor, Tensor(a))",
		"(Tensor(a!) x, Tensor y, Tensor(b!) z, SymInt w, Tensor(c!)? n) -> (Tensor, Tensor[])",
		// Beyond the table: a result that is not a plain Tensor.
		"(Tensor(a!) x) -> Tensor?",
		"(Tensor(a!) x) -> int",
		"(Tensor(a!) x) -> Tensor[]",
	}
	n := 0
	check := func(schema string, want bool) {
		name := fmt.Sprintf("autofunc::a%d", n)
		n++
		op := library.Define(name + schema)
		if got := library.CanAutoFunctionalize(op); got != want {
			t.Errorf("%s: CanAutoFunctionalize = %v, want %v", schema, got, want)
		}
		if got := library.CanAutoFunctionalize(op.TensorOp()); got != want {
			t.Errorf("%s: CanAutoFunctionalize(*tensor.Op) = %v, want %v", schema, got, want)
		}
		if library.CanAutoFunctionalize(name) {
			t.Errorf("%s: the packet %s is auto-functionalizable", schema, name)
		}
	}
	for _, s := range expectedTrue {
		check(s, true)
	}
	for _, s := range expectedFalse {
		check(s, false)
	}
	// Built-in ops are not: aten's in-place and out= ops.
	for _, name := range []string{"aten::add_.Tensor", "aten::atan2.out", "aten::relu"} {
		if library.CanAutoFunctionalize(tensor.MustOp(name)) {
			t.Errorf("%s is auto-functionalizable", name)
		}
	}
	// An op with a Functionalize kernel of its own is not.
	own := library.Define("autofunc::own(Tensor(a!) x) -> ()")
	own.TensorOp().Impl(tensor.KeyFunctionalize, func(op *tensor.Op, d tensor.Dispatch, args []any) any {
		return op.Redispatch(d, tensor.KeyFunctionalize, args)
	})
	if library.CanAutoFunctionalize(own) {
		t.Error("an op with a Functionalize kernel is auto-functionalizable")
	}
	if library.CanAutoFunctionalize(nil) || library.CanAutoFunctionalize((*library.Op)(nil)) {
		t.Error("nil is auto-functionalizable")
	}
}

// The rule over every combination of one argument type and one return
// type: an op is auto-functionalizable exactly when its argument is
// written and tensor- or tensor-list-like and its return is nothing, None
// or plain non-aliasing Tensors. Each element carries its own verdict, so
// the product checks that the rule is the conjunction of the parts.
func TestCanAutoFunctionalizeProduct(t *testing.T) {
	args := []struct {
		decl     string
		writable bool // written, of a type the rule accepts
		written  bool
	}{
		{"Tensor(a!) x", true, true},
		{"Tensor(a!)? x", true, true},
		{"Tensor(a!)[] x", true, true},
		{"Tensor(a!)?[] x", true, true},
		{"Tensor(a!)[]? x", true, true},
		{"Tensor x", false, false},
		{"Tensor? x", false, false},
		{"Tensor[] x", false, false},
		{"Tensor(a) x", false, false},
		{"int x", false, false},
	}
	returns := []struct {
		decl string
		ok   bool
	}{
		{"()", true},
		{"None", true},
		{"Tensor", true},
		{"(Tensor, Tensor)", true},
		{"(Tensor a, Tensor b)", true},
		{"Tensor(a)", false},
		{"Tensor(a!)", false},
		{"(Tensor, Tensor(a))", false},
		{"Tensor?", false},
		{"Tensor[]", false},
		{"(Tensor, Tensor[])", false},
		{"int", false},
		{"(Tensor, int)", false},
	}
	n := 0
	for _, a := range args {
		for _, r := range returns {
			// A second, plain argument makes no difference.
			for _, extra := range []string{"", ", Tensor y, SymInt w"} {
				schema := fmt.Sprintf("(%s%s) -> %s", a.decl, extra, r.decl)
				name := fmt.Sprintf("autofuncprod::p%d", n)
				n++
				var op *library.Op
				if err := tensor.Try(func() { op = library.Define(name + schema) }); err != nil {
					t.Errorf("%s: %v", schema, err)
					continue
				}
				want := a.written && a.writable && r.ok
				if got := library.CanAutoFunctionalize(op); got != want {
					t.Errorf("%s: CanAutoFunctionalize = %v, want %v", schema, got, want)
				}
				if library.CanAutoFunctionalize(name) {
					t.Errorf("%s: the overload packet is auto-functionalizable", schema)
				}
			}
		}
	}
	if n != len(args)*len(returns)*2 {
		t.Fatalf("%d schemas", n)
	}
}

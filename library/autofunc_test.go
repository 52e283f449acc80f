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

package core

import (
	_ "embed"
	"slices"
	"strings"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// inplaceOps lists the in-place variants (add_, mul_, ...) that methods
// reach. Each is derived from its functional op: the same arguments, the
// functional result written into self.
//
//go:embed inplace_ops.txt
var inplaceOps string

// InplaceNames lists the qualified names of the in-place variants.
var InplaceNames = registerInplace()

var functionalOf = map[*tensor.Op]*tensor.Op{}

func registerInplace() []string {
	names := make([]string, 0, len(Names)) // Names first: the functional ops must exist
	for _, line := range strings.Split(strings.TrimSpace(inplaceOps), "\n") {
		op := tensor.RegisterOp(line)
		s := op.Schema
		fname := "aten::" + strings.TrimSuffix(s.Name, "_")
		if s.Overload != "" {
			fname += "." + s.Overload
		}
		f, ok := tensor.LookupOp(fname)
		if !ok {
			panic("core: in-place op " + op.Name + " has no functional op " + fname)
		}
		functionalOf[op] = f
		op.SetMeta(inplaceMeta)
		names = append(names, op.Name)
	}
	return names
}

// Functional returns the functional op an in-place op is derived from.
func Functional(op *tensor.Op) (*tensor.Op, bool) {
	f, ok := functionalOf[op]
	return f, ok
}

// inplaceMeta checks that the functional result fits self (same shape, a
// dtype that casts to self's) and returns self.
func inplaceMeta(op *tensor.Op, a []any) any {
	self := args.Self(a)
	f := functionalOf[op]
	res := RunMeta(f, a).(*tensor.Tensor)
	CheckInplaceResult(self, res)
	return self
}

// CheckInplaceResult applies PyTorch's checks for writing a result into self.
func CheckInplaceResult(self, res *tensor.Tensor) {
	if !slices.Equal(self.Sizes(), res.Sizes()) {
		tensor.Panicf("output with shape %v doesn't match the broadcast shape %v", tensor.ShapeString(self.Sizes()), tensor.ShapeString(res.Sizes()))
	}
	if !tensor.CanCast(res.DType(), self.DType()) {
		tensor.Panicf("result type %s can't be cast to the desired output type %s", CTypeName(res.DType()), CTypeName(self.DType()))
	}
}

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

func registerInplace() []string {
	names := make([]string, 0, len(Names)) // Names first: the functional ops must exist
	for _, line := range strings.Split(strings.TrimSpace(inplaceOps), "\n") {
		op := tensor.RegisterOp(line)
		if _, _, ok := op.Functional(); !ok {
			panic("core: in-place op " + op.Name + " has no functional op")
		}
		op.SetMeta(inplaceMeta)
		names = append(names, op.Name)
	}
	return names
}

// inplaceMeta checks that the functional result fits self (same shape, a
// dtype that casts to self's) and returns self.
func inplaceMeta(op *tensor.Op, a []any) any {
	self := args.Self(a)
	f, _, _ := op.Functional()
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

package args

import "github.com/goaten/goaten/tensor"

// Views shared by a family of ops, for code that serves every op of the
// family (a meta function registered for all the unary pointwise ops, both
// overloads of a binary op, every in-place variant). Code for one op reads
// that op's own view.

// Self is the first argument of an op whose first argument is a tensor
// (self or input): all that code serving a family of such ops reads.
func Self(a []any) *tensor.Tensor { return ten(a[0]) }

// Binary is the two operands of a binary pointwise op, for code serving
// both its overloads (add.Tensor and add.Scalar, eq.Tensor and eq.Scalar,
// div.Tensor_mode and div.Scalar_mode, ...): Other is the *tensor.Tensor or
// the tensor.Scalar the overload takes, as the list holds it (passing it on
// boxes nothing again).
type Binary struct {
	Self  *tensor.Tensor
	Other any
}

// BinaryOf reads the operands of an op whose schema starts with
// (Tensor self, Tensor other) or (Tensor self, Scalar other).
func BinaryOf(a []any) Binary {
	_ = a[1]
	return Binary{ten(a[0]), a[1]}
}

// SelfAt is the position of the argument Self reads, for code serving a
// family of ops that take a tensor first and must name its index (the
// op's own position function gives the same: args.AbsAt().Self).
const SelfAt = 0

package cpu

import "github.com/goaten/goaten/tensor"

// binaryArgs returns the two operands of a binary op, turning a Scalar
// second operand into a wrapped-number tensor.
func binaryArgs(args []any) (*tensor.Tensor, *tensor.Tensor) {
	a := args[0].(*tensor.Tensor)
	switch b := args[1].(type) {
	case *tensor.Tensor:
		return a, b
	case tensor.Scalar:
		return a, tensor.WrappedNumber(b)
	}
	panic("binaryArgs: bad operand")
}

func addKernel(op *tensor.Op, args []any) any {
	out := allocMeta(op, args)
	a, b := binaryArgs(args)
	alpha := args[2].(tensor.Scalar)
	ct := out.DType()
	if ct.IsFloat() {
		al := alpha.Float64()
		al32 := float32(al)
		pointwiseFloat(out, ct, []*tensor.Tensor{a, b}, func(d []float64, s [][]float64) {
			x := s[0][:len(d)]
			y := s[1][:len(d)]
			if al == 1 {
				for i := range d {
					d[i] = x[i] + y[i]
				}
				return
			}
			for i := range d {
				d[i] = x[i] + al*y[i]
			}
		}, func(d []float32, s [][]float32) {
			x := s[0][:len(d)]
			y := s[1][:len(d)]
			if al32 == 1 {
				for i := range d {
					d[i] = x[i] + y[i]
				}
				return
			}
			for i := range d {
				d[i] = x[i] + al32*y[i]
			}
		})
		return out
	}
	al := alpha.Int64()
	pointwiseI64(out, ct, []*tensor.Tensor{a, b}, func(d []int64, s [][]int64) {
		x, y := s[0], s[1][:len(s[0])]
		for i := range d {
			d[i] = x[i] + al*y[i]
		}
	})
	return out
}

func init() {
	impls(addKernel, "aten::add.Tensor", "aten::add.Scalar")
}

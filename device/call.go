package device

import "github.com/goaten/goaten/tensor"

// Call is one op call as a lowering sees it.
type Call struct {
	// Op is the op being run (Op.Name, Op.Schema).
	Op *tensor.Op
	// Args is the complete canonical argument list (see tensor.Op.Bind).
	// Tensors are on the device, their Raw() the backend's value; a 0-d CPU
	// tensor given as an argument has already been moved to the device.
	Args []any
	// Out holds the metadata of the op's output tensors (sizes, strides,
	// dtype), from the core meta function, in the order the op returns them;
	// nil for an output the op does not compute (the output_mask of the
	// backward ops).
	Out []*tensor.Tensor
}

// Name is the op's qualified name, e.g. "aten::add.Tensor" ("aten::exp" for
// a default overload).
func (c *Call) Name() string { return c.Op.Name }

// Tensor returns argument i as a tensor (nil for None).
func (c *Call) Tensor(i int) *tensor.Tensor { return tensor.OptTensor(c.Args[i]) }

// Raw returns the raw value of tensor argument i (nil for None).
func (c *Call) Raw(i int) any {
	if t := c.Tensor(i); t != nil {
		return t.Raw()
	}
	return nil
}

// Tensors returns a Tensor[] or Tensor?[] argument.
func (c *Call) Tensors(i int) []*tensor.Tensor {
	l, _ := c.Args[i].([]*tensor.Tensor)
	return l
}

// Int returns an int argument; def when it is None.
func (c *Call) Int(i int, def int) int { return tensor.OptInt(c.Args[i], def) }

// Ints returns an int[] argument (nil for None).
func (c *Call) Ints(i int) []int { return tensor.OptInts(c.Args[i]) }

// Float returns a float argument; def when it is None.
func (c *Call) Float(i int, def float64) float64 { return tensor.OptFloat(c.Args[i], def) }

// Bool returns a bool argument; def when it is None.
func (c *Call) Bool(i int, def bool) bool { return tensor.OptBool(c.Args[i], def) }

// Scalar returns a Scalar argument; ok is false when it is None.
func (c *Call) Scalar(i int) (s tensor.Scalar, ok bool) { return tensor.OptScalar(c.Args[i]) }

// String returns a str argument; def when it is None.
func (c *Call) String(i int, def string) string { return tensor.OptString(c.Args[i], def) }

// DType returns a ScalarType argument; def when it is None.
func (c *Call) DType(i int, def tensor.DType) tensor.DType { return tensor.OptDType(c.Args[i], def) }

// Package args gives typed views of an op's argument list: the canonical
// []any that tensor.Op.Bind builds and that boxed kernels, meta functions,
// decompositions and derivatives receive. It is generated from the schema
// tables by internal/cmd/opgen (args_gen.go), so the positions of the
// arguments live here only.
//
// For every op of the tables there is a struct with one field per schema
// argument, in schema order, and a constructor that reads the list:
//
//	p := args.NativeBatchNormOf(a) // aten::native_batch_norm
//	p.Input, p.Training, p.Momentum, p.Eps
//
// # Names
//
// A struct is named as the op's typed wrapper in package tensor: add.Tensor
// is Add, add.Scalar is AddScalar, add_.Tensor is Add_, native_batch_norm is
// NativeBatchNorm, empty.memory_format is EmptyOf. An op whose name starts
// with an underscore takes the prefix Internal: _softmax is InternalSoftmax,
// _native_batch_norm_legit.no_stats is InternalNativeBatchNormLegitNoStats.
// The constructor adds Of: AddOf, Add_Of, InternalSoftmaxOf, EmptyOfOf;
// the position function (see Positions) adds At: AddAt, ConvolutionAt. A
// field is the CamelCase of the argument's name: self is Self, running_mean
// RunningMean, output_size OutputSize, HxW HxW.
//
// # Types
//
//	Tensor, Tensor?                *tensor.Tensor (nil is None)
//	Tensor[], Tensor?[]            []*tensor.Tensor
//	int, SymInt                    int
//	float, bool, str               float64, bool, string
//	Scalar                         tensor.Scalar
//	ScalarType                     tensor.DType
//	Layout, Device, MemoryFormat   tensor.Layout, tensor.Device, tensor.MemoryFormat
//	int[N], SymInt[], float[], bool[N]   []int, []float64, []bool
//	int[]?, float[]?, ...          the same slice, nil for None
//	Generator?                     *tensor.Generator (nil is None)
//	int?, float?, bool?, str?, Scalar?, ScalarType?, Layout?, Device?, MemoryFormat?
//	                               Opt[T]: Ok is false for None, V the value
//
// Opt is a value, not a pointer: p.Dtype.Ok says whether dtype was given and
// p.Dtype.Or(tensor.DefaultFloat) reads it with a default.
//
// # Cost
//
// A constructor checks the list's length (a list of another op's length
// panics: it is a bug), does one type assertion per field and returns the
// struct by value: it allocates nothing. Box builds the list back from a
// struct (allocating it), to call an op with some arguments changed:
//
//	p := args.InternalToCopyOf(a)
//	p.Device = args.Some(tensor.CPU)
//	op.RunBackend(tensor.CPU, p.Box())
//
// # Before and after
//
// Before, a meta function read its arguments by position:
//
//	func dropoutMeta(op *tensor.Op, args []any) any {
//		x, p := args[0].(*tensor.Tensor), args[1].(float64)
//		train := tensor.OptBool(args[2], true)
//		...
//
// After, by name, with the types of the schema:
//
//	func dropoutMeta(op *tensor.Op, a []any) any {
//		v := args.NativeDropoutOf(a)
//		x, p := v.Input, v.P
//		train := v.Train.Or(true)
//		...
//
// Name the list a, not args, in code that uses this package.
//
// # Positions
//
// Code that must name an argument's index, not only read its value, takes
// it from the op's position function: for every op with tensor arguments
// (Tensor, Tensor?, Tensor[], Tensor?[]) there is one, named as the struct
// with At, returning a struct with one int field per tensor argument, named
// as the view's field:
//
//	at := args.ConvolutionAt() // struct{ Input, Weight, Bias int }{0, 1, 2}
//
// Autograd's formulas read the saved tensors and set the gradients of the
// inputs by index (c.T(at.Weight), c.Set(at.Bias, g)), because a saved
// tensor is checked against its version before it is read. Position
// functions return anonymous struct types, the same type for ops whose
// tensor arguments have the same names, so code serving several such ops
// takes the positions as a parameter and each op passes its own:
//
//	func minMaxBackward(c *Ctx, at struct{ Self, Other int }, isMax bool)
//
//	def("aten::maximum", fn(func(c *Ctx) { minMaxBackward(c, args.MaximumAt(), true) }))
//
// # Code serving several ops
//
// A function registered for several ops reads each op's own view. Ops whose
// arguments are the same have structs of the same shape, which convert to
// one another, so the shared code takes one of them and each op converts
// (the conversion stops compiling if the schemas ever differ):
//
//	func aminmaxMeta(fn string, of func([]any) args.Amax) tensor.Kernel { ... p := of(a) ... }
//
//	def("aten::amax.default", aminmaxMeta("amax()", args.AmaxOf))
//	def("aten::amin.default", aminmaxMeta("amin()", func(a []any) args.Amax { return args.Amax(args.AminOf(a)) }))
//
// Otherwise register a small adapter per op, or switch on op.Schema. Two
// family views cover what is shared by construction: Self, the first
// argument of any op that takes a tensor first (unary pointwise ops, views,
// in-place variants), and BinaryOf, the two operands of either overload of
// a binary pointwise op, Tensor other or Scalar other. SelfAt is the
// position Self reads.
package args

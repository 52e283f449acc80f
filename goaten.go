// Package goaten is a pure-Go tensor runtime with PyTorch semantics. Import
// this package alone: it re-exports the Tensor type with its methods, the
// dtypes and constructors, and links in the core ops, the decompositions,
// autograd and the CPU and meta devices.
//
// Tensor is an alias of tensor.Tensor, so its methods (x.Add, x.Matmul,
// x.Sum, x.Backward, ...) are documented in package tensor: run
// `go doc github.com/goaten/goaten/tensor.Tensor`, or `go doc
// github.com/goaten/goaten/tensor Tensor.Softmax` for one of them. This
// package's own page lists the constructors, the functions that are not
// methods (Cat, Stack, Where, Conv2d, ...) and the options.
//
// # Constructors take sizes as PyTorch does
//
// Zeros, Ones, Empty, Rand and Randn take one int per dimension, as
// torch.zeros(2, 3) does, or a single []int, as torch.zeros(x.shape) does;
// Full takes its value first, Full(0.5, 2, 3). Options follow the sizes:
//
//	x := goaten.Zeros(2, 3)                                   // float32, on the CPU
//	y := goaten.Randn(4, 8, goaten.WithDtype(goaten.Float64)) // PyTorch's stream after ManualSeed
//	z := goaten.Ones(x.Sizes(), goaten.WithDevice(goaten.Meta))
//	w := goaten.Empty(3, goaten.WithRequiresGrad(true))       // a leaf that requires grad
//
// FromNested is torch.tensor: the shape follows the nesting of the slices,
// the dtype their Go element type, and ragged input fails as in PyTorch:
//
//	m := goaten.FromNested([][]float32{{1, 2}, {3, 4}}) // a 2×2 float32 tensor
//
// FromFloat32s(data, shape...) and its siblings copy a flat slice;
// Float32s, Float64s and Int64s read the values back. The wrappers
// generated from the schemas keep the schema's size list
// (tensor.Randn([]int{2, 3})), as do the ops whose PyTorch signature takes
// one (Randint(high, size), EmptyStrided(size, stride)).
//
// A tensor prints as PyTorch's repr, requires_grad=True and
// grad_fn=<MulBackward0> included. Misuse panics with an *Error in
// PyTorch's words, naming the op; an uncaught one also names the user's
// line ("panic: aten::mm: self must be a matrix (at main.go:22)"). Try
// turns it into an error.
//
// # Default arguments are options
//
// Every op has a typed wrapper generated from its PyTorch schema: a method
// when its first argument is "Tensor self", else a function. Its parameters
// are the schema's required arguments, in order. Every argument with a
// default, and every optional keyword-only argument, is left out of the
// parameter list and passed, when wanted, as a trailing functional option
// named after the schema argument:
//
//	y := x.Gelu(goaten.WithApproximate("tanh"))    // gelu(self, *, str approximate="none")
//	p := x.Softmax(1)                              // softmax.int(self, int dim, ScalarType? dtype=None)
//	s := x.Sum([]int{1}, goaten.WithKeepdim(true)) // sum.dim_IntList(self, int[1]? dim, bool keepdim=False, ...)
//	r := goaten.Randn(3, goaten.WithDtype(goaten.Float64))
//	l := logits.CrossEntropyLoss(target, goaten.WithLabelSmoothing(0.1))
//
// There is one With* constructor per argument name (WithAlpha, WithDim,
// WithReduction, WithIgnoreIndex, ...), typed where all schemas agree on the
// argument's type and taking any otherwise; Kw("name", v) passes any
// argument by name. Options are keyword arguments, checked by the schema as
// PyTorch checks them: one the op does not have panics with "Unknown keyword
// argument 'x' for operator 'aten::...'", a value of the wrong type with
// PyTorch's TypeError. A call without options costs no more than before.
//
// Call and CallKw reach every op, internal ones included, by its qualified
// name with positional and keyword arguments.
package goaten

import (
	_ "github.com/goaten/goaten/aten/core"   // core op table and meta functions
	_ "github.com/goaten/goaten/autograd"    // reverse-mode autograd (the Autograd key)
	_ "github.com/goaten/goaten/compile/cpu" // compile.Compile's default backend for CPU tensors
	_ "github.com/goaten/goaten/decomp"      // decompositions of the non-core ops
	_ "github.com/goaten/goaten/device/cpu"  // the default CPU device
	_ "github.com/goaten/goaten/device/meta" // the meta device (metadata only)
	_ "github.com/goaten/goaten/functional"  // views and mutation on devices without them
	"github.com/goaten/goaten/tensor"
)

// Tensor is goaten's tensor, an alias of tensor.Tensor: its methods are
// documented in package tensor (go doc github.com/goaten/goaten/tensor.Tensor).
type Tensor = tensor.Tensor

// DType is an element type.
type DType = tensor.DType

// Scalar is a number that is not a tensor.
type Scalar = tensor.Scalar

// Device says where a tensor's data lives.
type Device = tensor.Device

// Error is what misuse of tensor math panics with.
type Error = tensor.Error

// The dtypes.
const (
	Bool     = tensor.Bool
	Uint8    = tensor.Uint8
	Int8     = tensor.Int8
	Int16    = tensor.Int16
	Int32    = tensor.Int32
	Int64    = tensor.Int64
	Float16  = tensor.Float16
	BFloat16 = tensor.BFloat16
	Float32  = tensor.Float32
	Float64  = tensor.Float64
)

// The built-in devices.
const (
	CPU  = tensor.CPU
	Meta = tensor.Meta
)

// Call runs any op by qualified name ("aten::add.Tensor") with positional arguments.
func Call(name string, args ...any) any { return tensor.Call(name, args...) }

// CallKw runs an op with positional and keyword arguments.
func CallKw(name string, args []any, kwargs map[string]any) any {
	return tensor.CallKw(name, args, kwargs)
}

// Try runs f and returns a tensor misuse panic as an error.
func Try(f func()) error { return tensor.Try(f) }

// ManualSeed seeds the default random generator as torch.manual_seed does:
// the random ops then give PyTorch 1.13's CPU streams, so ManualSeed(0)
// followed by Randn(3) is torch.manual_seed(0); torch.randn(3).
func ManualSeed(seed uint64) { tensor.ManualSeed(seed) }

// Generator is a random generator with PyTorch's CPU semantics
// (torch.Generator); ops that take a generator= argument draw from it.
type Generator = tensor.Generator

// NewGenerator makes a generator seeded with seed
// (torch.Generator().manual_seed(seed)).
func NewGenerator(seed uint64) *Generator { return tensor.NewGenerator(seed) }

// DefaultGenerator is the generator random ops draw from when given none
// (torch.default_generator).
func DefaultGenerator() *Generator { return tensor.DefaultGenerator() }

// FromFloat32s copies data into a new float32 tensor of the given shape.
func FromFloat32s(data []float32, shape ...int) *Tensor { return tensor.FromSlice(data, shape...) }

// FromFloat64s copies data into a new float64 tensor of the given shape.
func FromFloat64s(data []float64, shape ...int) *Tensor { return tensor.FromSlice(data, shape...) }

// FromInt64s copies data into a new int64 tensor of the given shape.
func FromInt64s(data []int64, shape ...int) *Tensor { return tensor.FromSlice(data, shape...) }

// FromInt32s copies data into a new int32 tensor of the given shape.
func FromInt32s(data []int32, shape ...int) *Tensor { return tensor.FromSlice(data, shape...) }

// FromBools copies data into a new bool tensor of the given shape.
func FromBools(data []bool, shape ...int) *Tensor { return tensor.FromSlice(data, shape...) }

// ResultType is torch.result_type: the dtype an op on these operands
// (tensors, Scalars, Go numbers) computes in, honouring 0-d tensors and
// wrapped numbers as PyTorch does.
func ResultType(operands ...any) DType { return tensor.ResultType(operands...) }

// FloatScalar, IntScalar and BoolScalar make Scalars (what Tensor.Item and
// ops returning a number give).
func FloatScalar(v float64) Scalar { return tensor.Float(v) }

// IntScalar makes an integer Scalar.
func IntScalar(v int64) Scalar { return tensor.Int(v) }

// BoolScalar makes a bool Scalar.
func BoolScalar(v bool) Scalar { return tensor.BoolScalar(v) }

// LookupDevice finds a device by name ("cpu", "meta", or one a package
// registered with device.Register).
func LookupDevice(name string) (Device, bool) { return tensor.LookupDevice(name) }

// AllClose is torch.allclose: |a - b| <= atol + rtol*|b| elementwise, NaNs
// equal, on any devices.
func AllClose(a, b *Tensor, rtol, atol float64) bool { return tensor.AllClose(a, b, rtol, atol) }

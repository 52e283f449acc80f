package core

import (
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// Meta functions of the random constructors: rand, randn, randperm.

// randFloatMeta is rand/randn(SymInt[] size, *, ScalarType? dtype, Layout? layout,
// Device? device, bool? pin_memory): floating dtypes only (default float32).
// of reads the op's view (randn's converts to rand's: their arguments are
// the same).
func randFloatMeta(kernel string, of func([]any) args.Rand) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		p := of(a)
		size := p.Size
		normNegative(size)
		dt := p.Dtype.Or(tensor.DefaultFloat)
		if !dt.IsFloat() {
			tensor.Panicf("%q not implemented for '%s'", kernel, CTypeName(dt))
		}
		return Contig(op, a, dt, size...)
	}
}

// randpermIntName is the C++ type name c10's checked conversion names.
var randpermIntName = map[tensor.DType]string{
	tensor.Uint8:   "uint8_t",
	tensor.Int8:    "int8_t",
	tensor.Int16:   "int16_t",
	tensor.Int32:   "int",
	tensor.Float16: "at::Half",
}

// randpermMax is the largest n-1 each dtype holds (checked as at::scalar_tensor(n-1) does).
var randpermMax = map[tensor.DType]int{
	tensor.Uint8:   255,
	tensor.Int8:    127,
	tensor.Int16:   32767,
	tensor.Int32:   1<<31 - 1,
	tensor.Float16: 65504,
}

// randperm(SymInt n, *, ScalarType? dtype=long, Layout? layout, Device? device, bool? pin_memory):
// a 1-d tensor of n elements of dtype, with check_supported_max_int_with_precision's limits.
func randpermMeta(op *tensor.Op, a []any) any {
	p := args.RandpermOf(a)
	n := p.N
	normNegative([]int{n})
	dt := p.Dtype.Or(tensor.Int64)
	if lim, ok := randpermMax[dt]; ok && n-1 > lim {
		tensor.Panicf("value cannot be converted to type %s without overflow", randpermIntName[dt])
	}
	switch dt {
	case tensor.Float16:
		tensor.Check(n <= 1<<11+1, "n cannot be greater than 2049 for Half type.")
	case tensor.Float32:
		tensor.Check(n <= 1<<24+1, "n cannot be greater than 2^24+1 for Float type.")
	case tensor.Float64:
		tensor.Check(n <= 1<<53+1, "n cannot be greater than 2^53+1 for Double type.")
	case tensor.Bool:
		tensor.Panicf("%q not implemented for '%s'", "randperm", CTypeName(dt))
	}
	return Contig(op, a, dt, n)
}

func init() {
	def("aten::rand.default", randFloatMeta("check_uniform_bounds", args.RandOf))
	def("aten::randn.default", randFloatMeta("normal_kernel_cpu", func(a []any) args.Rand { return args.Rand(args.RandnOf(a)) }))
	def("aten::randperm.default", randpermMeta)
}

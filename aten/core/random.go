package core

import (
	"math"
	"math/bits"

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

// Argument checks of the random in-place ops (uniform_, normal_,
// bernoulli_, exponential_, random_) and multinomial, shared by the CPU
// kernels and the decompositions other devices run. The messages are ATen's.

// FloatDigits is std::numeric_limits<T>::digits of a float dtype: the
// significand width, and how many random bits a uniform draw keeps.
func FloatDigits(d tensor.DType) uint {
	switch d {
	case tensor.Float64:
		return 53
	case tensor.Float32:
		return 24
	case tensor.Float16:
		return 11
	}
	return 8 // bfloat16
}

// floatMax is std::numeric_limits<T>::max() of a float dtype.
func floatMax(d tensor.DType) float64 {
	switch d {
	case tensor.Float64:
		return math.MaxFloat64
	case tensor.Float32:
		return math.MaxFloat32
	case tensor.Float16:
		return 65504
	}
	return 0x1.fep127 // bfloat16
}

// checkFloatKernel rejects a non-float dtype as AT_DISPATCH_FLOATING_TYPES_AND2
// does for the named kernel.
func checkFloatKernel(d tensor.DType, kernel string) {
	if !d.IsFloat() {
		tensor.Panicf("%q not implemented for '%s'", kernel, CTypeName(d))
	}
}

// UniformBounds checks uniform_(from, to) for dtype d (check_uniform_bounds)
// and returns the bounds clamped to d's finite range.
func UniformBounds(d tensor.DType, from, to float64) (float64, float64) {
	checkFloatKernel(d, "check_uniform_bounds")
	hi := floatMax(d)
	name := TypeMetaName(d)
	if !(from >= -hi && from <= hi) {
		tensor.Panicf("from is out of bounds for %s", name)
	}
	if !(to >= -hi && to <= hi) {
		tensor.Panicf("to is out of bounds for %s", name)
	}
	if !(from <= to) {
		tensor.Panicf("uniform_ expects to return a [from, to) range, but found from=%s > to=%s", normFloat(from), normFloat(to))
	}
	if !(to-from <= hi) {
		tensor.Panicf("uniform_ expects to-from <= std::numeric_limits<%s>::max(), but found to=%s and from=%s which result in to-from to exceed the limit",
			CTypeName(d), normFloat(to), normFloat(from))
	}
	return min(max(from, -hi), hi), max(min(to, hi), -hi)
}

// CheckNormal checks normal_(mean, std) on dtype d.
func CheckNormal(d tensor.DType, std float64) {
	if !(std >= 0) {
		tensor.Panicf("normal_ expects std >= 0.0, but found std %s", normFloat(std))
	}
	checkFloatKernel(d, "normal_kernel_cpu")
}

// CheckBernoulliP checks bernoulli_(p).
func CheckBernoulliP(p float64) {
	if !(p >= 0 && p <= 1) {
		tensor.Panicf("bernoulli_ expects p to be in [0, 1], but got p=%s", normFloat(p))
	}
}

// CheckBernoulliTensor checks bernoulli_(p) with a tensor of probabilities.
func CheckBernoulliTensor(p *tensor.Tensor) {
	if !p.DType().IsFloat() {
		tensor.Panicf("expected probabilities tensor to have floating type, got %s", CTypeName(p.DType()))
	}
}

// CheckExponential checks exponential_(lambd) on dtype d.
func CheckExponential(d tensor.DType, lambd float64) {
	if !(lambd >= 0) {
		tensor.Panicf("exponential_ expects lambda >= 0.0, but found lambda=%s", normFloat(lambd))
	}
	checkFloatKernel(d, "exponential_cpu")
}

// RandomRange checks random_(from, to) for dtype d (random_from_to_impl)
// and returns what the kernel draws with: values (word mod rng) + base,
// or any int64 when full (from = int64 min, to = None).
func RandomRange(d tensor.DType, from int64, to *int64) (rng uint64, base int64, full bool) {
	if to != nil {
		t := *to
		if from >= t {
			tensor.Panicf("random_ expects 'from' to be less than 'to', but got from=%d >= to=%d", from, t)
		}
		if d.IsFloat() {
			from, t = updateFrom(d, from), updateTo(d, t)
			if from >= t {
				tensor.Panicf("random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but got from=%d >= to=%d", from, t)
			}
		}
		checkFromToInRange(d, from, t-1)
		return uint64(t) - uint64(from), from, false
	}
	if from == math.MinInt64 {
		return 0, 0, true
	}
	var toInc int64
	switch {
	case d.IsFloat():
		toInc = int64(1) << FloatDigits(d)
		from = updateFrom(d, from)
		if from >= toInc {
			tensor.Panicf("random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted to dtype, but got from=%d > to_inc=%d", from, toInc)
		}
	case d == tensor.Bool:
		toInc = 1
	default:
		_, toInc = IntRange(d)
	}
	checkFromToInRange(d, from, toInc)
	return uint64(toInc) - uint64(from) + 1, from, false
}

// IntRange is the [lowest, max] of an integral dtype.
func IntRange(d tensor.DType) (lo, hi int64) {
	switch d {
	case tensor.Bool:
		return 0, 1
	case tensor.Uint8:
		return 0, math.MaxUint8
	case tensor.Int8:
		return math.MinInt8, math.MaxInt8
	case tensor.Int16:
		return math.MinInt16, math.MaxInt16
	case tensor.Int32:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// checkFromToInRange is ATen's check_from_to_in_range.
func checkFromToInRange(d tensor.DType, from, toInc int64) {
	name := TypeMetaName(d)
	if d.IsFloat() {
		hi := floatMax(d)
		if !(float64(from) >= -hi && float64(from) <= hi) {
			tensor.Panicf("from is out of bounds for %s", name)
		}
		if !(float64(toInc) >= -hi && float64(toInc) <= hi) {
			tensor.Panicf("to - 1 is out of bounds for %s", name)
		}
		return
	}
	lo, hi := IntRange(d)
	if from < lo || from > hi {
		tensor.Panicf("from is out of bounds for %s", name)
	}
	if toInc < lo || toInc > hi {
		tensor.Panicf("to - 1 is out of bounds for %s", name)
	}
}

// roundInt is static_cast<int64_t>(static_cast<T>(v)) for float dtype d.
func roundInt(d tensor.DType, v int64) int64 {
	f := float32(v)
	switch d {
	case tensor.Float64:
		return int64(float64(v))
	case tensor.Float16:
		f = tensor.HalfToFloat32(tensor.Float32ToHalf(f))
	case tensor.BFloat16:
		f = tensor.BF16ToFloat32(tensor.Float32ToBF16(f))
	}
	return int64(f)
}

// absU is |v| as a uint64 (exact for math.MinInt64 too).
func absU(v int64) uint64 {
	if v < 0 {
		return -uint64(v)
	}
	return uint64(v)
}

// updateFrom moves from up to a value dtype d represents (update_from).
func updateFrom(d tensor.DType, from int64) int64 {
	fp1 := roundInt(d, from+1)
	if fp1 < from {
		n := bits.Len64(absU(from+1)) - 1
		from = fp1 + int64(1)<<(n-int(FloatDigits(d))+1)
	}
	return from
}

// updateTo moves to down to a value dtype d represents (update_to).
func updateTo(d tensor.DType, to int64) int64 {
	tm1 := roundInt(d, to-1)
	if tm1 >= to {
		n := bits.Len64(absU(to-1)) - 1
		to = tm1 - int64(1)<<(n-int(FloatDigits(d))+1)
	}
	return to
}

// MultinomialShape checks multinomial(self, n, replacement)'s arguments
// (multinomial_out) and returns the result's shape.
func MultinomialShape(self *tensor.Tensor, n int, replacement bool) []int {
	tensor.Check(self.Dim() > 0 && self.Dim() <= 2, "prob_dist must be 1 or 2 dim")
	if !self.DType().IsFloat() {
		tensor.Panicf("multinomial only supports floating-point dtypes for input, got: %s", CTypeName(self.DType()))
	}
	tensor.Check(n > 0, "cannot sample n_sample <= 0 samples")
	k := self.Size(-1)
	tensor.Check(replacement || n <= k, "cannot sample n_sample > prob_dist.size(-1) samples without replacement")
	tensor.Check(k <= 1<<24, "number of categories cannot exceed 2^24")
	if self.Dim() == 1 {
		return []int{n}
	}
	return []int{self.Size(0), n}
}

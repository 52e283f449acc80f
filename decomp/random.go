package decomp

import (
	"math"

	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// The random ops. On the CPU each has a kernel of its own that draws
// PyTorch's stream (device/cpu/random.go); these decompositions, on rand
// and randn, run everywhere else. They draw as many words as the CPU
// kernels for the float dtypes (a 53-bit uniform per bernoulli_ and
// exponential_ element, rand's and randn's draws for uniform_ and normal_),
// but round as the core ops they are made of do. A Generator argument is
// not passed on: rand and randn draw from the default generator.

func init() {
	def("aten::uniform_", uniform_)
	def("aten::normal_", normal_)
	def("aten::bernoulli_.float", bernoulliFloat_)
	def("aten::bernoulli_.Tensor", bernoulliTensor_)
	def("aten::bernoulli", bernoulli)
	def("aten::bernoulli.p", bernoulliP)
	def("aten::exponential_", exponential_)
	def("aten::random_.from", randomFrom_)
	def("aten::random_.to", randomTo_)
	def("aten::random_", random_)
	def("aten::randint", randint)
	def("aten::randint.low", randintLow)
	def("aten::rand_like", randLike("aten::uniform_", 0, 1))
	def("aten::randn_like", randLike("aten::normal_", 0, 1))
	def("aten::multinomial", multinomial)
}

// randOf is rand (or randn) of x's shape with dtype d on x's device.
func randOf(name string, x *T, d tensor.DType) *T {
	return callKw(name, []any{x.Shape()}, map[string]any{"dtype": d, "device": x.Device()})
}

// uniform_ is self ← rand·(to-from) + from.
func uniform_(op *tensor.Op, a []any) any {
	self := ten(a, 0)
	from, to := core.UniformBounds(self.DType(), a[1].(float64), a[2].(float64))
	u := randOf("aten::rand", self, self.DType())
	return self.Copy_(u.MulScalar(to-from).AddScalar(from, 1), false)
}

// normal_ is self ← randn·std + mean.
func normal_(op *tensor.Op, a []any) any {
	self := ten(a, 0)
	mean, std := a[1].(float64), a[2].(float64)
	core.CheckNormal(self.DType(), std)
	z := randOf("aten::randn", self, self.DType())
	return self.Copy_(z.MulScalar(std).AddScalar(mean, 1), false)
}

// bernoulliFloat_ is self ← (rand(float64) < p).
func bernoulliFloat_(op *tensor.Op, a []any) any {
	self, p := ten(a, 0), a[1].(float64)
	core.CheckBernoulliP(p)
	return self.Copy_(randOf("aten::rand", self, tensor.Float64).LtScalar(p), false)
}

// bernoulliTensor_ is self ← (rand < p), rand in float64 for float64
// probabilities and float32 for the others.
func bernoulliTensor_(op *tensor.Op, a []any) any {
	self, p := ten(a, 0), ten(a, 1)
	core.CheckBernoulliTensor(p)
	d := tensor.Float32
	if p.DType() == tensor.Float64 {
		d = tensor.Float64
	}
	return self.Copy_(randOf("aten::rand", self, d).Lt(p.To(d)), false)
}

// bernoulli draws 0 or 1 with the probabilities in self, as self's dtype.
func bernoulli(op *tensor.Op, a []any) any {
	self := ten(a, 0)
	return call("aten::empty_like", self).BernoulliTensor_(self)
}

// bernoulliP draws 0 or 1 with probability p, as self's dtype.
func bernoulliP(op *tensor.Op, a []any) any {
	return call("aten::empty_like", ten(a, 0)).Bernoulli_(a[1].(float64))
}

// exponential_ is self ← -1/λ·log(1 - rand(float64)).
func exponential_(op *tensor.Op, a []any) any {
	self, lambd := ten(a, 0), a[1].(float64)
	core.CheckExponential(self.DType(), lambd)
	u := randOf("aten::rand", self, tensor.Float64)
	return self.Copy_(rsub(1, u).Log().MulScalar(-1/lambd), false)
}

// randomValues is floor(rand(float64)·n) + base: uniform integers in
// [base, base+n), exact while n < 2^53.
func randomValues(self *T, n float64, base float64) *T {
	return randOf("aten::rand", self, tensor.Float64).MulScalar(n).Floor().AddScalar(base, 1)
}

func randomFromTo(self *T, from int64, to *int64) *T {
	rng, base, full := core.RandomRange(self.DType(), from, to)
	if full {
		return self.Copy_(randomValues(self, 0x1p64, -0x1p63), false)
	}
	return self.Copy_(randomValues(self, float64(rng), float64(base)), false)
}

func randomFrom_(op *tensor.Op, a []any) any {
	var to *int64
	if v, ok := a[2].(int); ok {
		t := int64(v)
		to = &t
	}
	return randomFromTo(ten(a, 0), int64(a[1].(int)), to)
}

func randomTo_(op *tensor.Op, a []any) any {
	to := int64(a[1].(int))
	return randomFromTo(ten(a, 0), 0, &to)
}

// random_ draws from [0, max] of an integral dtype, [0, 2^digits] of a
// float one, {0, 1} for bool.
func random_(op *tensor.Op, a []any) any {
	self := ten(a, 0)
	d := self.DType()
	var hi float64
	switch {
	case d == tensor.Bool:
		hi = 1
	case d.IsFloat():
		hi = math.Ldexp(1, int(core.FloatDigits(d)))
	default:
		_, h := core.IntRange(d)
		hi = float64(h)
	}
	return self.Copy_(randomValues(self, hi+1, 0), false)
}

// randint is empty(size, dtype).random_(0, high).
func randint(op *tensor.Op, a []any) any {
	out := callKw("aten::empty.memory_format", []any{a[1]}, factoryKw(a, 2, tensor.Int64))
	return out.RandomFrom_(0, a[0].(int))
}

// randintLow is empty(size, dtype).random_(low, high).
func randintLow(op *tensor.Op, a []any) any {
	out := callKw("aten::empty.memory_format", []any{a[2]}, factoryKw(a, 3, tensor.Int64))
	return out.RandomFrom_(a[0].(int), a[1].(int))
}

// randLike is rand_like and randn_like: empty_like(self).uniform_(0, 1) or
// .normal_(0, 1).
func randLike(name string, p0, p1 float64) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		out := callKw("aten::empty_like", []any{ten(a, 0)}, likeKw(a))
		return call(name, out, p0, p1)
	}
}

// multinomial samples column indices of self's rows (1-d: one row) with
// the probabilities their entries are proportional to. Without
// replacement (ATen's fast path): q = self / exponential_(1) and the
// indices of the largest q (argmax for one sample, topk for more). With
// replacement: per sample u = rand(float64), the index is the number of
// entries of the row's normalised cumulative sum below u (the last entry,
// 1, never is).
func multinomial(op *tensor.Op, a []any) any {
	self, n, replacement := ten(a, 0), a[1].(int), a[2].(bool)
	shape := core.MultinomialShape(self, n, replacement)
	if tensor.Numel(shape) == 0 {
		return callKw("aten::empty.memory_format", []any{shape}, map[string]any{"dtype": tensor.Int64, "device": self.Device()})
	}
	real := self.Device() != tensor.Meta // the meta device has no values to check
	if !replacement {
		if real {
			ok := self.Max().Item().Float64() < math.Inf(1) && self.Min().Item().Float64() >= 0
			tensor.Check(ok, "probability tensor contains either `inf`, `nan` or element < 0")
			zero := self.SumAll().EqScalar(0).Item().Bool()
			if self.Dim() == 2 {
				zero = self.Sum([]int{1}, false).EqScalar(0).Any().Item().Bool()
			}
			tensor.Check(!zero, "invalid multinomial distribution (sum of probabilities <= 0)")
		}
		q := self.Div(call("aten::empty_like", self).Exponential_(1))
		if n == 1 {
			return q.Argmax(-1, true)
		}
		_, idx := q.Topk(n, -1, true, true)
		return idx
	}
	if real {
		tensor.Check(self.Min().Item().Float64() >= 0, "invalid multinomial distribution (encountering probability entry < 0)")
		tensor.Check(!self.Isinf().Any().Item().Bool() && !self.Isnan().Any().Item().Bool(),
			"invalid multinomial distribution (encountering probability entry = infinity or NaN)")
		tensor.Check(!self.Sum([]int{-1}, false).LeScalar(0).Any().Item().Bool(), "invalid multinomial distribution (sum of probabilities <= 0)")
	}
	k := self.Size(-1)
	cum := self.Cumsum(-1).Div(self.Sum([]int{-1}, true)).Narrow(-1, 0, k-1)
	u := callKw("aten::rand", []any{shape}, map[string]any{"dtype": tensor.Float64, "device": self.Device()})
	return sumDType(cum.Unsqueeze(-2).Lt(u.Unsqueeze(-1)), []int{-1}, false, tensor.Int64)
}

package decomp

import (
	"math"

	"github.com/goaten/goaten/aten/args"
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
	p := args.Uniform_Of(a)
	self := p.Self
	from, to := core.UniformBounds(self.DType(), p.From, p.To)
	u := randOf("aten::rand", self, self.DType())
	return self.Copy_(u.MulScalar(to - from).AddScalar(from))
}

// normal_ is self ← randn·std + mean.
func normal_(op *tensor.Op, a []any) any {
	p := args.Normal_Of(a)
	self, mean, std := p.Self, p.Mean, p.Std
	core.CheckNormal(self.DType(), std)
	z := randOf("aten::randn", self, self.DType())
	return self.Copy_(z.MulScalar(std).AddScalar(mean))
}

// bernoulliFloat_ is self ← (rand(float64) < p).
func bernoulliFloat_(op *tensor.Op, a []any) any {
	v := args.Bernoulli_Of(a)
	self, p := v.Self, v.P
	core.CheckBernoulliP(p)
	return self.Copy_(randOf("aten::rand", self, tensor.Float64).LtScalar(p))
}

// bernoulliTensor_ is self ← (rand < p), rand in float64 for float64
// probabilities and float32 for the others.
func bernoulliTensor_(op *tensor.Op, a []any) any {
	v := args.BernoulliTensor_Of(a)
	self, p := v.Self, v.P
	core.CheckBernoulliTensor(p)
	d := tensor.Float32
	if p.DType() == tensor.Float64 {
		d = tensor.Float64
	}
	return self.Copy_(randOf("aten::rand", self, d).Lt(p.To(d)))
}

// bernoulli draws 0 or 1 with the probabilities in self, as self's dtype.
func bernoulli(op *tensor.Op, a []any) any {
	self := args.BernoulliOf(a).Self
	return call("aten::empty_like", self).BernoulliTensor_(self)
}

// bernoulliP draws 0 or 1 with probability p, as self's dtype.
func bernoulliP(op *tensor.Op, a []any) any {
	p := args.BernoulliPOf(a)
	return call("aten::empty_like", p.Self).Bernoulli_(tensor.WithP(p.P))
}

// exponential_ is self ← -1/λ·log(1 - rand(float64)).
func exponential_(op *tensor.Op, a []any) any {
	p := args.Exponential_Of(a)
	self, lambd := p.Self, p.Lambd
	core.CheckExponential(self.DType(), lambd)
	u := randOf("aten::rand", self, tensor.Float64)
	return self.Copy_(rsub(1, u).Log().MulScalar(-1 / lambd))
}

// randomValues is floor(rand(float64)·n) + base: uniform integers in
// [base, base+n), exact while n < 2^53.
func randomValues(self *T, n float64, base float64) *T {
	return randOf("aten::rand", self, tensor.Float64).MulScalar(n).Floor().AddScalar(base)
}

func randomFromTo(self *T, from int64, to *int64) *T {
	rng, base, full := core.RandomRange(self.DType(), from, to)
	if full {
		return self.Copy_(randomValues(self, 0x1p64, -0x1p63))
	}
	return self.Copy_(randomValues(self, float64(rng), float64(base)))
}

func randomFrom_(op *tensor.Op, a []any) any {
	p := args.RandomFrom_Of(a)
	var to *int64
	if p.To.Ok {
		t := int64(p.To.V)
		to = &t
	}
	return randomFromTo(p.Self, int64(p.From), to)
}

func randomTo_(op *tensor.Op, a []any) any {
	p := args.RandomTo_Of(a)
	to := int64(p.To)
	return randomFromTo(p.Self, 0, &to)
}

// random_ draws from [0, max] of an integral dtype, [0, 2^digits] of a
// float one, {0, 1} for bool.
func random_(op *tensor.Op, a []any) any {
	self := args.Random_Of(a).Self
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
	return self.Copy_(randomValues(self, hi+1, 0))
}

// randint is empty(size, dtype).random_(0, high).
func randint(op *tensor.Op, a []any) any {
	p := args.RandintOf(a)
	out := callKw("aten::empty.memory_format", []any{p.Size}, factoryKw(p.Dtype, p.Device, tensor.Int64))
	return out.RandomFrom_(0, p.High)
}

// randintLow is empty(size, dtype).random_(low, high).
func randintLow(op *tensor.Op, a []any) any {
	p := args.RandintLowOf(a)
	out := callKw("aten::empty.memory_format", []any{p.Size}, factoryKw(p.Dtype, p.Device, tensor.Int64))
	return out.RandomFrom_(p.Low, p.High)
}

// randLike is rand_like and randn_like: empty_like(self).uniform_(0, 1) or
// .normal_(0, 1).
func randLike(name string, p0, p1 float64) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		p := args.RandLikeOf(a) // randn_like's view converts to rand_like's
		out := callKw("aten::empty_like", []any{p.Self}, likeKw(args.ZerosLike(p)))
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
	p := args.MultinomialOf(a)
	self, n, replacement := p.Self, p.NumSamples, p.Replacement
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
				zero = self.Sum([]int{1}).EqScalar(0).Any().Item().Bool()
			}
			tensor.Check(!zero, "invalid multinomial distribution (sum of probabilities <= 0)")
		}
		q := self.Div(call("aten::empty_like", self).Exponential_())
		if n == 1 {
			return q.Argmax(tensor.WithDim(-1), tensor.WithKeepdim(true))
		}
		_, idx := q.Topk(n)
		return idx
	}
	if real {
		tensor.Check(self.Min().Item().Float64() >= 0, "invalid multinomial distribution (encountering probability entry < 0)")
		tensor.Check(!self.Isinf().Any().Item().Bool() && !self.Isnan().Any().Item().Bool(),
			"invalid multinomial distribution (encountering probability entry = infinity or NaN)")
		tensor.Check(!self.Sum([]int{-1}).LeScalar(0).Any().Item().Bool(), "invalid multinomial distribution (sum of probabilities <= 0)")
	}
	k := self.Size(-1)
	cum := self.Cumsum(-1).Div(self.Sum([]int{-1}, tensor.WithKeepdim(true))).Narrow(-1, 0, k-1)
	u := callKw("aten::rand", []any{shape}, map[string]any{"dtype": tensor.Float64, "device": self.Device()})
	return sumDType(cum.Unsqueeze(-2).Lt(u.Unsqueeze(-1)), []int{-1}, false, tensor.Int64)
}

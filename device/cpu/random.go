package cpu

import (
	"math"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/internal/libm"
	"github.com/goaten/goaten/tensor"
)

// The random kernels: each draws from its generator (the default one
// unless a Generator argument names another) exactly what ATen's CPU
// kernel draws, in the same order, and rounds as PyTorch 1.13's x86-64
// build does, so a seed gives PyTorch's numbers:
//
//   - uniform_ (and rand): per element, in TensorIterator order, the low
//     24 bits of a 32-bit word (float32; 11 for float16, 8 for bfloat16) or
//     the low 53 of a 64-bit word (float64), scaled to [0, 1), then
//     x·(to-from)+from fused.
//   - normal_ (and randn): fewer than 16 elements, or not contiguous:
//     normal_distribution<double> per element (Box-Muller on two 53-bit
//     uniforms, the sine kept for the next element). 16 or more, contiguous:
//     every element a uniform first, then Box-Muller in blocks of 16 (u1 from
//     element j, u2 from j+8, cos to j and sin to j+8); when the size is not
//     a multiple of 16 the last 16 elements are drawn again and redone.
//     float32 takes ATen's AVX2 path (avx_mathfun's float32 log and sincos),
//     float64 glibc's log, sin and cos.
//   - bernoulli_(p): a 53-bit uniform below p per element (a tensor p of
//     float32 compares a 24-bit one); exponential_(λ): -1/λ·log(1-u), u 53
//     bits; random_(from, to): a 32-bit word mod (to-from), or a 64-bit one
//     when to-from >= 2^32, plus from.
//   - randperm: Fisher-Yates from the front, element i swapped with
//     i + (32-bit word mod (n-i)).
//   - multinomial with replacement: per sample a 53-bit uniform, placed by
//     binary search in the row's cumulative distribution (summed and
//     normalised in the input dtype); without, exponential_, div and
//     argmax/topk (the decomposition).
//   - native_dropout: bernoulli_(1-p) into the mask, then x·mask·scale.

// genArg is the generator a kernel draws from: its Generator argument, or
// the default one.
func genArg(g *tensor.Generator) *tensor.Generator {
	if g != nil {
		return g
	}
	return tensor.DefaultGenerator()
}

// fillSerial writes draw's values into t, converted to t's dtype, element
// by element in TensorIterator order (cpu_serial_kernel on a nullary
// iterator).
func fillSerial(t *tensor.Tensor, e *tensor.Engine, draw func(e *tensor.Engine) float64) {
	s, dt := t.Storage(), t.DType()
	var buf [blockLen]float64
	loopOver(t).run(func(offs *[maxArgs]int, n int, inner *[maxArgs]int) {
		o, st := offs[0], inner[0]
		for i := 0; i < n; i += blockLen {
			k := min(blockLen, n-i)
			for j := range buf[:k] {
				buf[j] = draw(e)
			}
			storeNumber(s, dt, o+i*st, st, buf[:k])
		}
	})
}

// storeNumber stores values (integers, for an integral dtype) as dtype d.
func storeNumber(s *tensor.Storage, d tensor.DType, off, st int, v []float64) {
	if d.IsFloat() || d == tensor.Bool {
		storeF64(s, d, off, st, v)
		return
	}
	var ib [blockLen]int64
	for i, x := range v {
		ib[i] = int64(x)
	}
	storeI64(s, d, off, st, ib[:len(v)])
}

// ---- uniform_ and rand ----

// uniformFill fills t (a float dtype) with uniform_real_distribution<T>(from, to) draws.
func uniformFill(t *tensor.Tensor, e *tensor.Engine, from, to float64) {
	switch t.DType() {
	case tensor.Float32:
		f, tt := float32(from), float32(to)
		d := data[float32](t)
		loopOver(t).run(func(offs *[maxArgs]int, n int, inner *[maxArgs]int) {
			o, st := offs[0], inner[0]
			for i := range n {
				d[o+i*st] = e.Uniform32(f, tt)
			}
		})
	case tensor.Float64:
		d := data[float64](t)
		loopOver(t).run(func(offs *[maxArgs]int, n int, inner *[maxArgs]int) {
			o, st := offs[0], inner[0]
			for i := range n {
				d[o+i*st] = e.Uniform64(from, to)
			}
		})
	default: // float16, bfloat16: from, to and to-from in the dtype, the rest in float
		dt := t.DType()
		f, tt := reduced(dt, float32(from)), reduced(dt, float32(to))
		w := reduced(dt, tt-f)
		digits := core.FloatDigits(dt)
		fillSerial(t, e, func(e *tensor.Engine) float64 {
			return float64(libm.FMA32(e.UniformBits32(digits), w, f))
		})
	}
}

// reduced rounds v to float16 or bfloat16.
func reduced(d tensor.DType, v float32) float32 {
	if d == tensor.Float16 {
		return tensor.HalfToFloat32(tensor.Float32ToHalf(v))
	}
	return tensor.BF16ToFloat32(tensor.Float32ToBF16(v))
}

// randKernel is rand(size): a new tensor, uniform_(0, 1).
func randKernel(op *tensor.Op, a []any) any {
	out := allocMetaUninit(op, a)
	tensor.DefaultGenerator().Draw(func(e *tensor.Engine) { uniformFill(out, e, 0, 1) })
	return out
}

// uniformKernel is uniform_(self, from, to, *, generator).
func uniformKernel(op *tensor.Op, a []any) any {
	p := args.Uniform_Of(a)
	self := p.Self
	from, to := core.UniformBounds(self.DType(), p.From, p.To)
	genArg(p.Generator).Draw(func(e *tensor.Engine) { uniformFill(self, e, from, to) })
	self.BumpVersion()
	return self
}

// ---- normal_ and randn ----

// normalFill is ATen's normal_kernel on t.
func normalFill(t *tensor.Tensor, e *tensor.Engine, mean, std float64) {
	n := t.Numel()
	if n < 16 || !t.IsContiguous() {
		fillSerial(t, e, func(e *tensor.Engine) float64 { return e.Normal64(mean, std) })
		return
	}
	switch t.DType() {
	case tensor.Float32:
		normalFillF32(elems[float32](t), e, float32(mean), float32(std))
	case tensor.Float64:
		normalFillF64(elems[float64](t), e, mean, std)
	default:
		normalFillReduced(t, e, mean, std)
	}
}

// boxMullerBlocks runs fill16 over d's blocks of 16 and, when len(d) is not
// a multiple of 16, redraws d's last 16 elements with draw and runs fill16
// on them (normal_fill's tail rule). d holds uniforms on entry.
func boxMullerBlocks[T any](d []T, e *tensor.Engine, draw func(e *tensor.Engine) T, fill16 func(b []T)) {
	n := len(d)
	for i := 0; i+16 <= n; i += 16 {
		fill16(d[i : i+16])
	}
	if n%16 != 0 {
		tail := d[n-16:]
		for i := range tail {
			tail[i] = draw(e)
		}
		fill16(tail)
	}
}

// normalFillF32 is normal_fill_AVX2: float32 uniforms, then per pair
// radius = √(-2·log(1-u1)), θ = 2π·u2 with avx_mathfun's float32 log and
// sincos, and n·std + mean fused.
func normalFillF32(d []float32, e *tensor.Engine, mean, std float32) {
	draw := func(e *tensor.Engine) float32 { return e.Uniform32(0, 1) }
	for i := range d {
		d[i] = draw(e)
	}
	const twoPi = float32(2 * math.Pi)
	boxMullerBlocks(d, e, draw, func(b []float32) {
		for j := range 8 {
			u1 := 1 - b[j]
			u2 := b[j+8]
			radius := float32(math.Sqrt(float64(float32(-2 * libm.LogF32x8(u1)))))
			s, c := libm.SinCosF32x8(float32(twoPi * u2))
			b[j] = libm.FMA32(float32(radius*c), std, mean)
			b[j+8] = libm.FMA32(float32(radius*s), std, mean)
		}
	})
}

// normalFillF64 is normal_fill<double>: double uniforms, then per pair
// radius·cos θ·std + mean and radius·sin θ·std + mean (the last step fused).
func normalFillF64(d []float64, e *tensor.Engine, mean, std float64) {
	draw := func(e *tensor.Engine) float64 { return e.Uniform64(0, 1) }
	for i := range d {
		d[i] = draw(e)
	}
	boxMullerBlocks(d, e, draw, func(b []float64) {
		for j := range 8 {
			u1 := 1 - b[j]
			u2 := b[j+8]
			radius := math.Sqrt(-2 * libm.Log(u1))
			theta := float64(2*math.Pi) * u2
			b[j] = math.FMA(float64(radius*libm.Cos(theta)), std, mean)
			b[j+8] = math.FMA(float64(radius*libm.Sin(theta)), std, mean)
		}
	})
}

// normalFillReduced is normal_fill<Half> and <BFloat16>: the arithmetic in
// float, each named intermediate rounded to the dtype as c10's Half and
// BFloat16 operators round it (float's log, sin and cos are modelled by the
// double ones rounded to float).
func normalFillReduced(t *tensor.Tensor, e *tensor.Engine, mean, std float64) {
	dt := t.DType()
	digits := core.FloatDigits(dt)
	d := make([]float32, t.Numel())
	draw := func(e *tensor.Engine) float32 { return e.UniformBits32(digits) }
	for i := range d {
		d[i] = draw(e)
	}
	m, s := reduced(dt, float32(mean)), reduced(dt, float32(std))
	boxMullerBlocks(d, e, draw, func(b []float32) {
		for j := range 8 {
			u1 := reduced(dt, 1-b[j])
			u2 := b[j+8]
			radius := reduced(dt, float32(math.Sqrt(float64(-2*float32(libm.Log(float64(u1)))))))
			theta := reduced(dt, float32(float64(2*math.Pi)*float64(u2)))
			c, sn := float32(libm.Cos(float64(theta))), float32(libm.Sin(float64(theta)))
			b[j] = reduced(dt, libm.FMA32(float32(radius*c), s, m))
			b[j+8] = reduced(dt, libm.FMA32(float32(radius*sn), s, m))
		}
	})
	buf := make([]float64, len(d))
	for i, v := range d {
		buf[i] = float64(v)
	}
	storeF64(t.Storage(), dt, t.StorageOffset(), 1, buf)
}

// randnKernel is randn(size): a new tensor, normal_(0, 1).
func randnKernel(op *tensor.Op, a []any) any {
	out := allocMetaUninit(op, a)
	tensor.DefaultGenerator().Draw(func(e *tensor.Engine) { normalFill(out, e, 0, 1) })
	return out
}

// normalKernel is normal_(self, mean, std, *, generator).
func normalKernel(op *tensor.Op, a []any) any {
	p := args.Normal_Of(a)
	self, mean, std := p.Self, p.Mean, p.Std
	core.CheckNormal(self.DType(), std)
	genArg(p.Generator).Draw(func(e *tensor.Engine) { normalFill(self, e, mean, std) })
	self.BumpVersion()
	return self
}

// ---- bernoulli_, exponential_, random_ ----

// bernoulliKernel is bernoulli_.float(self, p, *, generator).
func bernoulliKernel(op *tensor.Op, a []any) any {
	v := args.Bernoulli_Of(a)
	self, p := v.Self, v.P
	core.CheckBernoulliP(p)
	genArg(v.Generator).Draw(func(e *tensor.Engine) {
		fillSerial(self, e, func(e *tensor.Engine) float64 { return b2f(e.Bernoulli64(p)) })
	})
	self.BumpVersion()
	return self
}

// bernoulliTensorKernel is bernoulli_.Tensor(self, p, *, generator): p
// broadcast to self, one draw per element of self in TensorIterator order,
// bernoulli_distribution<double> for float64 probabilities and <float>
// for the others.
func bernoulliTensorKernel(op *tensor.Op, a []any) any {
	v := args.BernoulliTensor_Of(a)
	self, p := v.Self, v.P
	core.CheckBernoulliTensor(p)
	p = p.ToDevice(tensor.CPU).Expand(self.Sizes()) // expand_inplace(self, p)
	pd := p.DType()
	s, dt := self.Storage(), self.DType()
	ps := p.Storage()
	genArg(v.Generator).Draw(func(e *tensor.Engine) {
		var pv, buf [blockLen]float64
		loopOver(self, p).run(func(offs *[maxArgs]int, n int, inner *[maxArgs]int) {
			for i := 0; i < n; i += blockLen {
				k := min(blockLen, n-i)
				loadF64(pv[:k], ps, pd, offs[1]+i*inner[1], inner[1])
				for j, q := range pv[:k] {
					tensor.Check(q >= 0 && q <= 1, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)")
					if pd == tensor.Float64 {
						buf[j] = b2f(e.Bernoulli64(q))
					} else {
						buf[j] = b2f(e.Bernoulli32(float32(q)))
					}
				}
				storeNumber(s, dt, offs[0]+i*inner[0], inner[0], buf[:k])
			}
		})
	})
	self.BumpVersion()
	return self
}

// exponentialKernel is exponential_(self, lambd, *, generator).
func exponentialKernel(op *tensor.Op, a []any) any {
	p := args.Exponential_Of(a)
	self, lambd := p.Self, p.Lambd
	core.CheckExponential(self.DType(), lambd)
	genArg(p.Generator).Draw(func(e *tensor.Engine) {
		fillSerial(self, e, func(e *tensor.Engine) float64 { return e.Exponential64(lambd) })
	})
	self.BumpVersion()
	return self
}

// fillSerialInt is fillSerial for integer draws, converted to t's dtype as
// static_cast<T>(int64_t) converts them (one rounding for a float dtype).
func fillSerialInt(t *tensor.Tensor, e *tensor.Engine, draw func(e *tensor.Engine) int64) {
	s, dt := t.Storage(), t.DType()
	var buf [blockLen]int64
	var fb [blockLen]float64
	loopOver(t).run(func(offs *[maxArgs]int, n int, inner *[maxArgs]int) {
		o, st := offs[0], inner[0]
		for i := 0; i < n; i += blockLen {
			k := min(blockLen, n-i)
			for j := range buf[:k] {
				buf[j] = draw(e)
			}
			switch dt {
			case tensor.Float32, tensor.Float16, tensor.BFloat16:
				for j, v := range buf[:k] {
					fb[j] = float64(float32(v))
				}
				storeF64(s, dt, o+i*st, st, fb[:k])
			case tensor.Float64:
				for j, v := range buf[:k] {
					fb[j] = float64(v)
				}
				storeF64(s, dt, o+i*st, st, fb[:k])
			default:
				storeI64(s, dt, o+i*st, st, buf[:k])
			}
		}
	})
}

// random64Types are the dtypes whose random_(from, to) draws 64-bit words
// for ranges of 2^32 or more (uniform_int_from_to_distribution).
func random64Type(d tensor.DType) bool {
	return d == tensor.Int64 || d == tensor.Float64 || d == tensor.Float32 || d == tensor.BFloat16
}

// randomFromTo fills t with random_(from, to) draws.
func randomFromTo(t *tensor.Tensor, e *tensor.Engine, from int64, to *int64) {
	rng, base, full := core.RandomRange(t.DType(), from, to)
	if t.Numel() == 0 {
		return
	}
	switch {
	case full:
		switch d := t.DType(); {
		case d == tensor.Float16 || d == tensor.Bool:
			tensor.Panicf("%q not implemented for '%s'", "random_full_64_bits_range_kernel_cpu", core.CTypeName(d))
		case !random64Type(d):
			tensor.Panicf("random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16")
		}
		fillSerialInt(t, e, func(e *tensor.Engine) int64 { return int64(e.Random64()) })
	case random64Type(t.DType()) && rng >= 1<<32:
		fillSerialInt(t, e, func(e *tensor.Engine) int64 { return int64(e.Random64()%rng + uint64(base)) })
	default:
		fillSerialInt(t, e, func(e *tensor.Engine) int64 { return int64(uint64(e.Random())%rng + uint64(base)) })
	}
}

// randomKernel is random_.from(self, from, to?), random_.to(self, to) and
// random_(self), each with a trailing generator.
func randomKernel(op *tensor.Op, a []any) any {
	self := args.Self(a)
	switch op.Schema.Overload {
	case "from":
		p := args.RandomFrom_Of(a)
		var to *int64
		if p.To.Ok {
			t := int64(p.To.V)
			to = &t
		}
		genArg(p.Generator).Draw(func(e *tensor.Engine) { randomFromTo(self, e, int64(p.From), to) })
	case "to":
		p := args.RandomTo_Of(a)
		t := int64(p.To)
		genArg(p.Generator).Draw(func(e *tensor.Engine) { randomFromTo(self, e, 0, &t) })
	default:
		genArg(args.Random_Of(a).Generator).Draw(func(e *tensor.Engine) { randomDefault(self, e) })
	}
	self.BumpVersion()
	return self
}

// randomDefault is random_() (uniform_int_distribution<T>): a 64-bit word
// for int64 and float64, a 32-bit one for the rest, reduced to [0, max]
// of an integral dtype or [0, 2^digits] of a float one; bool takes bit 0.
func randomDefault(t *tensor.Tensor, e *tensor.Engine) {
	d := t.DType()
	var mod uint64
	switch {
	case d == tensor.Bool:
		mod = 2
	case d.IsFloat():
		mod = 1<<core.FloatDigits(d) + 1
	default:
		_, hi := core.IntRange(d)
		mod = uint64(hi) + 1
	}
	wide := d == tensor.Int64 || d == tensor.Float64
	fillSerialInt(t, e, func(e *tensor.Engine) int64 {
		if wide {
			return int64(e.Random64() % mod)
		}
		return int64(uint64(e.Random()) % mod)
	})
}

// ---- randperm ----

// randpermKernel writes a random permutation of 0..n-1: for i from 0, swap
// element i with element i + (32-bit word mod (n-i)) (randperm_cpu).
func randpermKernel(op *tensor.Op, a []any) any {
	out := allocMeta(op, a)
	n := out.Numel()
	perm := make([]int64, n)
	for i := range perm {
		perm[i] = int64(i)
	}
	tensor.DefaultGenerator().Draw(func(e *tensor.Engine) {
		for i := 0; i < n-1; i++ {
			z := int(int64(e.Random()) % int64(n-i))
			perm[i], perm[z+i] = perm[z+i], perm[i]
		}
	})
	storeAnyI64(out.Storage(), out.DType(), 0, 1, perm)
	return out
}

// ---- multinomial ----

// multinomialKernel is multinomial(self, n, replacement, *, generator):
// with replacement the CPU kernel here, without it the decomposition
// (exponential_, div, argmax or topk), whose exponential_ runs here too.
func multinomialKernel(op *tensor.Op, a []any) any {
	v := args.MultinomialOf(a)
	self, n, replacement := v.Self, v.NumSamples, v.Replacement
	shape := core.MultinomialShape(self, n, replacement)
	if !replacement || tensor.Numel(shape) == 0 {
		return op.Composite()(op, a)
	}
	out := emptyUninit(tensor.Int64, shape...)
	res := elems[int64](out)
	k := self.Size(-1)
	rows := 1
	var rowStride int
	if self.Dim() == 2 {
		rows, rowStride = self.Size(0), self.Stride(0)
	}
	colStride := self.Stride(-1)
	wide := self.DType() == tensor.Float64
	p := make([]float64, k)
	cum := make([]float64, k)
	genArg(v.Generator).Draw(func(e *tensor.Engine) {
		for i := range rows {
			loadF64(p, self.Storage(), self.DType(), self.StorageOffset()+i*rowStride, colStride)
			cumulative(cum, p, wide)
			for j := range n {
				u := e.Uniform64(0, 1)
				lo, hi := 0, k
				for hi-lo > 0 {
					mid := lo + (hi-lo)/2
					if cum[mid] < u {
						lo = mid + 1
					} else {
						hi = mid
					}
				}
				res[i*n+j] = int64(lo)
			}
		}
	})
	return out
}

// cumulative writes the normalised cumulative distribution of p into cum,
// summed and divided in float64 when wide and in float32 otherwise (float
// for float16 and bfloat16 too), its last entry forced to 1; it checks the
// entries as multinomial_with_replacement_apply does.
func cumulative(cum, p []float64, wide bool) {
	var sum64 float64
	var sum32 float32
	for j, v := range p {
		tensor.Check(v >= 0, "invalid multinomial distribution (encountering probability entry < 0)")
		tensor.Check(!math.IsInf(v, 0) && !math.IsNaN(v), "invalid multinomial distribution (encountering probability entry = infinity or NaN)")
		if wide {
			sum64 += v
			cum[j] = sum64
		} else {
			sum32 += float32(v)
			cum[j] = float64(sum32)
		}
	}
	if !wide {
		sum64 = float64(sum32)
	}
	tensor.Check(sum64 > 0, "invalid multinomial distribution (sum of probabilities <= 0)")
	for j := range cum {
		if wide {
			cum[j] /= sum64
		} else {
			cum[j] = float64(float32(cum[j]) / sum32)
		}
	}
	cum[len(cum)-1] = 1
}

func init() {
	impl("aten::rand.default", randKernel)
	impl("aten::randn.default", randnKernel)
	impl("aten::randperm.default", randpermKernel)
	impl("aten::uniform_", uniformKernel)
	impl("aten::normal_", normalKernel)
	impl("aten::bernoulli_.float", bernoulliKernel)
	impl("aten::bernoulli_.Tensor", bernoulliTensorKernel)
	impl("aten::exponential_", exponentialKernel)
	impls(randomKernel, "aten::random_.from", "aten::random_.to", "aten::random_")
	impl("aten::multinomial", multinomialKernel)
}

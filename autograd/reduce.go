package autograd

import (
	"math"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// registerReduce registers the derivatives of the reduction family
// (aten/core/reduce.go): sum, mean, prod, amax/amin, var, cumsum and max/min
// along a dim.
func registerReduce() {
	// sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim, *, ScalarType? dtype)
	def("aten::sum.dim_IntList", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.SumOf(c.Args()), args.SumAt()
		c.Set(at.Self, sumBackward(c.G(0), c.Sizes(at.Self), p.Dim, p.Keepdim))
	}})
	// mean(Tensor self, *, ScalarType? dtype)
	def("aten::mean", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		at := args.MeanAt()
		c.Set(at.Self, c.G(0).Expand(c.Sizes(at.Self)).DivScalar(float64(c.In(at.Self).Numel())))
	}})
	// mean.dim(Tensor self, int[1]? dim, bool keepdim, *, ScalarType? dtype)
	def("aten::mean.dim", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.MeanDimOf(c.Args()), args.MeanDimAt()
		n := countOf(c.Sizes(at.Self), p.Dim)
		c.Set(at.Self, sumBackward(c.G(0), c.Sizes(at.Self), p.Dim, p.Keepdim).DivScalar(float64(n)))
	}})
	def("aten::prod", fn(func(c *Ctx) {
		at := args.ProdAt()
		c.Set(at.Self, prodBackward(c.G(0), c.T(at.Self).To(c.Out(0).DType()), c.Out(0)))
	}))
	// prod.dim_int(Tensor self, int dim, bool keepdim, *, ScalarType? dtype)
	def("aten::prod.dim_int", fn(func(c *Ctx) {
		p, at := args.ProdDimOf(c.Args()), args.ProdDimAt()
		c.Set(at.Self, prodDimBackward(c.G(0), c.T(at.Self).To(c.Out(0).DType()), c.Out(0), p.Dim, p.Keepdim))
	}))
	// amax(Tensor self, int[1] dim, bool keepdim); amin reads its view as
	// amax's.
	amaxBackward := func(c *Ctx, p args.Amax, at struct{ Self int }) {
		x, dims, keep := c.T(at.Self), p.Dim, p.Keepdim
		g, r := c.G(0), c.Out(0)
		if !keep && x.Dim() > 0 {
			g = unsqueezeDims(g, dims, x.Dim())
			r = unsqueezeDims(r, dims, x.Dim())
		}
		mask := r.Eq(x)
		var cnt *T
		if x.Dim() == 0 {
			cnt = mask.To(g.DType())
		} else {
			cnt = mask.Sum(reduceDims(dims, x.Dim()), tensor.WithKeepdim(true))
		}
		c.Set(at.Self, g.Div(cnt).Mul(mask.To(g.DType())))
	}
	def("aten::amax", fn(func(c *Ctx) { amaxBackward(c, args.AmaxOf(c.Args()), args.AmaxAt()) }))
	def("aten::amin", fn(func(c *Ctx) { amaxBackward(c, args.Amax(args.AminOf(c.Args())), args.AminAt()) }))
	// var.correction(Tensor self, int[1]? dim, *, Scalar? correction, bool keepdim)
	def("aten::var.correction", fn(func(c *Ctx) {
		p, at := args.VarOf(c.Args()), args.VarAt()
		corr := 1.0
		if p.Correction.Ok {
			corr = p.Correction.V.Float64()
		}
		c.Set(at.Self, varBackward(c.G(0), c.T(at.Self), p.Dim, p.Dim == nil, corr, p.Keepdim))
	}))
	// var.dim(Tensor self, int[1]? dim, bool unbiased, bool keepdim)
	def("aten::var.dim", fn(func(c *Ctx) {
		p, at := args.VarDimOf(c.Args()), args.VarDimAt()
		corr := 0.0
		if p.Unbiased {
			corr = 1
		}
		c.Set(at.Self, varBackward(c.G(0), c.T(at.Self), p.Dim, p.Dim == nil, corr, p.Keepdim))
	}))
	// cumsum(Tensor self, int dim, *, ScalarType? dtype)
	def("aten::cumsum", &Deriv{SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.CumsumOf(c.Args()), args.CumsumAt()
		g := c.G(0).To(c.In(at.Self).DType())
		d := tensor.WrapDim(p.Dim, c.In(at.Self).Dim())
		if g.Numel() <= 1 || g.Dim() == 0 || g.Size(d) == 1 {
			c.Set(at.Self, g)
			return
		}
		c.Set(at.Self, reversedCumsum(g, d))
	}})
	// max.dim / min.dim(Tensor self, int dim, bool keepdim) -> (values, indices)
	maxDim := func(c *Ctx, p args.MaxDim, at struct{ Self int }) {
		x := c.In(at.Self)
		d := tensor.WrapDim(p.Dim, x.Dim())
		c.Set(at.Self, valueSelecting(c.G(0), d, c.Out(1), x.Sizes(), p.Keepdim))
	}
	def("aten::max.dim", &Deriv{Outputs: []int{0}, SelfUnused: true, Backward: func(c *Ctx) {
		maxDim(c, args.MaxDimOf(c.Args()), args.MaxDimAt())
	}})
	def("aten::min.dim", &Deriv{Outputs: []int{0}, SelfUnused: true, Backward: func(c *Ctx) {
		maxDim(c, args.MaxDim(args.MinDimOf(c.Args())), args.MinDimAt())
	}})
	// PyTorch does not differentiate these.
	for _, n := range []string{"aten::any", "aten::any.dim", "aten::any.dims"} {
		def(n, nondiff("returns a bool tensor"))
	}
	for _, n := range []string{"aten::argmax", "aten::argmin"} {
		def(n, nondiff("returns integer indices"))
	}
	def("aten::_local_scalar_dense", nondiff("returns a Scalar, not a tensor"))
}

// prodBackward is the gradient of prod over all elements, exact where the
// input has a zero.
func prodBackward(g, x, result *T) *T {
	if x.Dim() == 0 {
		return g
	}
	if !hasData(x) {
		// Which formula applies depends on the values; any has the right metadata.
		return prodSafeZeros(g, x.Contiguous().View([]int{-1}), 0).View(x.Shape())
	}
	zeros := x.EqScalar(0.0).SumAll().Item().Int64()
	switch {
	case zeros == 0:
		return g.Mul(result.Div(x))
	case zeros > 1:
		return x.ZerosLike()
	}
	return prodSafeZeros(g, x.Contiguous().View([]int{-1}), 0).View(x.Shape())
}

func prodDimBackward(g, x, result *T, dim int, keepdim bool) *T {
	if x.Dim() == 0 {
		return g
	}
	dim = tensor.WrapDim(dim, x.Dim())
	if !keepdim {
		g = g.Unsqueeze(dim)
		result = result.Unsqueeze(dim)
	}
	if hasData(x) && x.EqScalar(0.0).SumAll().Item().Int64() == 0 {
		return g.Mul(result.Div(x))
	}
	return prodSafeZeros(g, x, dim)
}

// prodSafeZeros is the gradient of a product along dim as the product of
// the elements before and after each position (no division).
func prodSafeZeros(g, x *T, dim int) *T {
	if x.Numel() == 0 {
		return g.Expand(x.Sizes())
	}
	n := x.Size(dim)
	os := x.Shape()
	os[dim] = 1
	ones := g.NewOnes(os)
	excl := tensor.Cat([]*T{ones, x.Narrow(dim, 0, n-1)}, tensor.WithDim(dim)).Cumprod(dim)
	rev := x.Narrow(dim, 1, n-1).Flip([]int{dim})
	exclRev := tensor.Cat([]*T{ones, rev}, tensor.WithDim(dim)).Cumprod(dim).Flip([]int{dim})
	return g.Mul(excl.Mul(exclRev))
}

// varBackward is 2/(n - correction) * g * (x - mean).
func varBackward(g, x *T, dims []int, all bool, corr float64, keepdim bool) *T {
	if x.Dim() == 0 || all {
		n := float64(x.Numel())
		if n == corr {
			return g.MulScalar(math.Inf(1))
		}
		return g.MulScalar(2.0 / (n - corr)).Mul(x.Sub(x.Mean()))
	}
	if !keepdim && x.Dim() > 1 {
		g = unsqueezeDims(g, dims, x.Dim())
	}
	// PyTorch 1.13 counts the elements of an empty dim list as 1 here
	// (_safe_size), though the mean runs over every dim.
	n := 1
	if len(dims) > 0 {
		n = countOf(x.Sizes(), dims)
	}
	dof := float64(n) - corr
	rd := reduceDims(dims, x.Dim())
	return g.MulScalar(2.0 / dof).Mul(x.Sub(x.MeanDim(rd, tensor.WithKeepdim(true))))
}

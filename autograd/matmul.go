package autograd

import (
	"math"

	"github.com/goaten/goaten/aten/args"
)

// registerMatmul registers the derivatives of the matmul family
// (aten/core/matmul.go): addmm, mm, bmm and the pairwise distances.
func registerMatmul() {
	// addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta, Scalar alpha)
	def("aten::addmm", fn(func(c *Ctx) {
		p, at := args.AddmmOf(c.Args()), args.AddmmAt()
		g := c.G(0)
		if c.Needs(at.Self) {
			c.Set(at.Self, maybeMul(g, p.Beta))
		}
		if c.Needs(at.Mat1) {
			c.Set(at.Mat1, maybeMul(mmMat1Backward(g, c.T(at.Mat2), c.Sizes(at.Mat1), c.Strides(at.Mat1)), p.Alpha))
		}
		if c.Needs(at.Mat2) {
			c.Set(at.Mat2, maybeMul(mmMat2Backward(g, c.T(at.Mat1), c.Sizes(at.Mat2), c.Strides(at.Mat2)), p.Alpha))
		}
	}))
	// mm(Tensor self, Tensor mat2)
	def("aten::mm", fn(func(c *Ctx) {
		at := args.MmAt()
		g := c.G(0)
		if c.Needs(at.Self) {
			c.Set(at.Self, mmMat1Backward(g, c.T(at.Mat2), c.Sizes(at.Self), c.Strides(at.Self)))
		}
		if c.Needs(at.Mat2) {
			c.Set(at.Mat2, mmMat2Backward(g, c.T(at.Self), c.Sizes(at.Mat2), c.Strides(at.Mat2)))
		}
	}))
	// bmm(Tensor self, Tensor mat2)
	def("aten::bmm", fn(func(c *Ctx) {
		at := args.BmmAt()
		g := c.G(0)
		if c.Needs(at.Self) {
			c.Set(at.Self, g.Bmm(c.T(at.Mat2).Transpose(1, 2)))
		}
		if c.Needs(at.Mat2) {
			c.Set(at.Mat2, c.T(at.Self).Transpose(1, 2).Bmm(g))
		}
	}))
	// _cdist_forward(Tensor x1, Tensor x2, float p, int? compute_mode)
	def("aten::_cdist_forward", fn(cdistBackward))
	// _pdist_forward(Tensor self, float p)
	def("aten::_pdist_forward", fn(pdistBackward))
}

// columnMajor reports whether a matrix with these sizes and strides is
// stored column by column (the transpose of a row-major one), as a weight
// used through .t() is.
func columnMajor(sizes, strides []int) bool { return strides[0] == 1 && strides[1] == sizes[0] }

// mmMat1Backward is the gradient of mat1 in mat1·mat2 (mm_mat1_backward):
// g·mat2ᵀ, computed as (mat2·gᵀ)ᵀ when mat1 (of these sizes and strides) is
// column-major, so that the gradient has mat1's layout.
func mmMat1Backward(g, mat2 *T, sizes, strides []int) *T {
	if columnMajor(sizes, strides) {
		return mat2.Mm(g.T()).T()
	}
	return g.Mm(mat2.T())
}

// mmMat2Backward is the gradient of mat2 in mat1·mat2 (mm_mat2_backward):
// mat1ᵀ·g, computed as (gᵀ·mat1)ᵀ when mat2 is column-major.
func mmMat2Backward(g, mat1 *T, sizes, strides []int) *T {
	if columnMajor(sizes, strides) {
		return g.T().Mm(mat1).T()
	}
	return mat1.T().Mm(g)
}

// distTerm is the derivative of a p-norm distance d with respect to one
// coordinate difference (the kernels of PyTorch's _cdist_backward).
func distTerm(diff, d *T, p float64) *T {
	switch {
	case p == 0:
		return diff.ZerosLike()
	case p == 1:
		return diff.Sign()
	case math.IsInf(p, 1):
		return diff.Sign().Mul(diff.Abs().Eq(d).To(diff.DType()))
	case p == 2:
		return zeroWhere(d.EqScalar(0.0), diff.Div(d))
	case p < 2:
		t := diff.Sign().Mul(diff.Abs().PowScalar(p - 1)).Div(d.PowScalar(p - 1))
		cond := d.EqScalar(0.0)
		if p < 1 {
			cond = cond.LogicalOr(diff.EqScalar(0.0))
		}
		return zeroWhere(cond, t)
	}
	t := diff.Mul(diff.Abs().PowScalar(p - 2)).Div(d.PowScalar(p - 1))
	return zeroWhere(d.EqScalar(0.0), t)
}

// cdistBackward is _cdist_forward(x1 [.., P, M], x2 [.., R, M], p).
func cdistBackward(c *Ctx) {
	at := args.InternalCdistForwardAt()
	x1, x2, g, d := c.T(at.X1), c.T(at.X2), c.G(0), c.Out(0)
	p := args.InternalCdistForwardOf(c.Args()).P
	diff := x1.Unsqueeze(-2).Sub(x2.Unsqueeze(-3))
	t := g.Unsqueeze(-1).Mul(distTerm(diff, d.Unsqueeze(-1), p))
	if c.Needs(at.X1) {
		c.Set(at.X1, t.Sum([]int{-2}))
	}
	if c.Needs(at.X2) {
		c.Set(at.X2, t.Sum([]int{-3}).Neg())
	}
}

// pdistBackward is _pdist_forward(self [N, M], p): distances of the pairs
// i < j in row-major order.
func pdistBackward(c *Ctx) {
	p, at := args.InternalPdistForwardOf(c.Args()), args.InternalPdistForwardAt()
	x, g, d := c.T(at.Self), c.G(0), c.Out(0)
	n := x.Size(0)
	var I, J []int64
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			I = append(I, int64(i))
			J = append(J, int64(j))
		}
	}
	if len(I) == 0 {
		c.Set(at.Self, x.ZerosLike())
		return
	}
	ti, tj := ints(I, x), ints(J, x)
	diff := x.IndexSelect(0, ti).Sub(x.IndexSelect(0, tj))
	t := g.Unsqueeze(-1).Mul(distTerm(diff, d.Unsqueeze(-1), p.P))
	z := zerosOf(g, x.Sizes())
	c.Set(at.Self, z.IndexAdd(0, ti, t).IndexAdd(0, tj, t.Neg()))
}

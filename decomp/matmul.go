package decomp

import (
	"strings"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// Products: matmul and linear over the core mm/bmm/addmm, vector products,
// the batched add-products, einsum and distances.

func init() {
	def("aten::matmul", matmulOp)
	def("aten::linear", linear)
	def("aten::bilinear", bilinear)
	def("aten::dot", dot)
	def("aten::mv", mv)
	def("aten::outer", outer)
	def("aten::addr", addr)
	def("aten::baddbmm", baddbmm)
	def("aten::addbmm", addbmm)
	def("aten::einsum", einsum)
	def("aten::cross", cross)
	def("aten::linalg_cross", linalgCross)
	def("aten::cdist", cdist)
	def("aten::pairwise_distance", pairwiseDistance)
	def("aten::cosine_similarity", cosineSimilarity)
}

func matmulOp(op *tensor.Op, a []any) any {
	p := args.MatmulOf(a)
	return matmul(p.Self, p.Other)
}

// mT swaps the last two dims.
func mT(x *T) *T { return transpose(x, -2, -1) }

// matmul follows ATen's matmul: dot, mv and mm for the 1-d and 2-d cases;
// a batched operand times a matrix or vector folds the batch into the rows
// of one mm; otherwise the batch dims broadcast and go through bmm.
func matmul(a, b *T) *T {
	d1, d2 := a.Dim(), b.Dim()
	if d1 == 0 || d2 == 0 {
		tensor.Panicf("both arguments to matmul need to be at least 1D, but they are %dD and %dD", d1, d2)
	}
	switch {
	case d1 == 1 && d2 == 1:
		return a.Dot(b)
	case d1 == 2 && d2 == 1:
		return a.Mv(b)
	case d1 == 1 && d2 == 2:
		return a.Unsqueeze(0).Mm(b).Squeeze(0)
	case d1 == 2 && d2 == 2:
		return a.Mm(b)
	case shouldFold(a, d2) || shouldFold(b, d1):
		transposed := d2 > d1
		t1, t2 := a, b
		if transposed {
			t1 = mT(b)
			t2 = a
			if d1 == 2 {
				t2 = transpose(a, 0, 1)
			}
		}
		s1 := t1.Shape()
		outShape := append([]int{}, s1[:len(s1)-1]...)
		folded := reshape(t1, []int{prod(outShape), s1[len(s1)-1]})
		if t2.Dim() == 1 {
			return folded.Mv(t2).View(outShape)
		}
		outShape = append(outShape, t2.Size(1))
		out := folded.Mm(t2).View(outShape)
		if transposed {
			out = cloneContig(mT(out))
		}
		return out
	}
	n, m1 := 1, a.Size(-1)
	if d1 > 1 {
		n = a.Size(-2)
	}
	m2, p := b.Size(-1), 1
	if d2 > 1 {
		m2, p = b.Size(-2), b.Size(-1)
	}
	batch := tensor.BroadcastShapes(a.Sizes()[:max(d1-2, 0)], b.Sizes()[:max(d2-2, 0)])
	nb := prod(batch)
	if d1 == 1 {
		a = a.Unsqueeze(0)
	}
	if d2 == 1 {
		b = b.Unsqueeze(-1)
	}
	a = reshape(a.Expand(append(append([]int{}, batch...), n, m1)), []int{nb, n, m1})
	b = reshape(b.Expand(append(append([]int{}, batch...), m2, p)), []int{nb, m2, p})
	out := append([]int{}, batch...)
	if d1 > 1 {
		out = append(out, n)
	}
	if d2 > 1 {
		out = append(out, p)
	}
	return a.Bmm(b).View(out)
}

// shouldFold reports whether a batched t1 times a matrix or vector can fold
// its batch into one mm (not when the fold would need a transposing copy).
func shouldFold(t1 *T, d2 int) bool {
	d1 := t1.Dim()
	if d1 < 3 || (d2 != 1 && d2 != 2) {
		return false
	}
	s, st := t1.Sizes(), t1.Strides()
	return !(d1 == 3 && d2 == 2 && st[2] != 1 && st[0] == s[1]*s[2])
}

func linear(op *tensor.Op, a []any) any {
	p := args.LinearOf(a)
	x, w, bias := p.Input, p.Weight, p.Bias
	if x.Dim() == 2 && bias != nil {
		return bias.Addmm(x, transposeOf(w))
	}
	if x.Dim() == 3 && bias != nil && x.IsContiguous() {
		s := x.Sizes()
		r := bias.Addmm(x.View([]int{s[0] * s[1], s[2]}), transposeOf(w))
		return r.View([]int{s[0], s[1], r.Size(1)})
	}
	out := matmul(x, transposeOf(w))
	if bias != nil {
		// ATen adds the bias in place; the functional add keeps this
		// decomposition free of mutation, so devices without in-place ops
		// run it as is. The result keeps out's shape and dtype as add_ would.
		res := out.Add(bias)
		core.CheckInplaceResult(out, res)
		out = res.To(out.DType())
	}
	return out
}

// transposeOf is x.t().
func transposeOf(x *T) *T { return x.T() }

func bilinear(op *tensor.Op, a []any) any {
	p := args.BilinearOf(a)
	x1, x2, w, bias := p.Input1, p.Input2, p.Weight, p.Bias
	if x1.Dim() != x2.Dim() {
		tensor.Panicf("bilinear(): input dimensions do not match: got %d and %d", x1.Dim(), x2.Dim())
	}
	for i := 0; i < x1.Dim()-1; i++ {
		if x1.Size(i) != x2.Size(i) {
			tensor.Panicf("bilinear(): input batch dimensions do not match: got %d and %d", x1.Size(i), x2.Size(i))
		}
	}
	if x1.Size(-1) != w.Size(1) {
		tensor.Panicf("bilinear(): input1 size does not match weight size: got %d but expected %d", x1.Size(-1), w.Size(1))
	}
	if x2.Size(-1) != w.Size(2) {
		tensor.Panicf("bilinear(): input2 size does not match weight size: got %d but expected %d", x2.Size(-1), w.Size(2))
	}
	if bias != nil && bias.Size(0) != w.Size(0) {
		tensor.Panicf("bilinear(): bias size does not match weight size: got %d but expected %d", biasSize(bias), w.Size(0))
	}
	o, i, j := w.Size(0), w.Size(1), w.Size(2)
	outShape := append(x1.Shape()[:x1.Dim()-1], o)
	f1, f2 := reshape(x1, []int{-1, i}), reshape(x2, []int{-1, j})
	// out[b, o] = sum_ij x1[b, i] w[o, i, j] x2[b, j]
	t := f1.Mm(reshape(w.Permute([]int{1, 0, 2}), []int{i, o * j})).View([]int{-1, o, j})
	out := reshape(t.Mul(f2.Unsqueeze(1)).Sum([]int{2}), outShape)
	if bias != nil {
		out = out.Add(bias)
	}
	return out
}

func biasSize(b *T) int {
	if b == nil || b.Dim() == 0 {
		return 0
	}
	return b.Size(0)
}

func dot(op *tensor.Op, a []any) any {
	p := args.DotOf(a)
	x, y := p.Self, p.Tensor
	if x.Dim() != 1 || y.Dim() != 1 {
		tensor.Panicf("1D tensors expected, but got %dD and %dD tensors", x.Dim(), y.Dim())
	}
	if x.DType() != y.DType() {
		tensor.Panicf("dot : expected both vectors to have same dtype, but found %s and %s", core.CTypeName(x.DType()), core.CTypeName(y.DType()))
	}
	if x.Numel() != y.Numel() {
		tensor.Panicf("inconsistent tensor size, expected tensor [%d] and src [%d] to have the same number of elements, but got %d and %d elements respectively",
			x.Numel(), y.Numel(), x.Numel(), y.Numel())
	}
	need("dot", x.DType(), realsBF)
	return sumDType(x.Mul(y), nil, false, x.DType())
}

func mv(op *tensor.Op, a []any) any {
	p := args.MvOf(a)
	m, v := p.Self, p.Vec
	if m.Dim() != 2 || v.Dim() != 1 {
		tensor.Panicf("vector + matrix @ vector expected, got 1, %d, %d", m.Dim(), v.Dim())
	}
	if m.Size(1) != v.Size(0) {
		tensor.Panicf("size mismatch, got %d, %dx%d,%d", m.Size(0), m.Size(0), m.Size(1), v.Size(0))
	}
	return m.Mm(v.Unsqueeze(1)).Squeeze(1)
}

func outer(op *tensor.Op, a []any) any {
	p := args.OuterOf(a)
	x, y := p.Self, p.Vec2
	if x.Dim() != 1 {
		tensor.Panicf("outer: Expected 1-D argument self, but got %d-D", x.Dim())
	}
	if y.Dim() != 1 {
		tensor.Panicf("outer: Expected 1-D argument vec2, but got %d-D", y.Dim())
	}
	return reshape(x, []int{x.Size(0), 1}).Mul(y)
}

// axpby is beta*self + alpha*prod with PyTorch's BLAS conventions: beta == 0
// ignores self (its NaNs included), and integer results take integer factors.
func axpby(self, prod *T, beta, alpha tensor.Scalar) *T {
	d := tensor.ResultType(self, prod)
	if !d.IsFloat() {
		beta, alpha = tensor.Int(beta.Int64()), tensor.Int(alpha.Int64())
	}
	if !isOne(alpha) {
		prod = prod.MulScalar(alpha)
	}
	if isZero(beta) {
		return prod.To(d)
	}
	if !isOne(beta) {
		self = self.MulScalar(beta)
	}
	return self.Add(prod)
}

func isOne(s tensor.Scalar) bool  { return s.Float64() == 1 }
func isZero(s tensor.Scalar) bool { return s.Float64() == 0 }

func addr(op *tensor.Op, a []any) any {
	p := args.AddrOf(a)
	self, v1, v2, beta, alpha := p.Self, p.Vec1, p.Vec2, p.Beta, p.Alpha
	if v1.Dim() != 1 {
		tensor.Panicf("addr: Expected 1-D argument vec1, but got %d-D", v1.Dim())
	}
	if v2.Dim() != 1 {
		tensor.Panicf("addr: Expected 1-D argument vec2, but got %d-D", v2.Dim())
	}
	self = self.Expand([]int{v1.Size(0), v2.Size(0)})
	if self.DType() == tensor.Bool {
		o := v1.Unsqueeze(1).Mul(v2)
		if isZero(alpha) {
			o = fullOn(self, self.Shape(), false, tensor.Bool)
		}
		if isZero(beta) {
			return o
		}
		return self.LogicalOr(o)
	}
	return axpby(self, v1.Unsqueeze(1).Mul(v2), beta, alpha)
}

func baddbmm(op *tensor.Op, a []any) any {
	v := args.BaddbmmOf(a)
	self, b1, b2 := v.Self, v.Batch1, v.Batch2
	tensor.Check(b1.Dim() == 3, "batch1 must be a 3D tensor")
	tensor.Check(b2.Dim() == 3, "batch2 must be a 3D tensor")
	p := b1.Bmm(b2)
	// 1.13 writes into a result of the batches' dtype, self copied in.
	self = self.Expand(p.Shape()).To(p.DType())
	return axpby(self, p, v.Beta, v.Alpha)
}

// addbmm sums the batch of products as one mm over the concatenated batch.
func addbmm(op *tensor.Op, a []any) any {
	v := args.AddbmmOf(a)
	self, b1, b2 := v.Self, v.Batch1, v.Batch2
	tensor.Check(b1.Dim() == 3, "batch1 must be a 3D tensor")
	tensor.Check(b2.Dim() == 3, "batch2 must be a 3D tensor")
	if b1.Size(0) != b2.Size(0) {
		tensor.Panicf("batch1 and batch2 must have same number of batches, got %d and %d", b1.Size(0), b2.Size(0))
	}
	if b1.Size(2) != b2.Size(1) {
		tensor.Panicf("Incompatible matrix sizes for bmm (%dx%d and %dx%d)", b1.Size(1), b1.Size(2), b2.Size(1), b2.Size(2))
	}
	// 1.13 runs addmm_ into a result like self, batch by batch.
	tensor.Check(self.DType() == b2.DType(), "self and mat2 must have the same dtype")
	tensor.Check(b1.DType() == b2.DType(), "mat1 and mat2 must have the same dtype")
	nb, n, m, p := b1.Size(0), b1.Size(1), b1.Size(2), b2.Size(2)
	l := reshape(b1.Permute([]int{1, 0, 2}), []int{n, nb * m})
	r := reshape(b2, []int{nb * m, p})
	prodT := l.Mm(r)
	self = self.Expand([]int{n, p})
	return axpby(self, prodT, v.Beta, v.Alpha)
}

func cross(op *tensor.Op, a []any) any {
	p := args.CrossOf(a)
	x, y := p.Self, p.Other
	if p.Dim.Ok {
		return crossAlong(x, y, p.Dim.V)
	}
	for i, s := range x.Sizes() {
		if s == 3 {
			return crossAlong(x, y, i)
		}
	}
	tensor.Panicf("no dimension of size 3 in input")
	return nil
}

func linalgCross(op *tensor.Op, a []any) any {
	p := args.LinalgCrossOf(a)
	return crossAlong(p.Self, p.Other, p.Dim)
}

func crossAlong(x, y *T, dim int) *T {
	tensor.Check(x.Dim() == y.Dim(), "linalg.cross: inputs must have the same number of dimensions.")
	if x.Size(dim) != 3 || y.Size(dim) != 3 {
		tensor.Panicf("linalg.cross: inputs dimension %d must have length 3. Got %d and %d", dim, x.Size(dim), y.Size(dim))
	}
	d := wrapDim(dim, x.Dim())
	xs := func(i int) *T { return x.Slice(tensor.WithDim(d), tensor.WithStart(i), tensor.WithEnd(i+1)) }
	ys := func(i int) *T { return y.Slice(tensor.WithDim(d), tensor.WithStart(i), tensor.WithEnd(i+1)) }
	c0 := xs(1).Mul(ys(2)).Sub(xs(2).Mul(ys(1)))
	c1 := xs(2).Mul(ys(0)).Sub(xs(0).Mul(ys(2)))
	c2 := xs(0).Mul(ys(1)).Sub(xs(1).Mul(ys(0)))
	return tensor.Cat([]*T{c0, c1, c2}, tensor.WithDim(d))
}

func cdist(op *tensor.Op, a []any) any {
	p := args.CdistOf(a)
	x1, x2 := p.X1, p.X2
	if x1.Dim() < 2 {
		tensor.Panicf("cdist only supports at least 2D tensors, X1 got: %dD", x1.Dim())
	}
	if x2.Dim() < 2 {
		tensor.Panicf("cdist only supports at least 2D tensors, X2 got: %dD", x2.Dim())
	}
	if x1.Size(-1) != x2.Size(-1) {
		tensor.Panicf("X1 and X2 must have the same number of columns. X1: %d X2: %d", x1.Size(-1), x2.Size(-1))
	}
	return invoke("aten::_cdist_forward", args.InternalCdistForward{X1: x1, X2: x2, P: p.P, ComputeMode: p.ComputeMode}.Box()).(*T)
}

func pairwiseDistance(op *tensor.Op, a []any) any {
	v := args.PairwiseDistanceOf(a)
	x1, x2, p, eps, keepdim := v.X1, v.X2, v.P, v.Eps, v.Keepdim
	last := max(x1.Dim(), x2.Dim()) - 1
	return norm(x1.Sub(x2).AddScalar(eps), args.Some(tensor.Float(p)), []int{last}, keepdim, args.Opt[tensor.DType]{})
}

func cosineSimilarity(op *tensor.Op, a []any) any {
	p := args.CosineSimilarityOf(a)
	x1, x2, dim, eps := p.X1, p.X2, p.Dim, p.Eps
	d := tensor.ResultType(x1, x2)
	if !d.IsFloat() {
		tensor.Panicf("expected common dtype to be floating point, yet common dtype is %s", core.CTypeName(d))
	}
	x1, x2 = x1.To(d), x2.To(d)
	shape := tensor.BroadcastShapes(x1.Sizes(), x2.Sizes())
	x1, x2 = x1.Expand(shape), x2.Expand(shape)
	n1 := vectorNorm(x1, 2, []int{dim}, true).Clamp(tensor.WithMin(eps))
	n2 := vectorNorm(x2, 2, []int{dim}, true).Clamp(tensor.WithMin(eps))
	return x1.Div(n1).Mul(x2.Div(n2)).Sum([]int{dim})
}

// einsum parses the equation, aligns every operand to one label order
// (taking diagonals for repeated labels, unsqueezing missing ones), then
// contracts operands pairwise (left to right, or along path) with
// sumproductPair, and sums what is left of the contracted labels.
func einsum(op *tensor.Op, a []any) any {
	p := args.EinsumOf(a)
	eq, ops := p.Equation, p.Tensors
	tensor.Check(len(ops) > 0, "einsum(): must provide at least one operand")
	path := p.Path
	if path != nil {
		want := 1
		if len(ops) > 1 {
			want = (len(ops) - 1) * 2
		}
		if len(path) != want {
			tensor.Panicf("einsum(): expected contraction path given in path parameter to have size %d but got %d", want, len(path))
		}
	}
	s := parseEinsum(eq, ops)
	aligned, counts := s.align(ops)
	return s.contract(aligned, counts, path)
}

// Einsum labels: a-z and A-Z as 0..51, and the ellipsis.
const (
	nLabels  = 52
	ellipsis = 52
)

func labelOf(c byte) int {
	if c >= 'A' && c <= 'Z' {
		return int(c - 'A')
	}
	return int(c-'a') + 26
}

func labelChar(l int) byte {
	if l < 26 {
		return byte('A' + l)
	}
	return byte('a' + l - 26)
}

func isAlpha(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

// einsumSpec is a parsed equation: every operand's labels, and the dim each
// label (and the ellipsis) takes in the aligned layout, output dims first.
type einsumSpec struct {
	labels   [][]int
	dimOf    []int // label -> aligned dim
	ellDims  int   // dims the widest ellipsis covers
	ellAt    int   // aligned dim of the ellipsis' first dim
	outDims  int   // dims of the output
	allDims  int   // output dims plus contracted ones
	nOperand int
}

func parseEinsum(eq string, ops []*T) *einsumSpec {
	s := &einsumSpec{labels: make([][]int, len(ops)), nOperand: len(ops)}
	arrow := strings.Index(eq, "->")
	lhs := eq
	if arrow >= 0 {
		lhs = eq[:arrow]
	}
	cur, ell := 0, false
	for i := 0; i < len(lhs); i++ {
		switch c := lhs[i]; {
		case c == ' ':
		case c == '.':
			if ell {
				tensor.Panicf("einsum(): found '.' for operand %d for which an ellipsis was already found", cur)
			}
			if i+2 >= len(lhs) || lhs[i+1] != '.' || lhs[i+2] != '.' {
				tensor.Panicf("einsum(): found '.' for operand %d that is not part of any ellipsis", cur)
			}
			i += 2
			s.labels[cur] = append(s.labels[cur], ellipsis)
			ell = true
		case c == ',':
			cur++
			tensor.Check(cur < len(ops), "einsum(): fewer operands were provided than specified in the equation")
			ell = false
		default:
			if !isAlpha(c) {
				tensor.Panicf("einsum(): invalid subscript given at index %d in the equation string, subscripts must be in [a-zA-Z]", i)
			}
			s.labels[cur] = append(s.labels[cur], labelOf(c))
		}
	}
	tensor.Check(cur == len(ops)-1, "einsum(): more operands were provided than specified in the equation")

	count := make([]int, nLabels)
	for i, x := range ops {
		n, hasEll := len(s.labels[i]), false
		for _, l := range s.labels[i] {
			if l == ellipsis {
				n--
				hasEll = true
			} else {
				count[l]++
			}
		}
		if hasEll {
			s.ellDims = max(s.ellDims, x.Dim()-n)
			if n > x.Dim() {
				tensor.Panicf("einsum(): the number of subscripts in the equation (%d) is more than the number of dimensions (%d) for operand %d", n, x.Dim(), i)
			}
		} else {
			if n != x.Dim() {
				tensor.Panicf("einsum(): the number of subscripts in the equation (%d) does not match the number of dimensions (%d) for operand %d and no ellipsis was given", n, x.Dim(), i)
			}
		}
	}

	s.dimOf = make([]int, nLabels)
	for i := range s.dimOf {
		s.dimOf[i] = -1
	}
	next, ellOut := 0, false
	if arrow < 0 {
		// Implicit output: the ellipsis, then the labels seen once, in order.
		next, ellOut = s.ellDims, true
		for l := 0; l < nLabels; l++ {
			if count[l] == 1 {
				s.dimOf[l] = next
				next++
			}
		}
	} else {
		rhs := eq[arrow+2:]
		for i := 0; i < len(rhs); i++ {
			switch c := rhs[i]; {
			case c == ' ':
			case c == '.':
				tensor.Check(!ellOut, "einsum(): found '.' for output but an ellipsis (...) was already found")
				tensor.Check(i+2 < len(rhs) && rhs[i+1] == '.' && rhs[i+2] == '.', "einsum(): found '.' for output that is not part of any ellipsis (...)")
				i += 2
				s.ellAt, next, ellOut = next, next+s.ellDims, true
			default:
				if !isAlpha(c) {
					tensor.Panicf("einsum(): invalid subscript given at index %d in the equation string, subscripts must be in [a-zA-Z]", len(lhs)+2+i)
				}
				l := labelOf(c)
				if count[l] == 0 || s.dimOf[l] != -1 {
					what := " does not appear in the equation for any input operand"
					if s.dimOf[l] != -1 {
						what = " appears more than once in the output"
					}
					tensor.Panicf("einsum(): output subscript %c%s", c, what)
				}
				s.dimOf[l] = next
				next++
			}
		}
	}
	s.outDims = next
	if !ellOut {
		s.ellAt = next
		next += s.ellDims
	}
	for l := 0; l < nLabels; l++ {
		if count[l] > 0 && s.dimOf[l] == -1 {
			s.dimOf[l] = next
			next++
		}
	}
	s.allDims = next
	return s
}

// align permutes every operand to the aligned layout (size 1 where a label
// is missing) and counts, per aligned dim, the operands where it is not 1.
func (s *einsumSpec) align(ops []*T) ([]*T, []int) {
	labelSize := ones(nLabels)
	ellSizes := ones(s.ellDims)
	counts := make([]int, s.allDims)
	out := make([]*T, len(ops))
	for i, x := range ops {
		perm := make([]int, s.allDims)
		for k := range perm {
			perm[k] = -1
		}
		dim := 0
		for _, l := range s.labels[i] {
			switch {
			case l == ellipsis:
				nd := ops[i].Dim() - (len(s.labels[i]) - 1)
				for j := s.ellDims - nd; j < s.ellDims; j++ {
					if n := x.Size(dim); n != 1 {
						if ellSizes[j] != 1 && ellSizes[j] != n {
							tensor.Panicf("einsum(): dimension %d covered by ellipsis in operand %dhas size %d which does not broadcast with previously seen ellipsis with size %d for the respective dimension", dim, i, n, ellSizes[j])
						}
						ellSizes[j] = n
						counts[s.ellAt+j]++
					}
					perm[s.ellAt+j] = dim
					dim++
				}
			case perm[s.dimOf[l]] == -1:
				if n := x.Size(dim); n != 1 {
					if labelSize[l] != 1 && labelSize[l] != n {
						tensor.Panicf("einsum(): subscript %c has size %d for operand %d which does not broadcast with previously seen size %d", labelChar(l), n, i, labelSize[l])
					}
					labelSize[l] = n
					counts[s.dimOf[l]]++
				}
				perm[s.dimOf[l]] = dim
				dim++
			default: // a repeated label: take the diagonal
				prev := perm[s.dimOf[l]]
				if x.Size(dim) != x.Size(prev) {
					tensor.Panicf("einsum(): subscript %c is repeated for operand %d but the sizes don't match, %d != %d", labelChar(l), i, x.Size(dim), x.Size(prev))
				}
				x = movedim(x.Diagonal(tensor.WithDim1(prev), tensor.WithDim2(dim)), []int{-1}, []int{prev})
			}
		}
		for k := range perm {
			if perm[k] == -1 {
				x = x.Unsqueeze(dim)
				perm[k] = dim
				dim++
			}
		}
		out[i] = x.Permute(perm)
	}
	return out, counts
}

// contract multiplies the aligned operands pairwise, summing each
// contracted dim as soon as no later operand has it.
func (s *einsumSpec) contract(list []*T, counts, path []int) *T {
	for step := 0; len(list) > 1; step++ {
		i, j := 0, 1
		if path != nil {
			i, j = path[2*step], path[2*step+1]
			if j < i {
				i, j = j, i
			}
			if i == j || i < 0 || j >= len(list) {
				what := ") operand index is out of bounds"
				if i == j {
					what = ") cannot contract an operand with itself"
				}
				tensor.Panicf("einsum(): invalid contraction (%d, %d%s", i, j, what)
			}
		}
		x, y := list[i], list[j]
		rest := append(append(append([]*T{}, list[:i]...), list[i+1:j]...), list[j+1:]...)
		var sumDims, xSum, ySum []int
		for d := s.outDims; d < s.allDims; d++ {
			switch {
			case x.Size(d) != 1 && y.Size(d) != 1:
				if counts[d]--; counts[d] == 1 {
					sumDims = append(sumDims, d)
					counts[d] = 0
				}
			case counts[d] == 1 && x.Size(d) != 1:
				xSum = append(xSum, d)
				counts[d] = 0
			case counts[d] == 1 && y.Size(d) != 1:
				ySum = append(ySum, d)
				counts[d] = 0
			}
		}
		if len(xSum) > 0 {
			x = x.Sum(xSum, tensor.WithKeepdim(true))
		}
		if len(ySum) > 0 {
			y = y.Sum(ySum, tensor.WithKeepdim(true))
		}
		r := sumproductPair(x, y, sumDims)
		if path != nil {
			list = append(rest, r)
		} else {
			list = append([]*T{r}, rest...)
		}
	}
	res := list[0]
	switch {
	case s.allDims == s.outDims:
		return res
	case s.nOperand > 1: // the contracted dims are all 1 by now
		return res.View(res.Shape()[:s.outDims])
	}
	return res.Sum(iota(s.allDims)[s.outDims:])
}

// sumproductPair is (left*right).sum(sumDims, keepdim=True) for operands of
// equal rank, computed as one bmm: dims in both and kept are the batch,
// dims in one only are the rows or columns, summed dims the inner size.
func sumproductPair(l, r *T, sumDims []int) *T {
	if len(sumDims) == 0 {
		return l.Mul(r)
	}
	n := l.Dim()
	isSum := make([]bool, n)
	for _, d := range sumDims {
		isSum[d] = true
	}
	var lro, lo, ro []int
	lroSize, loSize, roSize, sumSize := 1, 1, 1, 1
	for i := 0; i < n; i++ {
		sl, sr := l.Size(i) != 1, r.Size(i) != 1
		switch {
		case isSum[i]:
			switch {
			case sl && sr:
				tensor.Check(l.Size(i) == r.Size(i), "non-broadcast dimensions must match")
				sumSize *= l.Size(i)
			case sl:
				l = l.Sum([]int{i}, tensor.WithKeepdim(true))
			case sr:
				r = r.Sum([]int{i}, tensor.WithKeepdim(true))
			}
		case sl && sr:
			tensor.Check(l.Size(i) == r.Size(i), "non-broadcast dimensions must match")
			lro = append(lro, i)
			lroSize *= l.Size(i)
		case sl:
			lo = append(lo, i)
			loSize *= l.Size(i)
		default:
			ro = append(ro, i)
			roSize *= r.Size(i)
		}
	}
	var outSize []int
	for _, d := range lro {
		outSize = append(outSize, l.Size(d))
	}
	for _, d := range lo {
		outSize = append(outSize, l.Size(d))
	}
	for range sumDims {
		outSize = append(outSize, 1)
	}
	for _, d := range ro {
		outSize = append(outSize, r.Size(d))
	}
	lperm := append(append(append(append([]int{}, lro...), lo...), sumDims...), ro...)
	rperm := append(append(append(append([]int{}, lro...), sumDims...), ro...), lo...)
	operm := make([]int, len(lperm))
	for i, d := range lperm {
		operm[d] = i
	}
	lm := reshape(l.Permute(lperm), []int{lroSize, loSize, sumSize})
	rm := reshape(r.Permute(rperm), []int{lroSize, sumSize, roSize})
	return lm.Bmm(rm).View(outSize).Permute(operm)
}

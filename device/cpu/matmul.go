package cpu

import (
	"math"
	"runtime"

	"github.com/goaten/goaten/asm"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/internal/parallel"
	"github.com/goaten/goaten/tensor"
)

// Matrix products (mm, bmm, addmm) and pairwise distances (_cdist_forward,
// _pdist_forward). float32 and float64 run the blocked GEMM in their own
// precision straight from the operands' strided storage; bfloat16 runs it in
// float32 and rounds once; integer dtypes run it in int64, which wraps to the
// same result as PyTorch's arithmetic in the narrower type.

// matOf views a 2-d tensor, or the batch-0 matrix of a 3-d one, of dtype T.
func matOf[T gemmNum](t *tensor.Tensor) gmat[T] {
	d := t.Dim()
	return gmat[T]{data: data[T](t), off: t.StorageOffset(), rs: t.Stride(d - 2), cs: t.Stride(d - 1)}
}

// batchStride is the batch stride of a 3-d tensor.
func batchStride(t *tensor.Tensor) int {
	if t.Dim() == 3 {
		return t.Stride(0)
	}
	return 0
}

// gemmCompute is the dtype a product of dtype d runs in.
func gemmCompute(d tensor.DType) tensor.DType {
	switch d {
	case tensor.Float32, tensor.Float64:
		return d
	case tensor.BFloat16, tensor.Float16:
		return tensor.Float32
	}
	return tensor.Int64
}

// matmulInto computes out = beta·self + alpha·(a·b) for 2-d a, b (bs = 0) or
// 3-d batches, where out is a fresh contiguous tensor (zeroed) and self, when
// not nil, broadcasts to out's shape. beta == 0 ignores self entirely (NaN
// included) and alpha == 0 skips the product, as BLAS does.
func matmulInto(out, self *tensor.Tensor, beta, alpha tensor.Scalar, a, b *tensor.Tensor) {
	if out.Numel() == 0 {
		return
	}
	if out.DType() == tensor.BFloat16 {
		matmulBF16(out, self, beta, alpha, a, b)
		return
	}
	ct := gemmCompute(out.DType())
	c := out
	if ct != out.DType() {
		c = tensor.Empty(ct, out.Sizes()...)
	}
	switch ct {
	case tensor.Float32:
		matmulTyped[float32](c, self, float32(beta.Float64()), float32(alpha.Float64()), a, b)
	case tensor.Float64:
		matmulTyped(c, self, beta.Float64(), alpha.Float64(), a, b)
	default:
		matmulTyped(c, self, core.GemmIntScalar(beta, out.DType()), core.GemmIntScalar(alpha, out.DType()), a, b)
	}
	if c != out {
		copyInto(out, c)
	}
}

func matmulTyped[T gemmNum](c, self *tensor.Tensor, beta, alpha T, a, b *tensor.Tensor) {
	ct := c.DType()
	cd := data[T](c)[:c.Numel()]
	if self != nil && beta != 0 {
		if !copyRow(cd, c.Size(-1), self, ct) {
			copyInto(c, self)
		}
		if beta != 1 {
			for i := range cd {
				cd[i] *= beta
			}
		}
	}
	// Without self (or with beta 0) c's prior contents do not count: the
	// GEMM overwrites it rather than adding to it.
	over := self == nil || beta == 0
	if alpha == 0 {
		if over {
			clear(cd)
		}
		return
	}
	if a.DType() != ct {
		a = toDType(a, ct)
	}
	if b.DType() != ct {
		b = toDType(b, ct)
	}
	k := a.Size(-1)
	m, n := c.Size(-2), c.Size(-1)
	bs := 1
	if c.Dim() == 3 {
		bs = c.Size(0)
	}
	gemmBatched(bs, m, n, k, alpha, matOf[T](a), batchStride(a), matOf[T](b), batchStride(b), cd, over)
}

// copyRow copies self into each row of n elements of cd when self is one
// contiguous row of dtype ct broadcast over them (addmm's bias, [n] or
// [1, n]), and reports whether it did: a copy a row, without the strided
// walk's setup (nor its goroutines' closures on one core).
func copyRow[T gemmNum](cd []T, n int, self *tensor.Tensor, ct tensor.DType) bool {
	if self.DType() != ct || self.Dim() == 0 || self.Size(-1) != n || self.Numel() != n || !self.IsContiguous() {
		return false
	}
	row := elems[T](self)
	if parallel.Pieces(len(cd), grain) < 2 {
		fillRows(cd, row, 0, len(cd)/n)
	} else {
		forRows(len(cd)/n, n, func(lo, hi int) { fillRows(cd, row, lo, hi) })
	}
	return true
}

// fillRows copies row into rows [lo, hi) of cd.
func fillRows[T gemmNum](cd, row []T, lo, hi int) {
	n := len(row)
	for i := lo; i < hi; i++ {
		copy(cd[i*n:(i+1)*n], row)
	}
}

// matmulBF16 reproduces PyTorch 1.13's bfloat16 products bit for bit on
// CPUs with AVX-512 (where the golden records come from): products of more
// than 16·16·16 multiply-adds per matrix go to oneDNN, which accumulates in
// float32 and rounds once (the batch size does not count: the bfloat16 record
// of matmul [5,5,10,10]@[5,5,10,5], 25 batches of 500, rounds like the
// reference loops); smaller ones run cpublas' reference loops, which (except for
// the transposed-A variant) round every partial sum, and every product, to
// bfloat16 in order along k.
func matmulBF16(out, self *tensor.Tensor, beta, alpha tensor.Scalar, a, b *tensor.Tensor) {
	m, n := out.Size(-2), out.Size(-1)
	k := a.Size(-1)
	bs := 1
	if out.Dim() == 3 {
		bs = out.Size(0)
	}
	c := tensor.Empty(tensor.Float32, out.Sizes()...)
	cd := data[float32](c)[:c.Numel()]
	bt, al := float32(beta.Float64()), float32(alpha.Float64())
	if self != nil && bt != 0 {
		copyInto(c, self)
	}
	a32, b32 := toDType(a, tensor.Float32), toDType(b, tensor.Float32)
	am, bm := matOf[float32](a32), matOf[float32](b32)
	sa, sb := batchStride(a32), batchStride(b32)
	switch {
	case k == 0:
		// addmm_impl_cpu_: result = self·beta (zero when beta is 0).
		if self != nil && bt != 0 {
			for i := range cd {
				cd[i] = bf16Round(cd[i] * bt)
			}
		}
	case m*n*k > 16*16*16:
		dot := make([]float32, len(cd))
		gemmBatched(bs, m, n, k, 1, am, sa, bm, sb, dot, false)
		for i := range cd {
			v := al * dot[i]
			if self != nil && bt != 0 {
				v += bt * cd[i]
			}
			cd[i] = v
		}
	case out.Dim() == 3 && m*n*k < 400:
		// baddbmm_cpu_kernel: a bfloat16 accumulator.
		for bi := range bs {
			x, y := am, bm
			x.off += bi * sa
			y.off += bi * sb
			for i := range m {
				for j := range n {
					var acc float32
					for l := range k {
						acc = bf16Round(acc + bf16Round(x.at(i, l)*y.at(l, j)))
					}
					cd[(bi*m+i)*n+j] = acc
				}
			}
		}
	default:
		for bi := range bs {
			x, y := am, bm
			x.off += bi * sa
			y.off += bi * sb
			cpublasBF16(m, n, k, bt, al, self != nil && bt != 0, x, y, gmat[float32]{rs: a.Stride(-2), cs: a.Stride(-1)}, gmat[float32]{rs: b.Stride(-2), cs: b.Stride(-1)}, cd[bi*m*n:(bi+1)*m*n])
		}
	}
	copyInto(out, c)
}

// bf16Round rounds a float32 to the nearest bfloat16.
func bf16Round(v float32) float32 { return tensor.BF16ToFloat32(tensor.Float32ToBF16(v)) }

// cpublasBF16 is addmm_impl_cpu_ followed by cpublas' reference gemm for
// one row-major m×n result c (holding self when useSelf): it picks the
// column-major transposition PyTorch would from the operands' strides.
// sa and sb carry the original operands' strides, which choose the variant.
func cpublasBF16(m, n, k int, beta, alpha float32, useSelf bool, a, b gmat[float32], sa, sb gmat[float32], c []float32) {
	// The result is contiguous, so PyTorch computes cᵀ = bᵀ·aᵀ unless it is a column.
	transC := n != 1
	m1, m2, M, N := a, b, m, n
	s1, s2 := sa, sb
	if transC {
		m1, m2, M, N = b.t(), a.t(), n, m
		s1, s2 = sb.t(), sa.t()
	}
	// m1 is M×k and m2 is k×N in column-major terms (rs is the unit stride).
	transA := false
	switch {
	case s1.rs == 1 && s1.cs >= max(1, M):
	case s1.cs == 1 && s1.rs >= max(1, k):
		transA = true
	default:
		transA = !transC
	}
	transB := false
	switch {
	case s2.rs == 1 && s2.cs >= max(1, k):
	case s2.cs == 1 && s2.rs >= max(1, N):
		transB = true
	default:
		transB = !transC
	}
	at := func(i, j int) int { // index in c of column-major element (i, j)
		if transC {
			return i + j*n
		}
		return i*n + j
	}
	if transA && !transB {
		// gemm_transa_: a float32 dot product per element, rounded once.
		for i := range M {
			for j := range N {
				var dot float32
				for l := range k {
					dot += m1.at(i, l) * m2.at(l, j)
				}
				v := alpha * dot
				if useSelf {
					v += beta * c[at(i, j)]
				}
				c[at(i, j)] = bf16Round(v)
			}
		}
		return
	}
	// gemm_notrans_ and friends: c *= beta, then c += a·(b·alpha) along k
	// in bfloat16 arithmetic.
	if !useSelf {
		clear(c)
	} else if beta != 1 {
		bb := bf16Round(beta)
		for i := range c {
			c[i] = bf16Round(c[i] * bb)
		}
	}
	for l := range k {
		for j := range N {
			val := m2.at(l, j) * alpha
			for i := range M {
				o := at(i, j)
				c[o] = bf16Round(c[o] + bf16Round(m1.at(i, l)*val))
			}
		}
	}
}

// mmKernel is the kernel of mm and bmm; of reads the op's view (bmm's
// converts to mm's).
func mmKernel(of func([]any) args.Mm) outKernel {
	return func(out *tensor.Tensor, op *tensor.Op, list []any) {
		p := of(list)
		a, b := p.Self, p.Mat2
		if !mmOverwrite(out, a, b) {
			if out.DType() == tensor.BFloat16 {
				clearElems(out) // matmulBF16 adds into out
			}
			matmulInto(out, nil, tensor.Int(0), tensor.Int(1), a, b) // overwrites out
		}
	}
}

// mmOverwrite writes out = a·b for 2-d float32 or float64 operands with a
// BLAS layout through the assembly GEMM with beta = 0, which writes every
// element of out without reading it (so out need not be zeroed first), and
// reports whether it did. The result is the bits matmulInto's path gives
// (the same kernels, adding to a zeroed C).
func mmOverwrite(out, a, b *tensor.Tensor) bool {
	d := out.DType()
	if a.Dim() != 2 || (d != tensor.Float32 && d != tensor.Float64) || a.DType() != d || b.DType() != d ||
		a.Size(1) == 0 || out.Numel() == 0 {
		return false // bmm (this kernel's too), other dtypes, nothing to add up
	}
	m, k, n := a.Size(0), a.Size(1), b.Size(1)
	ta, lda, okA := blasLayout(m, k, a.Stride(0), a.Stride(1))
	tb, ldb, okB := blasLayout(k, n, b.Stride(0), b.Stride(1))
	if !okA || !okB {
		return false
	}
	if d == tensor.Float32 && m <= gemvRows && gemvSmall(m, n, k, 1, 0, matOf[float32](a), matOf[float32](b), data[float32](out)[:m*n], n) {
		return true // a few rows: B read in place (gemv.go)
	}
	switch d {
	case tensor.Float32:
		asm.Sgemm(ta, tb, m, n, k, 1, data[float32](a)[a.StorageOffset():], lda,
			data[float32](b)[b.StorageOffset():], ldb, 0, data[float32](out)[:m*n], n)
	default:
		asm.Dgemm(ta, tb, m, n, k, 1, data[float64](a)[a.StorageOffset():], lda,
			data[float64](b)[b.StorageOffset():], ldb, 0, data[float64](out)[:m*n], n)
	}
	return true
}

func addmmKernel(out *tensor.Tensor, op *tensor.Op, a []any) {
	p := args.AddmmOf(a)
	self, beta := p.Self, p.Beta
	if d := out.DType(); (d != tensor.Float32 && d != tensor.Float64) || beta.Float64() == 0 {
		// matmulInto adds into a zeroed result, except where it first
		// copies beta·self over all of it (linear's bias).
		clearElems(out)
	}
	matmulInto(out, self, beta, p.Alpha, p.Mat1, p.Mat2)
}

// distance kinds, by p.
const (
	distZero = iota // number of differing coordinates
	distOne         // Manhattan
	distTwo         // Euclidean
	distInf         // Chebyshev
	distP           // general Minkowski
)

// distKind picks the kernel as 1.13's does: std::isinf(p), so _pdist_forward
// called with p = -inf (pdist and cdist reject p < 0 before) takes the
// maximum too.
func distKind(p float64) int {
	switch {
	case p == 0:
		return distZero
	case p == 1:
		return distOne
	case p == 2:
		return distTwo
	case math.IsInf(p, 0):
		return distInf
	}
	return distP
}

// dist is the p-distance between rows x and y, computed in float32 when
// f32 is set (float32 inputs: 1.13 computes in the input's dtype, so a
// coordinate difference of 1e30 overflows its cube). PyTorch's cdist takes
// the maximum with std::max, which skips NaN, while pdist's vectorised
// maximum propagates it: nanMax selects the latter.
func dist(x, y []float64, kind int, p float64, nanMax, f32 bool) float64 {
	if f32 {
		return distIn[float32](x, y, kind, p, nanMax)
	}
	return distIn[float64](x, y, kind, p, nanMax)
}

func distIn[T float32 | float64](x, y []float64, kind int, p float64, nanMax bool) float64 {
	y = y[:len(x)]
	abs := func(v T) T { return T(math.Abs(float64(v))) }
	var agg T
	switch kind {
	case distZero:
		for i, v := range x {
			d := T(v) - T(y[i])
			if d != 0 {
				if d != d {
					agg += d
				} else {
					agg++
				}
			}
		}
	case distOne:
		for i, v := range x {
			agg += abs(T(v) - T(y[i]))
		}
	case distTwo:
		for i, v := range x {
			d := T(v) - T(y[i])
			agg += d * d
		}
		agg = T(math.Sqrt(float64(agg)))
	case distInf:
		for i, v := range x {
			d := abs(T(v) - T(y[i]))
			if d > agg || (nanMax && d != d) {
				agg = d
			}
			if nanMax && agg != agg {
				break
			}
		}
	default:
		for i, v := range x {
			agg += T(math.Pow(float64(abs(T(v)-T(y[i]))), p))
		}
		agg = T(math.Pow(float64(agg), 1/p))
	}
	return float64(agg)
}

func cdistKernel(op *tensor.Op, list []any) any {
	out := allocMeta(op, list)
	cd := args.InternalCdistForwardOf(list)
	x1, x2, p := cd.X1, cd.X2, cd.P
	r1, r2, c := x1.Size(-2), x2.Size(-2), x1.Size(-1)
	if out.Numel() == 0 || c == 0 {
		return out
	}
	batch := out.Sizes()[:out.Dim()-2]
	bs := tensor.Numel(batch)
	// Expand both operands over the broadcast batch, contiguous in float64.
	expand := func(x *tensor.Tensor, r int) []float64 {
		shape := append(append([]int(nil), batch...), r, c)
		v := tensor.NewMeta(shape, tensor.BroadcastStrides(x, shape), x.StorageOffset(), x.DType(), x.Device()).WithRaw(x.Raw())
		dst := tensor.Empty(tensor.Float64, shape...)
		copyInto(dst, v)
		return data[float64](dst)[:bs*r*c]
	}
	a, b := expand(x1, r1), expand(x2, r2)
	res := make([]float64, bs*r1*r2)
	mode := core.CdistMode(list)
	if p == 2 && (mode == 1 || (mode == 0 && (r1 > 25 || r2 > 25))) {
		euclidMM(bs, r1, r2, c, a, b, res)
	} else {
		kind, f32 := distKind(p), x1.DType() == tensor.Float32
		parallelFor(bs*r1, workers(bs*r1*r2*c), func(row int) {
			bi := row / r1
			x := a[row*c : (row+1)*c]
			o := res[row*r2 : (row+1)*r2]
			for j := range o {
				y := b[(bi*r2+j)*c : (bi*r2+j+1)*c]
				o[j] = dist(x, y, kind, p, false, f32)
			}
		})
	}
	storeF64(out.Storage(), out.DType(), 0, 1, res)
	return out
}

// euclidMM is PyTorch's _euclidean_dist: sqrt(max(|x|² + |y|² − 2·x·y, 0))
// with the cross term from a matrix product, which is what cdist uses for
// p=2 on many rows.
func euclidMM(bs, r1, r2, c int, a, b, res []float64) {
	n1 := make([]float64, bs*r1)
	n2 := make([]float64, bs*r2)
	for i := range n1 {
		for _, v := range a[i*c : (i+1)*c] {
			n1[i] += v * v
		}
	}
	for i := range n2 {
		for _, v := range b[i*c : (i+1)*c] {
			n2[i] += v * v
		}
	}
	gemmBatched(bs, r1, r2, c, -2, gmat[float64]{data: a, rs: c, cs: 1}, r1*c,
		gmat[float64]{data: b, rs: 1, cs: c}, r2*c, res, false)
	for bi := range bs {
		for i := range r1 {
			o := res[(bi*r1+i)*r2 : (bi*r1+i+1)*r2]
			for j := range o {
				o[j] = math.Sqrt(max(o[j]+n1[bi*r1+i]+n2[bi*r2+j], 0))
			}
		}
	}
}

// workers is how many goroutines a job of about n multiply-adds deserves.
func workers(n int) int {
	if n < 1<<16 {
		return 1
	}
	return max(1, min(n>>16, runtime.GOMAXPROCS(0)))
}

func pdistKernel(op *tensor.Op, list []any) any {
	out := allocMeta(op, list)
	pd := args.InternalPdistForwardOf(list)
	x, p := pd.Self, pd.P
	if out.Numel() == 0 {
		return out
	}
	n, m := x.Size(0), x.Size(1)
	// The kernel treats the (contiguous) input as rows of m elements; rows
	// of nothing (a zero size in any dim past the first) are at distance 0.
	total := x.Numel()
	if m == 0 || total == 0 {
		return out
	}
	src := tensor.NewMeta([]int{total}, []int{1}, x.StorageOffset(), x.DType(), x.Device()).WithRaw(x.Raw())
	buf := tensor.Empty(tensor.Float64, total)
	copyInto(buf, src)
	a := data[float64](buf)[:total]
	res := make([]float64, out.Numel())
	kind, f32 := distKind(p), x.DType() == tensor.Float32
	if total == n*m {
		parallelFor(n-1, workers(n*n*m/2), func(i int) {
			// pairs (i, j>i) start at index i·n − i(i+1)/2 in row-major order.
			k := i*n - i*(i+1)/2
			x := a[i*m : (i+1)*m]
			for j := i + 1; j < n; j++ {
				res[k] = dist(x, a[j*m:(j+1)*m], kind, p, true, f32)
				k++
			}
		})
	} else {
		// More than two dims: PyTorch walks the second row pointer to the
		// end of the whole input before moving the first one on.
		xi, xj := 0, m
		for k := range res {
			res[k] = dist(a[xi:xi+m], a[xj:xj+m], kind, p, true, f32)
			xj += m
			if xj == total {
				xi += m
				xj = xi + m
			}
		}
	}
	storeF64(out.Storage(), out.DType(), 0, 1, res)
	return out
}

func init() {
	implOut("aten::mm.default", mmKernel(args.MmOf))
	implOut("aten::bmm.default", mmKernel(func(a []any) args.Mm { return args.Mm(args.BmmOf(a)) }))
	implOut("aten::addmm.default", addmmKernel)
	impl("aten::_cdist_forward.default", cdistKernel)
	impl("aten::_pdist_forward.default", pdistKernel)
}

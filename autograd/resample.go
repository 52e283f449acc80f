package autograd

import (
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// grid_sampler_2d's gradient is the vector-Jacobian product of a
// composite of the same sampler written in core ops: coordinates are
// unnormalized and padded, taps gathered, and weighted. The clipping and
// reflection of coordinates pass gradients as PyTorch's kernels do:
// nothing through a clipped coordinate, a sign flip per reflection.

const (
	gridBilinear = 0
	gridNearest  = 1
	gridBicubic  = 2
	padZeros     = 0
	padBorder    = 1
	padReflect   = 2
)

func gridSamplerBackward(c *Ctx) {
	p, at := args.GridSampler2dOf(c.Args()), args.GridSampler2dAt()
	mode, padding, align := p.InterpolationMode, p.PaddingMode, p.AlignCorners
	f := func(in []*T) []*T { return []*T{gridSample(in[0], in[1], mode, padding, align)} }
	r := vjp(f, []*T{c.T(at.Input), c.T(at.Grid)}, []bool{c.Needs(at.Input), c.Needs(at.Grid)}, []*T{c.G(0)}, c.Create())
	c.Set(at.Input, r[0])
	c.Set(at.Grid, r[1])
}

type gridAxis struct {
	n      int
	align  bool
	pad    int
	span2  float64 // twice the reflection span
	low    float64
	maxVal float64
}

func newAxis(n int, align bool, pad int) gridAxis {
	a := gridAxis{n: n, align: align, pad: pad, maxVal: float64(n - 1)}
	if align {
		a.span2 = float64(n-1) * 2
	} else {
		a.span2 = float64(n) * 2
		a.low = -0.5
	}
	return a
}

func (a gridAxis) unnormalize(g *T) *T {
	if a.align {
		return g.AddScalar(1).MulScalar(float64(a.n-1) / 2)
	}
	return g.AddScalar(1).MulScalar(float64(a.n) / 2).SubScalar(0.5)
}

// clip keeps c inside [0, n-1]; the gradient passes only strictly inside.
func (a gridAxis) clip(c *T) *T {
	hi := tensor.WhereScalarOther(c.LtScalar(a.maxVal), c, a.maxVal)
	return tensor.WhereScalarOther(c.GtScalar(0.0), hi, 0.0)
}

func (a gridAxis) reflect(c *T) *T {
	if a.span2 == 0 {
		return c.ZerosLike()
	}
	in := c.SubScalar(a.low)
	sign := tensor.WhereScalar(in.LtScalar(0.0), -1.0, 1.0).To(c.DType())
	ain := in.Mul(sign)
	flips := ain.DivScalar(a.span2).Trunc()
	extra := ain.Sub(flips.MulScalar(a.span2))
	other := extra.RsubScalar(a.span2)
	r := tensor.Where(other.Lt(extra).LogicalOr(other.Isnan()), other, extra)
	return r.AddScalar(a.low)
}

func (a gridAxis) padded(c *T) *T {
	switch a.pad {
	case padBorder:
		return a.clip(c)
	case padReflect:
		return a.clip(a.reflect(c))
	}
	return c
}

// gather reads x [N, C, H, W] at integral coordinates (cx, cy) [N, gH, gW],
// with zeros outside the input.
func gather(x, cx, cy *T) *T {
	N, C, H, W := x.Size(0), x.Size(1), x.Size(2), x.Size(3)
	valid := cx.GeScalar(0.0).LogicalAnd(cx.LtScalar(float64(W))).LogicalAnd(cy.GeScalar(0.0)).LogicalAnd(cy.LtScalar(float64(H)))
	lin := where0(valid, cy.MulScalar(float64(W)).Add(cx)).To(tensor.Int64)
	gh, gw := cx.Size(1), cx.Size(2)
	idx := lin.Reshape([]int{N, 1, gh * gw}).Expand([]int{N, C, gh * gw})
	v := x.Reshape([]int{N, C, H * W}).Gather(2, idx).Reshape([]int{N, C, gh, gw})
	return where0(valid.Unsqueeze(1), v)
}

func cubic1(x *T) *T { // ((A+2)x - (A+3)) x x + 1
	const A = -0.75
	return x.MulScalar(A + 2).SubScalar(A + 3).Mul(x).Mul(x).AddScalar(1)
}

func cubic2(x *T) *T { // ((A x - 5A) x + 8A) x - 4A
	const A = -0.75
	return x.MulScalar(A).SubScalar(5 * A).Mul(x).AddScalar(8 * A).Mul(x).SubScalar(4 * A)
}

func gridSample(x, grid *T, mode, pad int, align bool) *T {
	ax, ay := newAxis(x.Size(3), align, pad), newAxis(x.Size(2), align, pad)
	gx, gy := grid.Select(3, 0), grid.Select(3, 1)
	ix, iy := ax.unnormalize(gx), ay.unnormalize(gy)
	switch mode {
	case gridNearest:
		ix, iy = ax.padded(ix), ay.padded(iy)
		return gather(x, ix.Round().Detach(), iy.Round().Detach())
	case gridBicubic:
		fx, fy := ix.Floor().Detach(), iy.Floor().Detach()
		tx, ty := ix.Sub(fx), iy.Sub(fy)
		cx := []*T{cubic2(tx.AddScalar(1)), cubic1(tx), cubic1(tx.RsubScalar(1)), cubic2(tx.RsubScalar(2))}
		cy := []*T{cubic2(ty.AddScalar(1)), cubic1(ty), cubic1(ty.RsubScalar(1)), cubic2(ty.RsubScalar(2))}
		var out *T
		for i := 0; i < 4; i++ {
			yi := ay.padded(fy.AddScalar(float64(i - 1))).Detach()
			var row *T
			for j := 0; j < 4; j++ {
				xj := ax.padded(fx.AddScalar(float64(j - 1))).Detach()
				t := gather(x, xj, yi).Mul(cx[j].Unsqueeze(1))
				if row == nil {
					row = t
				} else {
					row = row.Add(t)
				}
			}
			t := row.Mul(cy[i].Unsqueeze(1))
			if out == nil {
				out = t
			} else {
				out = out.Add(t)
			}
		}
		return out
	}
	ix, iy = ax.padded(ix), ay.padded(iy)
	x0, y0 := ix.Floor().Detach(), iy.Floor().Detach()
	we, ns := ix.Sub(x0), iy.Sub(y0)
	ew, sn := we.RsubScalar(1), ns.RsubScalar(1)
	x1, y1 := x0.AddScalar(1), y0.AddScalar(1)
	out := gather(x, x0, y0).Mul(sn.Mul(ew).Unsqueeze(1))
	out = out.Add(gather(x, x1, y0).Mul(sn.Mul(we).Unsqueeze(1)))
	out = out.Add(gather(x, x0, y1).Mul(ns.Mul(ew).Unsqueeze(1)))
	out = out.Add(gather(x, x1, y1).Mul(ns.Mul(we).Unsqueeze(1)))
	return out
}

// registerResample registers the derivatives of the resampling family
// (aten/core/resample.go): upsampling and grid_sampler_2d.
func registerResample() {
	// upsample_nearest2d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors)
	def("aten::upsample_nearest2d.vec", &Deriv{SelfUnused: true, Backward: upsampleNearestBackward})
	// upsample_bilinear2d.vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors)
	def("aten::upsample_bilinear2d.vec", &Deriv{SelfUnused: true, Backward: upsampleBilinearBackward})
	// grid_sampler_2d(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners)
	def("aten::grid_sampler_2d", fn(gridSamplerBackward))
}

// upsampleNearestBackward is upsample_nearest2d.vec(input, output_size, scale_factors).
func upsampleNearestBackward(c *Ctx) {
	at := args.UpsampleNearest2dAt()
	r := core.UpsampleGeometry(c.on.d.op, c.on.args)
	d := c.In(at.Input).DType()
	mats := [][]float64{
		oneHot(core.NearestIndices(r.InH, r.OutH, r.ScaleH, r.ChannelsLast, d), r.InH),
		oneHot(core.NearestIndices(r.InW, r.OutW, r.ScaleW, r.ChannelsLast, d), r.InW),
	}
	c.Set(at.Input, applyT(c.G(0), mats, []int{r.InH, r.InW}))
}

func oneHot(idx []int, in int) []float64 {
	m := make([]float64, len(idx)*in)
	for o, i := range idx {
		m[o*in+i] = 1
	}
	return m
}

// upsampleBilinearBackward is upsample_bilinear2d.vec(input, output_size,
// align_corners, scale_factors).
func upsampleBilinearBackward(c *Ctx) {
	p, at := args.UpsampleBilinear2dOf(c.Args()), args.UpsampleBilinear2dAt()
	r := core.UpsampleGeometry(c.on.d.op, c.on.args)
	d := c.In(at.Input).DType()
	mats := [][]float64{
		linearWeights(r.InH, r.OutH, p.AlignCorners, r.ScaleH, d),
		linearWeights(r.InW, r.OutW, p.AlignCorners, r.ScaleW, d),
	}
	c.Set(at.Input, applyT(c.G(0), mats, []int{r.InH, r.InW}))
}

// linearWeights is the interpolation matrix of one dim of a bilinear
// upsample (PyTorch's compute_source_index_and_lambda), with the weights
// rounded as the forward kernel computes them.
func linearWeights(in, out int, align bool, scale float64, d tensor.DType) []float64 {
	m := make([]float64, out*in)
	f32 := d != tensor.Float64
	rd := func(v float64) float64 {
		if f32 {
			return float64(float32(v))
		}
		return v
	}
	var s float64
	switch {
	case align:
		if out > 1 {
			s = rd(rd(float64(in-1)) / rd(float64(out-1)))
		}
	case scale > 0:
		s = rd(1 / scale)
	default:
		s = rd(float64(in) / float64(out))
	}
	for o := 0; o < out; o++ {
		if out == in {
			m[o*in+o] = 1
			continue
		}
		var real float64
		if align {
			real = rd(s * float64(o))
		} else {
			real = rd(s*(float64(o)+0.5) - 0.5)
			if real < 0 {
				real = 0
			}
		}
		i0 := int(real)
		i1 := i0
		if i0 < in-1 {
			i1++
		}
		l1 := rd(real - float64(i0))
		l0 := rd(1 - l1)
		m[o*in+i0] += l0
		m[o*in+i1] += l1
	}
	return m
}

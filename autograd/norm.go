package autograd

import (
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// constGrad is v's value with the gradient of x: v + (x - detach(x)) * k.
func constGrad(v, x, k *T) *T {
	return v.Add(x.Sub(x.Detach()).Mul(k))
}

// layerNormBackward is native_layer_norm(input, normalized_shape, weight,
// bias, eps) -> (out, mean, rstd).
func layerNormBackward(c *Ctx) {
	p, at := args.NativeLayerNormOf(c.Args()), args.NativeLayerNormAt()
	mask := []bool{c.Needs(at.Input), c.Needs(at.Weight), c.Needs(at.Bias)}
	r := tensor.Call("aten::native_layer_norm_backward", c.G(0), c.T(at.Input), p.NormalizedShape, c.Out(1), c.Out(2),
		c.T(at.Weight), c.T(at.Bias), mask).([]*T)
	c.Set(at.Input, r[0])
	c.Set(at.Weight, r[1])
	c.Set(at.Bias, r[2])
}

// layerNormDoubleBackward differentiates native_layer_norm_backward
// (grad_out, input, normalized_shape, mean, rstd, weight, bias,
// output_mask) with PyTorch's explicit layer_norm_double_backward formula,
// op for op in the input's dtype: with two elements in a row the exact
// result is a cancellation, and only the same roundings give 1.13's value.
// mean and rstd are read as constants, as 1.13 reads them.
func layerNormDoubleBackward(c *Ctx) {
	p, at := args.NativeLayerNormBackwardOf(c.Args()), args.NativeLayerNormBackwardAt()
	ggI, ggG, ggB := c.G(0), c.G(1), c.G(2)
	x0, w := c.T(at.Input), c.T(at.Weight)
	ns := p.NormalizedShape
	shape := x0.Shape()
	N := tensor.Numel(ns)
	M := tensor.Numel(shape[:len(shape)-len(ns)])
	x := x0.Reshape([]int{M, N})
	gO := c.T(at.GradOut).Reshape([]int{M, N})
	dt := x.DType()
	affine := w != nil
	var gamma, ggGe, ggBe, ggIe *T
	if affine {
		gamma = w.Reshape([]int{1, N})
		if ggG != nil {
			ggGe = ggG.Reshape([]int{1, N})
		}
		if ggB != nil {
			ggBe = ggB.Reshape([]int{1, N})
		}
	} else {
		gamma = x.NewOnes([]int{1})
	}
	if ggI != nil {
		ggIe = ggI.Reshape([]int{M, N})
	}
	xmu := x.Sub(c.T(at.Mean).Reshape([]int{M, 1}).To(dt))
	s12 := c.T(at.Rstd).Reshape([]int{M, 1}).To(dt) // (sigma^2 + eps)^(-1/2)
	s1 := s12.PowScalar(2)
	s32 := s12.PowScalar(3)
	xs32 := xmu.Mul(s32)
	rowSum := func(t *T) *T { return t.Sum([]int{1}, tensor.WithKeepdim(true)) }

	var gI *T
	if ggIe != nil && c.Needs(at.Input) {
		gxhat := gO.Mul(gamma)
		gxhatMuSum := rowSum(gxhat.Mul(xmu))
		gxhatSum := rowSum(gxhat)
		ggISum := rowSum(ggIe)
		ggIMuSum := rowSum(ggIe.Mul(xmu))
		allSub := ggISum.Mul(gxhatSum).DivScalar(N).
			Sub(rowSum(ggIe.Mul(gxhat))).
			Add(s1.Mul(gxhatMuSum).Mul(ggIMuSum).MulScalar(3.0 / float64(N)))
		gI0 := xs32.Mul(allSub).DivScalar(N)
		gI1 := ggIMuSum.Mul(s32).DivScalar(N).Mul(gxhatSum.DivScalar(N).Sub(gxhat))
		gI2 := gxhatMuSum.Mul(s32).DivScalar(N).Mul(ggISum.DivScalar(N).Sub(ggIe))
		gI = gI0.Add(gI1).Add(gI2)
	}
	if affine && ggGe != nil && c.Needs(at.Input) {
		gOG := gO.Mul(ggGe)
		t0 := gOG.Mul(s12)
		t1 := s12.Mul(rowSum(gOG)).DivScalar(-N)
		t2 := xs32.Mul(rowSum(gOG.Mul(xmu))).DivScalar(-N)
		gI = addTerm(gI, t0.Add(t1).Add(t2))
	}
	if gI != nil {
		c.Set(at.Input, gI.Reshape(shape))
	}

	// firstInputGrad is native_layer_norm_backward's input gradient for
	// grad_out g and weight gm, written as 1.13's formula writes it.
	firstInputGrad := func(g, gm *T) *T {
		h0 := gm.Mul(s12).DivScalar(N)
		h1 := g.MulScalar(N).Sub(rowSum(g)).Sub(xmu.Mul(s1).Mul(rowSum(g.Mul(xmu))))
		return h0.Mul(h1)
	}
	if affine && ggIe != nil && c.Needs(at.Weight) {
		gG := firstInputGrad(ggIe, s12.NewOnes(nil))
		c.Set(at.Weight, gO.Mul(gG).Sum([]int{0}).ReshapeAs(w))
	}
	if !c.Needs(at.GradOut) {
		return
	}
	var ggO *T
	if ggIe != nil {
		ggO = firstInputGrad(ggIe, gamma)
	}
	if ggGe != nil {
		ggO = addTerm(ggO, ggGe.Mul(xmu).Mul(s12))
	}
	if ggBe != nil {
		ggO = addTerm(ggO, ggBe)
	}
	if ggO != nil {
		c.Set(at.GradOut, ggO.Expand([]int{M, N}).Reshape(shape))
	}
}

// addTerm is sum + term, or term when there is no sum yet.
func addTerm(sum, term *T) *T {
	if sum == nil {
		return term
	}
	return sum.Add(term)
}

// groupNormBackward is native_group_norm(input, weight, bias, N, C, HxW,
// group, eps) -> (out, mean, rstd); all three outputs are differentiable.
func groupNormBackward(c *Ctx) {
	p, at := args.NativeGroupNormOf(c.Args()), args.NativeGroupNormAt()
	N, C, HxW, group, eps := p.N, p.C, p.HxW, p.Group, p.Eps
	if !c.Create() && c.G(1) == nil && c.G(2) == nil {
		mask := []bool{c.Needs(at.Input), c.Needs(at.Weight), c.Needs(at.Bias)}
		r := tensor.Call("aten::native_group_norm_backward", c.G(0), c.T(at.Input), c.Out(1), c.Out(2), c.T(at.Weight),
			N, C, HxW, group, mask).([]*T)
		c.Set(at.Input, r[0])
		c.Set(at.Weight, r[1])
		c.Set(at.Bias, r[2])
		return
	}
	shape := c.In(at.Input).Shape()
	f := func(in []*T) []*T {
		x, w, b := in[0], in[1], in[2]
		xr := x.Reshape([]int{N, group, C / max(group, 1) * HxW})
		mean := xr.MeanDim([]int{-1}, tensor.WithKeepdim(true))
		xc := xr.Sub(mean)
		v := xc.Mul(xc).MeanDim([]int{-1}, tensor.WithKeepdim(true))
		rstd := v.AddScalar(eps).Rsqrt()
		y := xc.Mul(rstd).Reshape(shape)
		bc := make([]int, len(shape))
		for i := range bc {
			bc[i] = 1
		}
		if len(bc) > 1 {
			bc[1] = C
		}
		if w != nil {
			y = y.Mul(w.Reshape(bc))
		}
		if b != nil {
			y = y.Add(b.Reshape(bc))
		}
		return []*T{y, mean.Reshape([]int{N, group}), rstd.Reshape([]int{N, group})}
	}
	r := vjp(f, []*T{c.T(at.Input), c.T(at.Weight), c.T(at.Bias)}, []bool{c.Needs(at.Input), c.Needs(at.Weight), c.Needs(at.Bias)},
		[]*T{c.G(0), c.G(1), c.G(2)}, c.Create())
	c.Set(at.Input, r[0])
	c.Set(at.Weight, r[1])
	c.Set(at.Bias, r[2])
}

// batchNormAt are the positions of the tensor arguments of the batch
// norms; an op without running statistics has -1 for them.
type batchNormAt struct{ Input, Weight, Bias, RunningMean, RunningVar int }

// batchNormBackward is the gradient of the batch norms: (input, weight,
// bias, ...) -> (out, save_mean, save_invstd). training uses the batch
// statistics the forward saved; otherwise the running ones.
func batchNormBackward(c *Ctx, at batchNormAt, training bool, eps float64) {
	x, w, g := c.T(at.Input), c.T(at.Weight), c.G(0)
	var rm, rv *T
	if !training {
		rm, rv = c.T(at.RunningMean), c.T(at.RunningVar)
	}
	C := x.Size(1)
	bc := make([]int, x.Dim())
	for i := range bc {
		bc[i] = 1
	}
	bc[1] = C
	var axes []int
	for i := 0; i < x.Dim(); i++ {
		if i != 1 {
			axes = append(axes, i)
		}
	}
	if c.Create() {
		f := func(in []*T) []*T {
			x, w, b := in[0], in[1], in[2]
			var y *T
			if training {
				mean := x.MeanDim(axes, tensor.WithKeepdim(true))
				xc := x.Sub(mean)
				v := xc.Mul(xc).MeanDim(axes, tensor.WithKeepdim(true))
				y = xc.Mul(v.AddScalar(eps).Rsqrt())
			} else {
				y = x.Sub(detached(rm).Reshape(bc)).Mul(detached(rv).AddScalar(eps).Rsqrt().Reshape(bc))
			}
			if w != nil {
				y = y.Mul(w.Reshape(bc))
			}
			if b != nil {
				y = y.Add(b.Reshape(bc))
			}
			return []*T{y}
		}
		r := vjp(f, []*T{x, w, c.T(at.Bias)}, []bool{c.Needs(at.Input), c.Needs(at.Weight), c.Needs(at.Bias)}, []*T{g}, true)
		c.Set(at.Input, r[0])
		c.Set(at.Weight, r[1])
		c.Set(at.Bias, r[2])
		return
	}
	var mean, invstd *T
	if training {
		mean, invstd = c.Out(1).Reshape(bc), c.Out(2).Reshape(bc)
	} else {
		mean, invstd = rm.Reshape(bc), rv.AddScalar(eps).Rsqrt().Reshape(bc)
	}
	n := float64(x.Numel() / max(C, 1))
	gB := g.Sum(axes)
	xhat := x.Sub(mean).Mul(invstd)
	gW := g.Mul(xhat).Sum(axes)
	if c.Needs(at.Input) {
		var gi *T
		if training {
			gi = g.Sub(gB.Reshape(bc).DivScalar(n)).Sub(xhat.Mul(gW.Reshape(bc).DivScalar(n))).Mul(invstd)
		} else {
			gi = g.Mul(invstd)
		}
		if w != nil {
			gi = gi.Mul(w.Reshape(bc))
		}
		c.Set(at.Input, gi)
	}
	c.Set(at.Weight, gW)
	c.Set(at.Bias, gB)
}

// registerNorm registers the derivatives of the norm family
// (aten/core/norm.go): layer, group and batch norm and dropout.
func registerNorm() {
	// native_layer_norm(input, normalized_shape, weight, bias, eps) -> (out, mean, rstd)
	def("aten::native_layer_norm", &Deriv{Outputs: []int{0}, Backward: layerNormBackward})
	// native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask)
	lnb := args.NativeLayerNormBackwardAt()
	def("aten::native_layer_norm_backward", &Deriv{NonDiff: []int{lnb.Mean, lnb.Rstd}, Backward: layerNormDoubleBackward})
	// native_group_norm(input, weight, bias, N, C, HxW, group, eps) -> (out, mean, rstd)
	def("aten::native_group_norm", fn(groupNormBackward))
	// _native_batch_norm_legit(input, weight, bias, running_mean, running_var, training, momentum, eps)
	bn := batchNormAt(args.InternalNativeBatchNormLegitAt())
	def("aten::_native_batch_norm_legit", &Deriv{Outputs: []int{0}, NonDiff: []int{bn.RunningMean, bn.RunningVar}, Backward: func(c *Ctx) {
		p := args.InternalNativeBatchNormLegitOf(c.Args())
		batchNormBackward(c, bn, p.Training, p.Eps)
	}})
	// _native_batch_norm_legit.no_stats(input, weight, bias, training, momentum, eps)
	def("aten::_native_batch_norm_legit.no_stats", &Deriv{Outputs: []int{0}, Backward: func(c *Ctx) {
		p, at := args.InternalNativeBatchNormLegitNoStatsOf(c.Args()), args.InternalNativeBatchNormLegitNoStatsAt()
		batchNormBackward(c, batchNormAt{at.Input, at.Weight, at.Bias, -1, -1}, p.Training, p.Eps)
	}})
	// _native_batch_norm_legit_no_training(input, weight, bias, running_mean, running_var, momentum, eps)
	bnt := batchNormAt(args.InternalNativeBatchNormLegitNoTrainingAt())
	def("aten::_native_batch_norm_legit_no_training", &Deriv{Outputs: []int{0}, NonDiff: []int{bnt.RunningMean, bnt.RunningVar}, Backward: func(c *Ctx) {
		batchNormBackward(c, bnt, false, args.InternalNativeBatchNormLegitNoTrainingOf(c.Args()).Eps)
	}})
	// native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)
	def("aten::native_dropout", &Deriv{Outputs: []int{0}, SelfUnused: true, Backward: func(c *Ctx) {
		p, at := args.NativeDropoutOf(c.Args()), args.NativeDropoutAt()
		scale := 1.0
		if p.Train.Or(false) {
			if p.P == 1 {
				scale = 0
			} else {
				scale = 1 / (1 - p.P)
			}
		}
		g := c.G(0)
		c.Set(at.Input, g.Mul(c.Out(1).To(g.DType()).MulScalar(scale)))
	}})
	def("aten::native_group_norm_backward", notImpl("PyTorch 1.13 has no derivative for it (\"derivative for aten::native_group_norm_backward is not implemented\")"))
}

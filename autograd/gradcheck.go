package autograd

import (
	"fmt"
	"math"

	"github.com/goaten/goaten/tensor"
)

// GradcheckOptions tune Gradcheck; zero fields take PyTorch's defaults
// (eps 1e-6, atol 1e-5, rtol 1e-3).
type GradcheckOptions struct {
	Eps, Atol, Rtol float64
}

func (o GradcheckOptions) defaults() GradcheckOptions {
	if o.Eps == 0 {
		o.Eps = 1e-6
	}
	if o.Atol == 0 {
		o.Atol = 1e-5
	}
	if o.Rtol == 0 {
		o.Rtol = 1e-3
	}
	return o
}

// Gradcheck compares the gradients autograd computes for f with central
// finite differences (torch.autograd.gradcheck). The inputs that require
// grad must be float64 CPU tensors; each of their elements is perturbed in
// place by ±eps. It returns an error naming the first Jacobian entry that
// differs.
func Gradcheck(f func(in []*T) []*T, inputs []*T, opts ...GradcheckOptions) error {
	var o GradcheckOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	o = o.defaults()
	var wrt []int
	for i, x := range inputs {
		if x == nil || !requiresGrad(x) {
			continue
		}
		if x.DType() != tensor.Float64 || x.Device() != tensor.CPU {
			return fmt.Errorf("gradcheck: input %d is %s on %s; gradcheck needs float64 CPU inputs", i, x.DType(), x.Device())
		}
		wrt = append(wrt, i)
	}
	if len(wrt) == 0 {
		return fmt.Errorf("gradcheck: no input requires grad")
	}
	outs := f(inputs)
	eval := func() [][]float64 {
		det := make([]*T, len(inputs))
		for i, x := range inputs {
			if x == nil {
				continue
			}
			det[i] = detached(x)
			if requiresGrad(x) {
				SetRequiresGrad(det[i], true)
			}
		}
		var r [][]float64
		for _, y := range f(det) {
			if y != nil {
				r = append(r, y.Float64s())
			} else {
				r = append(r, nil)
			}
		}
		return r
	}
	for k, y := range outs {
		if y == nil || !isDifferentiable(y.DType()) {
			continue
		}
		n := y.Numel()
		// analytical[j][i] is row j (output element) of the Jacobian for input i.
		analytical := make([][][]float64, n)
		for j := 0; j < n; j++ {
			analytical[j] = make([][]float64, len(wrt))
			if !requiresGrad(y) {
				continue
			}
			seed := make([]float64, n)
			seed[j] = 1
			g := tensor.FromSlice(seed).Reshape(y.Shape()).To(y.DType())
			ins := make([]*T, len(wrt))
			for q, i := range wrt {
				ins[q] = inputs[i]
			}
			gr := Grad([]*T{y}, ins, []*T{g}, Options{RetainGraph: true, AllowUnused: true})
			for q := range wrt {
				if gr[q] != nil {
					analytical[j][q] = gr[q].Float64s()
				}
			}
		}
		for q, i := range wrt {
			x := inputs[i]
			idx := make([]int, x.Dim())
			for e := 0; e < x.Numel(); e++ {
				unflat(e, x.Sizes(), idx)
				v := x.At(idx...).Float64()
				x.SetAt(tensor.Float(v+o.Eps), idx...)
				plus := eval()[k]
				x.SetAt(tensor.Float(v-o.Eps), idx...)
				minus := eval()[k]
				x.SetAt(tensor.Float(v), idx...)
				for j := 0; j < n; j++ {
					num := (plus[j] - minus[j]) / (2 * o.Eps)
					an := 0.0
					if analytical[j][q] != nil {
						an = analytical[j][q][e]
					}
					if math.Abs(an-num) > o.Atol+o.Rtol*math.Abs(num) || math.IsNaN(an) != math.IsNaN(num) {
						return fmt.Errorf("gradcheck: Jacobian mismatch for output %d element %d with respect to input %d element %d: numerical %v, analytical %v",
							k, j, i, e, num, an)
					}
				}
			}
		}
	}
	return nil
}

// Gradgradcheck checks second derivatives: Gradcheck of the function that
// maps (inputs, grad_outputs) to the gradients of f, computed with
// CreateGraph. gradOutputs are float64 tensors shaped like f's outputs.
func Gradgradcheck(f func(in []*T) []*T, inputs, gradOutputs []*T, opts ...GradcheckOptions) error {
	nin := len(inputs)
	for _, g := range gradOutputs {
		if g != nil {
			SetRequiresGrad(g, true)
		}
	}
	h := func(all []*T) []*T {
		ins, gos := all[:nin], all[nin:]
		outs := f(ins)
		var ys, gs []*T
		for k, y := range outs {
			if y != nil && k < len(gos) && gos[k] != nil && requiresGrad(y) {
				ys, gs = append(ys, y), append(gs, gos[k])
			}
		}
		var wrt []*T
		for _, x := range ins {
			if x != nil && requiresGrad(x) {
				wrt = append(wrt, x)
			}
		}
		return Grad(ys, wrt, gs, Options{CreateGraph: true, AllowUnused: true})
	}
	return Gradcheck(h, append(append([]*T(nil), inputs...), gradOutputs...), opts...)
}

func unflat(e int, sizes, idx []int) {
	for d := len(sizes) - 1; d >= 0; d-- {
		idx[d] = e % sizes[d]
		e /= sizes[d]
	}
}

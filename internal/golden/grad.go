package golden

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/tensor"
)

// GradTolerance returns (rtol, atol) for comparing gradients of op in
// dtype d (FORMAT.md, "Gradient records"): the suggested float64 and
// float32 values for elementwise ops, loosened where a gradient sums many
// terms (reductions, matmul, conv, norms, pooling, *_backward ops) and for
// second order, where two backward passes chain.
func GradTolerance(op string, d tensor.DType, order int) (float64, float64) {
	loose := IsAccumulating(op) || strings.Contains(op, "norm") || strings.Contains(op, "pdist") ||
		strings.Contains(op, "cdist") || strings.Contains(op, "loss") || strings.Contains(op, "cross_entropy")
	switch d {
	case tensor.Float64:
		if loose || order == 2 {
			return 1e-6, 1e-6
		}
		return 1e-7, 1e-7
	}
	if loose || order == 2 {
		return 1e-3, 1e-4
	}
	return 1e-4, 1e-5
}

// ReplayGrad runs a gradient record on dev: the call with the leaves the
// record marks, then the gradients of the outputs weighted by grad_out
// (and for order 2, the gradients of <grads, v>), compared with PyTorch's.
func ReplayGrad(r *Record, dev tensor.Device) Result { return replayGrad(r, dev, nil) }

// ReplayGradRelaid is ReplayGrad with the tensor arguments and the
// grad_outputs copied into layout l, as ReplayRelaid lays them out, so
// backward kernels also meet strided gradients.
func ReplayGradRelaid(r *Record, dev tensor.Device, l Layout) Result { return replayGrad(r, dev, &l) }

func replayGrad(r *Record, dev tensor.Device, relay *Layout) (res Result) {
	op, args, kw, bad := prepare(r, dev)
	if bad != nil {
		return *bad
	}
	defer failOnPanic(&res)
	if relay != nil {
		for i, a := range args {
			args[i] = relay.relaid(a)
		}
	}
	var inputs []*tensor.Tensor
	var where [][2]int // (argument, element or -1) of each input
	for i, a := range args {
		if i >= len(r.RequiresGrad) {
			break
		}
		switch rg := r.RequiresGrad[i].(type) {
		case bool:
			if t, ok := a.(*tensor.Tensor); ok && rg {
				autograd.SetRequiresGrad(t, true)
				inputs = append(inputs, t)
				where = append(where, [2]int{i, -1})
			}
		case []any:
			l, _ := a.([]any)
			for j, e := range rg {
				if b, _ := e.(bool); b && j < len(l) {
					if t, ok := l[j].(*tensor.Tensor); ok {
						autograd.SetRequiresGrad(t, true)
						inputs = append(inputs, t)
						where = append(where, [2]int{i, j})
					}
				}
			}
		}
	}
	values := dev != tensor.Meta
	got := Invoke(op, op.Bind(args, kw))
	c := &gradComparer{op: r.Op, order: r.Order, values: values}
	if err := c.value("out", got, r.Out); err != nil {
		return Result{Fail, err.Error()}
	}
	outs := flattenAny(got)
	gouts := flattenJSON(r.GradOut)
	if len(gouts) != len(outs) {
		return Result{Fail, fmt.Sprintf("grad_out has %d slots for %d outputs", len(gouts), len(outs))}
	}
	var ys, gys []*tensor.Tensor
	for k, g := range gouts {
		if g == nil {
			continue
		}
		gt, err := Tensor(g, dev)
		if err != nil {
			return Result{Fail, "decoding grad_out: " + err.Error()}
		}
		if relay != nil {
			gt = relay.relaid(gt).(*tensor.Tensor)
		}
		if r.Order == 2 {
			autograd.SetRequiresGrad(gt, true)
		}
		if !outs[k].RequiresGrad() {
			// The result does not depend on the inputs here (norm with
			// p=0 counts nonzeros): its gradient is zero.
			continue
		}
		ys = append(ys, outs[k])
		gys = append(gys, gt)
	}
	if len(inputs) == 0 {
		return Result{Fail, "nothing to differentiate: no tensor argument requires grad"}
	}
	grads := make([]*tensor.Tensor, len(inputs))
	if len(ys) > 0 {
		grads = autograd.Grad(ys, inputs, gys, autograd.Options{AllowUnused: true, CreateGraph: r.Order == 2})
	}
	for i := range grads {
		if err := c.grad(fmt.Sprintf("grads%v", where[i]), grads[i], inputs[i], pick(r.Grads, where[i])); err != nil {
			return Result{Fail, err.Error()}
		}
	}
	if r.Order != 2 {
		return Result{Pass, ""}
	}
	var gs, vts []*tensor.Tensor
	for i := range grads {
		v := pick(r.V, where[i])
		if v == nil || grads[i] == nil || !grads[i].RequiresGrad() {
			continue
		}
		vt, err := Tensor(v, dev)
		if err != nil {
			return Result{Fail, "decoding v: " + err.Error()}
		}
		gs = append(gs, grads[i])
		vts = append(vts, vt)
	}
	wrt := append(append([]*tensor.Tensor(nil), inputs...), gys...)
	var g2 []*tensor.Tensor
	if len(gs) > 0 {
		g2 = autograd.Grad(gs, wrt, vts, autograd.Options{AllowUnused: true})
	} else {
		g2 = make([]*tensor.Tensor, len(wrt))
	}
	for i := range inputs {
		if err := c.grad(fmt.Sprintf("grads2%v", where[i]), g2[i], inputs[i], pick(r.Grads2, where[i])); err != nil {
			return Result{Fail, err.Error()}
		}
	}
	wantGO := flattenJSON(r.Grads2GradOut)
	k := 0
	for j, g := range gouts {
		if g == nil {
			continue
		}
		if err := c.grad(fmt.Sprintf("grads2_grad_out[%d]", j), g2[len(inputs)+k], gys[k], wantGO[j]); err != nil {
			return Result{Fail, err.Error()}
		}
		k++
	}
	return Result{Pass, ""}
}

// pick returns the encoded tensor of argument w[0] (element w[1] of a
// list argument) in a per-argument record field.
func pick(field []any, w [2]int) map[string]any {
	if w[0] >= len(field) {
		return nil
	}
	v := field[w[0]]
	if w[1] >= 0 {
		l, _ := v.([]any)
		if w[1] >= len(l) {
			return nil
		}
		v = l[w[1]]
	}
	m, _ := v.(map[string]any)
	return m
}

// flattenAny lists the tensors of an op result (nil for undefined ones).
func flattenAny(v any) []*tensor.Tensor {
	switch x := v.(type) {
	case *tensor.Tensor:
		return []*tensor.Tensor{x}
	case []*tensor.Tensor:
		return x
	case []any:
		var out []*tensor.Tensor
		for _, e := range x {
			out = append(out, flattenAny(e)...)
		}
		return out
	}
	return []*tensor.Tensor{nil}
}

// flattenJSON lists the encoded tensors of a nested record field (nil for
// null slots).
func flattenJSON(v any) []map[string]any {
	switch x := v.(type) {
	case nil:
		return []map[string]any{nil}
	case map[string]any:
		return []map[string]any{x}
	case []any:
		var out []map[string]any
		for _, e := range x {
			out = append(out, flattenJSON(e)...)
		}
		return out
	}
	return []map[string]any{nil}
}

type gradComparer struct {
	op     string
	order  int
	values bool
}

func (c *gradComparer) value(path string, got, want any) error {
	switch w := want.(type) {
	case nil:
		return nil
	case []any:
		gl := flattenAny(got)
		wl := flattenJSON(w)
		if len(gl) != len(wl) {
			return fmt.Errorf("%s: want %d results, got %d", path, len(wl), len(gl))
		}
		for i := range wl {
			if wl[i] == nil {
				continue
			}
			if gl[i] == nil {
				return fmt.Errorf("%s[%d]: want a tensor, got none", path, i)
			}
			if err := c.tensor(fmt.Sprintf("%s[%d]", path, i), gl[i], wl[i]); err != nil {
				return err
			}
		}
		return nil
	case map[string]any:
		t, ok := got.(*tensor.Tensor)
		if !ok || t == nil {
			return fmt.Errorf("%s: want a tensor, got %T", path, got)
		}
		return c.tensor(path, t, w)
	}
	return nil
}

// grad compares a gradient; a missing one on either side counts as zeros
// of the input's shape.
func (c *gradComparer) grad(path string, got, input *tensor.Tensor, want map[string]any) error {
	if got != nil && !slices.Equal(got.Sizes(), input.Sizes()) {
		return fmt.Errorf("%s: shape %v, want the input's %v", path, got.Sizes(), input.Sizes())
	}
	if want == nil {
		if got == nil || !c.values {
			return nil
		}
		for i, v := range got.Float64s() {
			if v != 0 {
				return fmt.Errorf("%s: PyTorch has no gradient (zeros), got %v at flat index %d", path, v, i)
			}
		}
		return nil
	}
	if got == nil {
		spec, err := ParseSpec(want)
		if err != nil {
			return err
		}
		for i, v := range spec.Data {
			f, _, _ := Elem(v)
			if f != 0 {
				return fmt.Errorf("%s: no gradient computed, PyTorch has %v at flat index %d", path, f, i)
			}
		}
		return nil
	}
	return c.tensor(path, got, want)
}

func (c *gradComparer) tensor(path string, t *tensor.Tensor, w map[string]any) error {
	spec, err := ParseSpec(w)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if t.DType() != spec.DType {
		return fmt.Errorf("%s: dtype: want %s, got %s", path, spec.DType, t.DType())
	}
	if !slices.Equal(t.Sizes(), spec.Shape) {
		return fmt.Errorf("%s: shape: want %v, got %v", path, spec.Shape, t.Sizes())
	}
	if !c.values || !spec.HasData {
		return nil
	}
	if !t.DType().IsFloat() {
		gi := t.Int64s()
		for i, v := range spec.Data {
			_, wi, _ := Elem(v)
			if gi[i] != wi {
				return fmt.Errorf("%s: value at flat index %d: want %d, got %d", path, i, wi, gi[i])
			}
		}
		return nil
	}
	got := t.Float64s()
	rtol, atol := GradTolerance(c.op, t.DType(), c.order)
	bad, first := 0, -1
	worst := 0.0
	for i, v := range spec.Data {
		wf, _, err := Elem(v)
		if err != nil {
			return err
		}
		if !closeF(got[i], wf, rtol, atol) {
			bad++
			if first < 0 {
				first = i
			}
			if e := math.Abs(got[i]-wf) / (atol + rtol*math.Abs(wf)); e > worst {
				worst = e
			}
		}
	}
	if bad > 0 {
		wf, _, _ := Elem(spec.Data[first])
		return fmt.Errorf("%s: %d of %d values differ (rtol %g atol %g, worst %.3gx); first at flat index %d: want %v, got %v",
			path, bad, len(got), rtol, atol, worst, first, wf, got[first])
	}
	return nil
}

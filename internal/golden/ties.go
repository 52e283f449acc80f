package golden

import (
	"fmt"
	"math"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// checkTies verifies index outputs of ops whose input has duplicate values:
// the indices need not equal PyTorch's, but each must point to a value equal
// to the one PyTorch's index points to.
func checkTies(op *tensor.Op, a []any, got, want any, dev tensor.Device) error {
	in := args.Self(a) // the ops marked ties all take a tensor first
	if in == nil {
		return nil
	}
	var gi *tensor.Tensor
	var wi any
	switch g := got.(type) {
	case *tensor.Tensor:
		// A lone tensor is an index output only for argmax/argmin; for
		// max()/min() it holds values, compared exactly elsewhere.
		if n := op.Schema.Name; n != "argmax" && n != "argmin" {
			return nil
		}
		gi, wi = g, want
	case []*tensor.Tensor:
		wl, _ := want.([]any)
		if len(g) < 2 || len(wl) < 2 {
			return nil
		}
		gi, wi = g[1], wl[1]
	default:
		return nil
	}
	wt, err := Value(wi, tensor.CPU, false)
	if err != nil {
		return err
	}
	wantIdx, ok := wt.(*tensor.Tensor)
	if !ok || gi == nil || gi.DType() != tensor.Int64 {
		return nil
	}
	x := in.CPUView()
	name := op.Schema.Name
	var pick func(idx *tensor.Tensor) ([]float64, error)
	switch name {
	case "max_pool2d_with_indices", "max_pool3d_with_indices":
		spatial := 2
		if name == "max_pool3d_with_indices" {
			spatial = 3
		}
		pick = func(idx *tensor.Tensor) ([]float64, error) { return planeGather(x, idx, spatial) }
	default:
		// argmax, max.dim, sort, topk, ...: the argument named dim, by
		// name, for every op the flag marks; None flattens.
		dim, flat := -1, false
		for i, arg := range op.Schema.Args {
			if arg.Name == "dim" {
				if a[i] == nil {
					flat = true
				} else {
					dim = a[i].(int)
				}
			}
		}
		if flat {
			pick = func(idx *tensor.Tensor) ([]float64, error) {
				v := x.Float64s()
				out := []float64{}
				for _, k := range idx.Int64s() {
					if k < 0 || int(k) >= len(v) {
						return nil, fmt.Errorf("index %d out of range", k)
					}
					out = append(out, v[k])
				}
				return out, nil
			}
		} else {
			pick = func(idx *tensor.Tensor) ([]float64, error) { return gatherAlong(x, dim, idx) }
		}
	}
	g, err := pick(gi.CPUView())
	if err != nil {
		return fmt.Errorf("ties: %w", err)
	}
	w, err := pick(wantIdx)
	if err != nil {
		return fmt.Errorf("ties (recorded): %w", err)
	}
	for i := range g {
		if g[i] != w[i] && !(math.IsNaN(g[i]) && math.IsNaN(w[i])) {
			return fmt.Errorf("ties: index output %d points to %v, PyTorch's to %v", i, g[i], w[i])
		}
	}
	return nil
}

// gatherAlong reads x at idx along dim; idx may lack the dim (keepdim=False).
func gatherAlong(x *tensor.Tensor, dim int, idx *tensor.Tensor) ([]float64, error) {
	rank := x.Dim()
	if rank == 0 {
		return x.Float64s(), nil
	}
	dim = tensor.WrapDim(dim, rank)
	is := idx.Sizes()
	keep := len(is) == rank
	var out []float64
	vals := idx.Int64s()
	pos := make([]int, len(is))
	for k := range vals {
		full := make([]int, 0, rank)
		for d := 0; d < len(is); d++ {
			if !keep && d == dim {
				full = append(full, 0)
			}
			full = append(full, pos[d])
		}
		if !keep && dim == len(is) {
			full = append(full, 0)
		}
		j := int(vals[k])
		if j < 0 || j >= x.Size(dim) {
			return nil, fmt.Errorf("index %d out of range for dim %d", j, dim)
		}
		full[dim] = j
		out = append(out, x.At(full...).Float64())
		for d := len(pos) - 1; d >= 0; d-- {
			pos[d]++
			if pos[d] < is[d] {
				break
			}
			pos[d] = 0
		}
	}
	return out, nil
}

// planeGather reads pooling indices, which index the flattened spatial plane
// of each (batch, channel).
func planeGather(x *tensor.Tensor, idx *tensor.Tensor, spatial int) ([]float64, error) {
	v := x.Float64s()
	plane := 1
	for _, s := range x.Sizes()[x.Dim()-spatial:] {
		plane *= s
	}
	outPlane := 1
	for _, s := range idx.Sizes()[idx.Dim()-spatial:] {
		outPlane *= s
	}
	var out []float64
	for k, j := range idx.Int64s() {
		p := k / max(outPlane, 1)
		if j < 0 || int(j) >= plane {
			return nil, fmt.Errorf("pool index %d out of range", j)
		}
		out = append(out, v[p*plane+int(j)])
	}
	return out, nil
}

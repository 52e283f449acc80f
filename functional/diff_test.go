package functional_test

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/goaten/goaten/tensor"
)

// T is a tensor.
type T = tensor.Tensor

// A program builds its inputs on the CPU, moves them to dev and runs a
// chain of views and in-place ops there. It returns the tensors to compare:
// the differential test runs it on cpu (real aliasing views and in-place
// kernels) and on functest (every view and mutation functionalized) and
// requires bit-identical results with the same metadata.
type program struct {
	name string
	run  func(dev tensor.Device) []*T
}

// vals makes n distinct values with fractions, signs and a spread of
// magnitudes, so that reorderings and lost writes show.
func vals(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64((i*37)%101-50) / 8
	}
	return out
}

// seq is a float32 tensor of the given shape on dev.
func seq(dev tensor.Device, shape ...int) *T { return seqOf(dev, tensor.Float32, shape...) }

func seqOf(dev tensor.Device, d tensor.DType, shape ...int) *T {
	c := tensor.FromSlice(vals(tensor.Numel(shape)), append([]int{}, shape...)...)
	return input(c.To(d).ToDevice(dev))
}

// ints is an int64 tensor with values on dev.
func ints(dev tensor.Device, data []int64, shape ...int) *T {
	return input(tensor.FromSlice(data, append([]int{}, shape...)...).ToDevice(dev))
}

func scalarT(dev tensor.Device, v float64) *T {
	return input(tensor.FromSlice([]float64{v}, []int{}...).To(tensor.Float32).ToDevice(dev))
}

// input is applied to every tensor the helpers above make: the graph-mode
// test wraps them (see TestGraphModes).
var input = func(t *T) *T { return t }

func list(ts ...*T) []*T { return ts }

func atan2Out(a, b, out *T) *T {
	return tensor.CallKw("aten::atan2.out", []any{a, b}, map[string]any{"out": out}).(*T)
}

var programs = []program{
	{"slice add_ visible in base", func(dev tensor.Device) []*T {
		x := seq(dev, 4, 5)
		v := x.Slice(tensor.WithDim(1), tensor.WithStart(1), tensor.WithEnd(4))
		v.AddScalar_(10)
		return list(x, v)
	}},
	{"select mul_ visible in base and sibling", func(dev tensor.Device) []*T {
		x := seq(dev, 3, 4)
		r := x.Select(0, 1)
		c := x.Select(1, 2)
		r.MulScalar_(-3)
		return list(x, r, c)
	}},
	{"copy_ into a transposed slice", func(dev tensor.Device) []*T {
		x := seq(dev, 4, 6)
		src := seq(dev, 3, 4).MulScalar(2)
		v := x.T().Slice(tensor.WithStart(1), tensor.WithEnd(4))
		v.Copy_(src)
		return list(x, v, x.T())
	}},
	{"copy_ broadcast into a strided slice", func(dev tensor.Device) []*T {
		x := seq(dev, 5, 6)
		v := x.Slice(tensor.WithDim(1), tensor.WithStart(0), tensor.WithEnd(6), tensor.WithStep(2))
		v.Copy_(seq(dev, 3))
		return list(x, v)
	}},
	{"index_put_ on a select", func(dev tensor.Device) []*T {
		x := seq(dev, 3, 5)
		r := x.Select(0, 2)
		idx := ints(dev, []int64{0, 3, 4}, 3)
		r.IndexPut_([]*T{idx}, seq(dev, 3).AddScalar(100))
		return list(x, r, x.Select(1, 3))
	}},
	{"index_put_ accumulate on a column slice", func(dev tensor.Device) []*T {
		x := seq(dev, 4, 4)
		c := x.Slice(tensor.WithDim(1), tensor.WithStart(1), tensor.WithEnd(3))
		idx := ints(dev, []int64{0, 2, 0}, 3)
		c.IndexPut_([]*T{idx}, seq(dev, 3, 2), tensor.WithAccumulate(true))
		return list(x, c)
	}},
	{"index_put_ with a bool mask on a transpose", func(dev tensor.Device) []*T {
		x := seq(dev, 3, 4)
		xt := x.T()
		mask := xt.GtScalar(0)
		xt.IndexPut_([]*T{mask}, scalarT(dev, -1))
		return list(x, xt, mask)
	}},
	{"resize_ grows a base", func(dev tensor.Device) []*T {
		x := seq(dev, 2, 3)
		x.Resize_([]int{3, 4})
		x.AddScalar_(1)
		return list(x)
	}},
	{"resize_ shrink then grow keeps the storage", func(dev tensor.Device) []*T {
		x := seq(dev, 3, 4)
		x.Resize_([]int{5})
		x.MulScalar_(2)
		y := x.Clone()
		x.Resize_([]int{2, 6})
		return list(x, y)
	}},
	{"resize_ with live views", func(dev tensor.Device) []*T {
		x := seq(dev, 2, 4)
		v := x.Select(0, 1)
		x.Resize_([]int{16})
		x.AddScalar_(5)
		v.MulScalar_(-1)
		return list(x, v)
	}},
	{"resize_ of a view", func(dev tensor.Device) []*T {
		x := seq(dev, 4, 4)
		v := x.Slice(tensor.WithStart(1), tensor.WithEnd(3))
		v.Resize_([]int{3, 2})
		v.AddScalar_(7)
		return list(x, v)
	}},
	{"atan2.out into a slice", func(dev tensor.Device) []*T {
		x := seq(dev, 3, 4)
		o := x.Slice(tensor.WithDim(1), tensor.WithStart(0), tensor.WithEnd(2))
		atan2Out(seq(dev, 3, 2), seq(dev, 2).AddScalar(1), o)
		return list(x, o)
	}},
	{"atan2.out resizes an empty out", func(dev tensor.Device) []*T {
		o := seqOf(dev, tensor.Float64, 0)
		atan2Out(seq(dev, 2, 3), seq(dev, 3), o)
		return list(o)
	}},
	{"mutation inside a loop", func(dev tensor.Device) []*T {
		x := seq(dev, 5, 3)
		acc := seq(dev, 3).MulScalar(0)
		for i := 0; i < 5; i++ {
			r := x.Select(0, i)
			r.AddScalar_(float64(i))
			acc.Add_(r)
			if i%2 == 0 {
				x.MulScalar_(0.5)
			}
		}
		return list(x, acc)
	}},
	{"loop over the same view", func(dev tensor.Device) []*T {
		x := seq(dev, 4, 4)
		d := x.Diagonal()
		for i := 0; i < 6; i++ {
			d.MulScalar_(1.5)
			d.AddScalar_(-1)
		}
		return list(x, d)
	}},
	{"mutating the base is visible in every view", func(dev tensor.Device) []*T {
		x := seq(dev, 4, 6)
		views := []*T{
			x.View([]int{6, 4}), x.Permute([]int{1, 0}), x.Slice(tensor.WithDim(1), tensor.WithStart(1), tensor.WithEnd(5), tensor.WithStep(2)), x.Select(0, 3),
			x.Diagonal(tensor.WithOffset(1)), x.AsStrided([]int{3, 3}, []int{5, 2}, tensor.WithStorageOffset(1)), x.Alias(),
			x.Unsqueeze(1), x.Select(0, 0).Unsqueeze(0).Expand([]int{3, 6}), x.T(),
			x.Narrow(1, 2, 3), x.Unfold(1, 2, 2), x.Reshape([]int{2, 12}), x.Flatten(),
		}
		views = append(views, x.Unbind()...)
		views = append(views, x.Split(4, tensor.WithDim(1))...)
		views = append(views, x.Chunk(3)...)
		x.MulScalar_(-2)
		x.Slice(tensor.WithStart(1), tensor.WithEnd(3)).AddScalar_(1)
		return append(views, x)
	}},
	{"mutating any view is visible in the base and every sibling", func(dev tensor.Device) []*T {
		siblings := func(x *T) []*T {
			v := []*T{
				x.View([]int{4, 6}), x.Permute([]int{1, 2, 0}), x.Slice(tensor.WithDim(2), tensor.WithStart(0), tensor.WithEnd(4), tensor.WithStep(3)), x.Select(2, 1),
				x.Diagonal(tensor.WithDim1(1), tensor.WithDim2(2)), x.AsStrided([]int{4, 3}, []int{5, 3}, tensor.WithStorageOffset(1)), x.Alias(),
				x.Unsqueeze(0), x.Select(0, 1).Select(0, 0).Expand([]int{2, 4}), x.Transpose(0, 1),
				x.Narrow(1, 1, 2), x.Unfold(2, 2, 2), x.Flatten(tensor.WithEndDim(1)), x.SqueezeDims([]int{0}),
				x.Select(1, 2).T(), x.Slice(tensor.WithStart(1), tensor.WithEnd(2)).Slice(tensor.WithDim(1), tensor.WithStart(0), tensor.WithEnd(3), tensor.WithStep(2)),
			}
			v = append(v, x.Unbind(tensor.WithDim(1))...)
			return append(v, x.Chunk(2, tensor.WithDim(2))...)
		}
		var out []*T
		for k := 0; ; k++ {
			x := seq(dev, 2, 3, 4)
			sib := siblings(x)
			if k >= len(sib) {
				break
			}
			for _, s := range sib {
				s.SumAll() // compute every sibling's value before the write
			}
			w := sib[k]
			if k == 8 { // the expanded view: a uniform write
				w.Fill_(float64(k))
			} else {
				w.MulScalar_(-2)
				w.AddScalar_(float64(k))
			}
			out = append(out, x)
			out = append(out, sib...)
		}
		return out
	}},
	{"every core view op round-trips a write", func(dev tensor.Device) []*T {
		var out []*T
		type mk func(x *T) *T
		for _, f := range []mk{
			func(x *T) *T { return x.View([]int{3, 8}) },
			func(x *T) *T { return x.Permute([]int{2, 0, 1}) },
			func(x *T) *T {
				return x.Slice(tensor.WithDim(2), tensor.WithStart(1), tensor.WithEnd(4), tensor.WithStep(2))
			},
			func(x *T) *T { return x.Select(1, -1) },
			func(x *T) *T { return x.Diagonal(tensor.WithOffset(-1), tensor.WithDim1(2)) },
			func(x *T) *T { return x.AsStrided([]int{2, 2, 2}, []int{7, 4, 1}, tensor.WithStorageOffset(2)) },
			func(x *T) *T { return x.Alias() },
			func(x *T) *T { return x.Select(1, 0).Unsqueeze(1).Squeeze(1) },
			func(x *T) *T { return x.Unsqueeze(-1) },
			func(x *T) *T { return x.SqueezeDims([]int{0}) },
			func(x *T) *T { return x.SplitWithSizes([]int{1, 2}, tensor.WithDim(1))[1] },
		} {
			x := seq(dev, 2, 3, 4)
			v := f(x)
			v.Copy_(seq(dev, v.Shape()...).MulScalar(3).AddScalar(0.25))
			v.MulScalar_(2)
			out = append(out, x, v)
		}
		return out
	}},
	{"composite views round-trip a write", func(dev tensor.Device) []*T {
		var out []*T
		type mk func(x *T) *T
		for _, f := range []mk{
			func(x *T) *T { return x.Transpose(0, 2) },
			func(x *T) *T { return x.Select(0, 1).T() },
			func(x *T) *T { return x.Narrow(2, 1, 2) },
			func(x *T) *T { return x.Unbind(tensor.WithDim(1))[2] },
			func(x *T) *T { return x.Split(3, tensor.WithDim(2))[1] },
			func(x *T) *T { return x.Chunk(2, tensor.WithDim(1))[1] },
			func(x *T) *T { return x.Unfold(2, 2, 2) },
			func(x *T) *T { return x.ViewAs(seq(x.Device(), 6, 4)) },
			func(x *T) *T { return x.MovedimInt(0, 2) },
			func(x *T) *T { return x.Unflatten(2, []int{2, 2}) },
			func(x *T) *T { return x.Flatten(tensor.WithStartDim(1), tensor.WithEndDim(2)) },
			func(x *T) *T { return x.Reshape([]int{4, 6}) },
			func(x *T) *T {
				return x.Slice(tensor.WithStart(1), tensor.WithEnd(2)).Slice(tensor.WithDim(1), tensor.WithStart(0), tensor.WithEnd(3), tensor.WithStep(2)).Slice(tensor.WithDim(2), tensor.WithStart(1), tensor.WithEnd(4))
			},
			func(x *T) *T { return x.Swapaxes(1, 2).Select(2, 1) },
			func(x *T) *T { return x.TensorSplitSections(2, tensor.WithDim(2))[0] },
			func(x *T) *T { return x.Hsplit(3)[2] },
			func(x *T) *T { return x.Vsplit(2)[0] },
			func(x *T) *T { return x.Detach() },
			func(x *T) *T { return x.Contiguous() },
		} {
			x := seq(dev, 2, 3, 4)
			v := f(x)
			v.SubScalar_(1.5, tensor.WithAlpha(2))
			v.Neg_()
			out = append(out, x, v)
		}
		return out
	}},
	{"expand_as sees writes to its base", func(dev tensor.Device) []*T {
		x := seq(dev, 4, 1)
		e := x.ExpandAs(seq(dev, 4, 3))
		x.MulScalar_(3)
		x.Select(0, 2).AddScalar_(1)
		return list(x, e)
	}},
	{"fill_ through an expanded view", func(dev tensor.Device) []*T {
		x := seq(dev, 3)
		e := x.Unsqueeze(0).Expand([]int{4, 3})
		e.Fill_(2.5)
		return list(x, e)
	}},
	{"copy_ into an expanded view keeps the last write", func(dev tensor.Device) []*T {
		x := seq(dev, 1, 3)
		e := x.Expand([]int{4, 3})
		e.Copy_(seq(dev, 4, 3))
		return list(x, e)
	}},
	{"add_ through an expanded view", func(dev tensor.Device) []*T {
		x := seq(dev, 3, 1)
		e := x.Expand([]int{2, 3, 4})
		e.Add_(seq(dev, 2, 3, 4))
		return list(x, e)
	}},
	{"overlapping unfold reads the base", func(dev tensor.Device) []*T {
		x := seq(dev, 10)
		w := x.Unfold(0, 4, 2)
		x.AddScalar_(1)
		s := w.Sum([]int{1})
		x.Slice(tensor.WithStart(3), tensor.WithEnd(6)).Zero_()
		return list(x, w, s)
	}},
	{"overlapping as_strided write", func(dev tensor.Device) []*T {
		x := seq(dev, 8)
		w := x.AsStrided([]int{3, 4}, []int{2, 1}, tensor.WithStorageOffset(0))
		w.Copy_(seq(dev, 3, 4))
		return list(x, w)
	}},
	{"non-overlapping unfold mutated", func(dev tensor.Device) []*T {
		x := seq(dev, 3, 8)
		w := x.Unfold(1, 2, 3)
		w.MulScalar_(10)
		w.Select(2, 1).AddScalar_(1)
		return list(x, w)
	}},
	{"as_strided of a slice addresses the storage", func(dev tensor.Device) []*T {
		x := seq(dev, 4, 5)
		s := x.Slice(tensor.WithStart(1), tensor.WithEnd(3))
		a := s.AsStrided([]int{2, 2}, []int{1, 5}, tensor.WithStorageOffset(3))
		a.MulScalar_(-1)
		b := a.Slice(tensor.WithDim(1), tensor.WithStart(1), tensor.WithEnd(2))
		b.AddScalar_(100)
		return list(x, s, a, b)
	}},
	{"chain of views mutated innermost", func(dev tensor.Device) []*T {
		x := seq(dev, 4, 6)
		v1 := x.View([]int{2, 12})
		v2 := v1.T()
		v3 := v2.Slice(tensor.WithStart(1), tensor.WithEnd(11), tensor.WithStep(3))
		v4 := v3.Select(1, 1)
		v4.AddScalar_(50)
		return list(x, v1, v2, v3, v4)
	}},
	{"chain of views mutated in the middle", func(dev tensor.Device) []*T {
		x := seq(dev, 2, 3, 4)
		a := x.Permute([]int{2, 0, 1})
		b := a.Slice(tensor.WithStart(1), tensor.WithEnd(3))
		c := b.Select(1, 1)
		d := c.Diagonal()
		b.MulScalar_(2)
		d.AddScalar_(-7)
		c.Neg_()
		return list(x, a, b, c, d)
	}},
	{"siblings see each other", func(dev tensor.Device) []*T {
		x := seq(dev, 4, 4)
		a := x.Select(0, 1)
		b := x.Select(1, 2)
		c := x.Diagonal()
		a.AddScalar_(1)
		b.MulScalar_(3)
		c.Sub_(a)
		a.Copy_(b)
		return list(x, a, b, c)
	}},
	{"views created after mutations", func(dev tensor.Device) []*T {
		x := seq(dev, 3, 4)
		var out []*T
		for i := 0; i < 3; i++ {
			x.AddScalar_(float64(i))
			v := x.Slice(tensor.WithDim(1), tensor.WithStart(i), tensor.WithEnd(i+2))
			v.MulScalar_(2)
			out = append(out, v, x.Select(0, i))
		}
		return append(out, x)
	}},
	{"split pieces mutated in a loop", func(dev tensor.Device) []*T {
		x := seq(dev, 7, 3)
		parts := x.Split(2)
		for i, p := range parts {
			p.AddScalar_(float64(10 * i))
		}
		return append(parts, x)
	}},
	{"unbind rows mutated", func(dev tensor.Device) []*T {
		x := seq(dev, 3, 4)
		rows := x.Unbind()
		rows[0].Copy_(rows[2])
		rows[1].Fill_(9)
		rows[2].MulScalar_(-1)
		return append(rows, x)
	}},
	{"self-overlapping copy_ shifts", func(dev tensor.Device) []*T {
		x := seq(dev, 6)
		x.Slice(tensor.WithStart(1), tensor.WithEnd(6)).Copy_(x.Slice(tensor.WithStart(0), tensor.WithEnd(5)))
		return list(x)
	}},
	{"add_ of own transpose", func(dev tensor.Device) []*T {
		x := seq(dev, 4, 4)
		x.Add_(x.T())
		return list(x)
	}},
	{"functional ops on views", func(dev tensor.Device) []*T {
		x := seq(dev, 4, 6)
		a := x.T().Mm(x)
		b := x.Slice(tensor.WithDim(1), tensor.WithStart(1), tensor.WithEnd(5)).SumAll()
		c := x.Select(1, 2).Exp()
		x.MulScalar_(2)
		d := x.Narrow(0, 1, 2).Matmul(x.Select(0, 0))
		return list(a, b, c, d, x)
	}},
	{"clone and reshape-copy do not alias", func(dev tensor.Device) []*T {
		x := seq(dev, 3, 4)
		c := x.Clone()
		r := x.T().Reshape([]int{12})
		k := x.T().Contiguous()
		c.AddScalar_(1)
		r.AddScalar_(2)
		k.AddScalar_(3)
		return list(x, c, r, k)
	}},
	{"contiguous of contiguous and detach alias", func(dev tensor.Device) []*T {
		x := seq(dev, 3, 4)
		c := x.Contiguous()
		d := x.Detach()
		c.AddScalar_(1)
		d.MulScalar_(2)
		return list(x, c, d)
	}},
	{"0-d views", func(dev tensor.Device) []*T {
		x := seq(dev, 3)
		s := x.Select(0, 1)
		s.Fill_(4)
		u := s.Unsqueeze(0)
		u.AddScalar_(1)
		z := seq(dev, 1).SqueezeDims([]int{0})
		e := z.Expand([]int{2, 2})
		z.MulScalar_(3)
		zz := z.Unsqueeze(0).Unsqueeze(1)
		zz.AddScalar_(1)
		return list(x, s, u, z, e, zz)
	}},
	{"0-d base as_strided and view", func(dev tensor.Device) []*T {
		z := scalarT(dev, 2.5)
		a := z.AsStrided([]int{2, 2}, []int{0, 0}, tensor.WithStorageOffset(0))
		v := z.View([]int{1, 1})
		v.MulScalar_(-2)
		return list(z, a, v)
	}},
	{"empty views", func(dev tensor.Device) []*T {
		x := seq(dev, 3, 4)
		e := x.Slice(tensor.WithStart(2), tensor.WithEnd(2))
		e.AddScalar_(1)
		z := seq(dev, 0, 4)
		zt := z.T()
		zt.MulScalar_(2)
		p := x.SplitWithSizes([]int{0, 4}, tensor.WithDim(1))
		p[0].Fill_(1)
		p[1].Fill_(2)
		return list(x, e, z, zt, p[0], p[1])
	}},
	{"int views and int arithmetic", func(dev tensor.Device) []*T {
		x := ints(dev, []int64{1, -2, 3, 4, 5, -6, 7, 8, 9, 10, 11, 12}, 3, 4)
		v := x.T().Slice(tensor.WithStart(1), tensor.WithEnd(3))
		v.MulScalar_(-3)
		x.Select(0, 2).AddScalar_(1 << 40)
		x.Diagonal().FloorDivideScalar_(2)
		return list(x, v)
	}},
	{"copy_ converts dtypes into views", func(dev tensor.Device) []*T {
		x := ints(dev, []int64{1, 2, 3, 4, 5, 6}, 2, 3).To(tensor.Int32)
		x.Select(0, 1).Copy_(seq(dev, 3).MulScalar(3))
		f := seqOf(dev, tensor.Float16, 3, 2)
		f.T().Select(0, 1).Copy_(seqOf(dev, tensor.Float64, 3).MulScalar(1.0 / 3))
		b := seqOf(dev, tensor.BFloat16, 2, 2)
		b.Diagonal().MulScalar_(1.0 / 7)
		return list(x, f, b)
	}},
	{"bool views", func(dev tensor.Device) []*T {
		x := seq(dev, 3, 4).GtScalar(0)
		x.Slice(tensor.WithDim(1), tensor.WithStart(0), tensor.WithEnd(2)).LogicalNot_()
		x.Select(0, 2).Fill_(true)
		return list(x)
	}},
	{"scatter_ and masked_fill_ on views", func(dev tensor.Device) []*T {
		x := seq(dev, 4, 5)
		v := x.Slice(tensor.WithStart(1), tensor.WithEnd(4)).T()
		idx := ints(dev, []int64{0, 2, 1, 0, 2, 1}, 2, 3)
		v.Scatter_(1, idx, seq(dev, 2, 3))
		m := x.Select(1, 4)
		m.MaskedFillScalar_(m.GtScalar(0), -9)
		return list(x, v, m)
	}},
	{"non-core in-place ops on views", func(dev tensor.Device) []*T {
		x := seq(dev, 4, 4)
		x.Slice(tensor.WithStart(0), tensor.WithEnd(2)).Addcmul_(seq(dev, 2, 4), seq(dev, 4))
		x.T().Select(0, 3).Zero_()
		x.Diagonal().ClampMin_(0)
		x.Narrow(1, 1, 2).Tril_()
		x.Select(0, 3).IndexAdd_(0, ints(dev, []int64{1, 1, 3}, 3), seq(dev, 3))
		return list(x)
	}},
	{"accumulate into alternating slices", func(dev tensor.Device) []*T {
		acc := seq(dev, 2, 4).MulScalar(0)
		x := seq(dev, 6, 4)
		for i := 0; i < 6; i++ {
			acc.Select(0, i%2).Add_(x.Select(0, i))
		}
		return list(acc)
	}},
	{"diagonals of a batch", func(dev tensor.Device) []*T {
		x := seq(dev, 2, 4, 3)
		d := x.Diagonal(tensor.WithOffset(-1), tensor.WithDim1(1), tensor.WithDim2(2))
		d.MulScalar_(0)
		e := x.Diagonal(tensor.WithOffset(1), tensor.WithDim1(-2), tensor.WithDim2(-1))
		e.AddScalar_(1)
		return list(x, d, e)
	}},
	{"permute then select then fill_", func(dev tensor.Device) []*T {
		x := seq(dev, 2, 3, 4)
		p := x.Permute([]int{1, 2, 0})
		p.Select(1, 2).Fill_(-1)
		p.Select(0, 0).Select(1, 1).Fill_(7)
		return list(x, p)
	}},
	{"squeeze and unsqueeze chains", func(dev tensor.Device) []*T {
		x := seq(dev, 1, 3, 1, 4)
		a := x.SqueezeAll()
		b := a.Unsqueeze(0).Unsqueeze(3)
		c := x.Squeeze(2)
		b.AddScalar_(1)
		c.Select(0, 0).MulScalar_(2)
		return list(x, a, b, c)
	}},
	{"view of a slice and flatten copies", func(dev tensor.Device) []*T {
		x := seq(dev, 4, 6)
		s := x.Slice(tensor.WithStart(1), tensor.WithEnd(3))
		v := s.View([]int{3, 4})
		v.AddScalar_(1)
		f := x.Slice(tensor.WithDim(1), tensor.WithStart(0), tensor.WithEnd(3)).Flatten(tensor.WithEndDim(1))
		f.AddScalar_(100)
		return list(x, s, v, f)
	}},
	{"movedim and narrow", func(dev tensor.Device) []*T {
		x := seq(dev, 2, 3, 4)
		m := x.MovedimIntlist([]int{0, 1}, []int{2, 0})
		n := m.Narrow(1, 1, 2)
		n.MulScalar_(-1)
		return list(x, m, n)
	}},
	{"two bases copy between views", func(dev tensor.Device) []*T {
		a := seq(dev, 3, 4)
		b := seq(dev, 4, 3).MulScalar(-1)
		a.Slice(tensor.WithDim(1), tensor.WithStart(1), tensor.WithEnd(4)).Copy_(b.T().Slice(tensor.WithStart(0), tensor.WithEnd(3)).Slice(tensor.WithDim(1), tensor.WithStart(1), tensor.WithEnd(4)))
		b.Select(1, 0).Copy_(a.Select(0, 1))
		return list(a, b)
	}},
	{"item and values read back", func(dev tensor.Device) []*T {
		x := seq(dev, 3, 3)
		v := x.Select(1, 1)
		v.MulScalar_(2)
		s := x.SumAll().Item().Float64()
		y := seq(dev, 2).MulScalar(s)
		return list(x, y)
	}},
	{"in-place ops with float16 and bfloat16 views", func(dev tensor.Device) []*T {
		h := seqOf(dev, tensor.Float16, 3, 4)
		h.T().Slice(tensor.WithStart(1), tensor.WithEnd(3)).MulScalar_(1.0 / 3)
		h.Select(0, 0).Abs_()
		b := seqOf(dev, tensor.BFloat16, 3, 4)
		b.Slice(tensor.WithDim(1), tensor.WithStart(0), tensor.WithEnd(4), tensor.WithStep(3)).Sin_()
		return list(h, b)
	}},
	{"split_with_sizes of a transpose", func(dev tensor.Device) []*T {
		x := seq(dev, 5, 3)
		p := x.T().SplitWithSizes([]int{2, 0, 3}, tensor.WithDim(1))
		p[0].AddScalar_(1)
		p[2].Select(1, 1).Fill_(0)
		return append(p, x)
	}},
	{"resize_ to the same shape keeps a transposed layout", func(dev tensor.Device) []*T {
		x := seq(dev, 3, 4).T()
		x.Resize_([]int{4, 3})
		x.AddScalar_(1)
		return list(x)
	}},
	{"resize_ of a transposed tensor re-reads the storage", func(dev tensor.Device) []*T {
		base := seq(dev, 3, 4)
		x := base.T()
		x.Resize_([]int{2, 6})
		x.Select(0, 1).MulScalar_(2)
		return list(base, x)
	}},
	{"batch_norm updates running stats held in views", func(dev tensor.Device) []*T {
		x := seq(dev, 4, 3, 2)
		stats := seq(dev, 2, 5).MulScalar(0.1)
		rm := stats.Select(0, 0).Slice(tensor.WithStart(1), tensor.WithEnd(4))
		rv := stats.Select(0, 1).Slice(tensor.WithStart(0), tensor.WithEnd(5), tensor.WithStep(2)).Abs()
		rvBase := stats.Select(0, 1).Slice(tensor.WithStart(0), tensor.WithEnd(5), tensor.WithStep(2))
		rvBase.Copy_(rv)
		y := tensor.BatchNorm(x, nil, nil, rm, rvBase, true, 0.25, 1e-5, false)
		return list(y, stats, rm, rvBase)
	}},
	{"resize_ of a base with a permuted layout", func(dev tensor.Device) []*T {
		x := seq(dev, 3, 4).T().Clone()
		x.Resize_([]int{3, 5})
		x.Select(1, 4).Fill_(8)
		return list(x)
	}},
	{"resize_ to empty and back", func(dev tensor.Device) []*T {
		x := seq(dev, 2, 3)
		v := x.Select(1, 2)
		x.Resize_([]int{0})
		x.Resize_([]int{3, 3})
		x.Select(0, 0).Fill_(1)
		return list(x, v)
	}},
	{"atan2.out writing one of its inputs", func(dev tensor.Device) []*T {
		x := seq(dev, 3, 4)
		y := x.T().Slice(tensor.WithStart(0), tensor.WithEnd(2))
		atan2Out(y, seq(dev, 3).AddScalar(2), y)
		return list(x, y)
	}},
	{"index_put_ on a diagonal with repeated indices", func(dev tensor.Device) []*T {
		x := seq(dev, 4, 4)
		d := x.Diagonal()
		d.IndexPut_([]*T{ints(dev, []int64{1, 3, 1}, 3)}, seq(dev, 3), tensor.WithAccumulate(true))
		return list(x, d)
	}},
	{"unfold of int and bool tensors", func(dev tensor.Device) []*T {
		x := ints(dev, []int64{1, 2, 3, 4, 5, 6, 7, 8}, 8)
		w := x.Unfold(0, 2, 2)
		w.Select(1, 0).MulScalar_(10)
		b := x.GtScalar(3)
		bw := b.Unfold(0, 4, 4)
		bw.Select(0, 1).LogicalNot_()
		return list(x, w, b, bw)
	}},
	{"view chain replays after base rewrite", func(dev tensor.Device) []*T {
		x := seq(dev, 6, 4)
		v := x.View([]int{3, 8}).Slice(tensor.WithDim(1), tensor.WithStart(2), tensor.WithEnd(8), tensor.WithStep(3)).T()
		x.Copy_(seq(dev, 6, 4).MulScalar(-1))
		u := v.Select(0, 1)
		x.Select(0, 1).AddScalar_(3)
		u.MulScalar_(2)
		return list(x, v, u)
	}},
	{"clone of a transposed view keeps its strides", func(dev tensor.Device) []*T {
		x := seq(dev, 3, 4)
		c := x.T().Clone()
		c.Select(0, 1).Fill_(0)
		return list(x, c)
	}},
}

func TestDifferential(t *testing.T) {
	if len(programs) < 40 {
		t.Errorf("only %d differential programs", len(programs))
	}
	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) { checkProgram(t, p) })
	}
}

func checkProgram(t *testing.T, p program) {
	t.Helper()
	before := refused.Load()
	want, err := runErr(p, tensor.CPU)
	if err != nil {
		t.Fatalf("on cpu: %v", err)
	}
	got, err := runErr(p, fdev)
	if err != nil {
		t.Fatalf("on functest: %v", err)
	}
	if n := refused.Load() - before; n != 0 {
		t.Fatalf("%d ops reached the functest backend without functionalization", n)
	}
	if len(got) != len(want) {
		t.Fatalf("%d results on functest, %d on cpu", len(got), len(want))
	}
	for i := range want {
		if msg := compare(want[i], got[i]); msg != "" {
			t.Errorf("result %d: %s", i, msg)
		}
	}
}

func runErr(p program, dev tensor.Device) (res []*T, err error) {
	err = tensor.Try(func() { res = p.run(dev) })
	return res, err
}

// compare checks that got (functest) matches want (cpu) bit for bit, with
// the same sizes, strides, storage offset and dtype.
func compare(want, got *T) string {
	if got.Device() != fdev {
		return fmt.Sprintf("result on %s, want functest", got.Device())
	}
	if !slices.Equal(want.Sizes(), got.Sizes()) || want.DType() != got.DType() {
		return fmt.Sprintf("got %s %v, want %s %v", got.DType(), got.Sizes(), want.DType(), want.Sizes())
	}
	if !slices.Equal(want.Strides(), got.Strides()) || want.StorageOffset() != got.StorageOffset() {
		return fmt.Sprintf("got strides %v offset %d, want strides %v offset %d", got.Strides(), got.StorageOffset(), want.Strides(), want.StorageOffset())
	}
	wb, gb := contiguousBytes(want), contiguousBytes(got)
	if !bytes.Equal(wb, gb) {
		return fmt.Sprintf("values differ:\n got %v\nwant %v", got.CPUView().Scalars(), want.Scalars())
	}
	return ""
}

func contiguousBytes(t *T) []byte {
	c := t.CPUView()
	c = tensor.CallKw("aten::clone", []any{c}, map[string]any{"memory_format": tensor.ContiguousFormat}).(*T)
	n := c.Numel() * c.DType().ItemSize()
	if n == 0 {
		return nil
	}
	return append([]byte(nil), c.Storage().Bytes()[:n]...)
}

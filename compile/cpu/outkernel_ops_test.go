package cpu_test

import (
	"strings"
	"testing"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/cpu"
	"github.com/goaten/goaten/tensor"
)

// outKernelCase is a graph whose listed ops (their targets in Describe)
// are dispatcher calls with out kernels on the CPU.
type outKernelCase struct {
	name   string
	f      fn
	inputs func() []*tensor.Tensor
	ops    []string
}

// outKernelCases: the ops of the compiled training graphs converted to out
// kernels, on int64 operands where an elementwise op would otherwise be
// fused into a tile program, with each kernel's fast path and its general
// one (gather and scatter_add along the last dim and along the first, the
// backward ops' float32 kernels and their decompositions on float64); the
// results of the ops that start from zeros or from self are intermediates
// too, whose planned storage (at least tensor.AllocatorMin bytes) holds
// the previous call's values.
func outKernelCases() []outKernelCase {
	idx := func(seed uint64, bound int, sizes ...int) *tensor.Tensor {
		return randnSeeded(seed, sizes...).Abs().MulScalar(1000).To(tensor.Int64).RemainderScalar(bound)
	}
	return []outKernelCase{
		{"reductions and comparisons", func(t ...*tensor.Tensor) []*tensor.Tensor {
			x, n := t[0], t[1]
			return []*tensor.Tensor{
				x.Sum([]int{1}), n.Sum([]int{0}, tensor.WithKeepdim(true)),
				n.NeScalar(3), n.EqScalar(2), n.Lt(n.Flip([]int{0})),
				tensor.Where(n.GtScalar(4), n, n.Neg()),
				x.NewZeros([]int{8, 16}).AddScalar(1), n.NewZeros([]int{7}),
			}
		}, func() []*tensor.Tensor {
			return []*tensor.Tensor{randnSeeded(70, 6, 10), randnSeeded(71, 6, 10).MulScalar(10).To(tensor.Int64)}
		}, []string{"aten.sum.dim_IntList", "aten.ne.Scalar", "aten.eq.Scalar", "aten.lt.Tensor", "aten.where.self", "aten.new_zeros.default"}},
		{"indexing and movement", func(t ...*tensor.Tensor) []*tensor.Tensor {
			x, w, i1, i0, src := t[0], t[1], t[2], t[3], t[4]
			return []*tensor.Tensor{
				x.Gather(1, i1), x.Gather(0, i0),
				x.ScatterAdd(1, i1, src).Neg(), x.ScatterAdd(0, i0, w.Narrow(0, 0, 2)).Neg(),
				tensor.Cat([]*tensor.Tensor{x, w}, tensor.WithDim(1)), tensor.Cat([]*tensor.Tensor{x, w.T().Contiguous().T()}),
				x.SliceScatter(src.Narrow(1, 0, 3), tensor.WithDim(1), tensor.WithStart(2), tensor.WithEnd(8), tensor.WithStep(2)),
				x.SelectScatter(w.Select(1, 2), 1, 5).Neg(),
			}
		}, func() []*tensor.Tensor {
			return []*tensor.Tensor{randnSeeded(72, 8, 16), randnSeeded(73, 8, 16), idx(74, 16, 8, 4), idx(75, 8, 2, 16), randnSeeded(76, 8, 4)}
		}, []string{"aten.gather.default", "aten.scatter_add.default", "aten.cat.default", "aten.slice_scatter.default",
			"aten.select_scatter.default"}},
		{"backward ops", func(t ...*tensor.Tensor) []*tensor.Tensor {
			g, x, ids, g3 := t[0], t[1], t[2], t[3]
			gd, xd := g.To(tensor.Float64), x.To(tensor.Float64)
			smb := func(g, y *tensor.Tensor, log bool) *tensor.Tensor {
				name := "aten::_softmax_backward_data"
				if log {
					name = "aten::_log_softmax_backward_data"
				}
				return tensor.Call(name, g, y, 1, g.DType()).(*tensor.Tensor)
			}
			return []*tensor.Tensor{
				tensor.GeluBackward(g, x), tensor.GeluBackward(g, x, tensor.WithApproximate("tanh")), tensor.GeluBackward(gd, xd),
				smb(g, x.Softmax(1), false), smb(g, x.LogSoftmax(1), true), smb(gd, xd.Softmax(1), false),
				tensor.EmbeddingDenseBackward(g3, ids, 9, -1, false), tensor.EmbeddingDenseBackward(g3, ids, 9, 2, true).Neg(),
			}
		}, func() []*tensor.Tensor {
			return []*tensor.Tensor{randnSeeded(77, 8, 16), randnSeeded(78, 8, 16), idx(79, 9, 3, 5), randnSeeded(80, 3, 5, 16)}
		}, []string{"aten.gelu_backward.default", "aten._softmax_backward_data.default", "aten._log_softmax_backward_data.default",
			"aten.embedding_dense_backward.default"}},
		{"fills and activation backward ops", func(t ...*tensor.Tensor) []*tensor.Tensor {
			g, x := t[0], t[1]
			gd, xd := g.To(tensor.Float64), x.To(tensor.Float64)
			var res []*tensor.Tensor
			for _, p := range [][2]*tensor.Tensor{{g, x}, {gd, xd}} {
				g, x := p[0], p[1]
				res = append(res, tensor.SigmoidBackward(g, x.Sigmoid()), tensor.TanhBackward(g, x.Tanh()),
					tensor.SiluBackward(g, x), tensor.ThresholdBackward(g, x, 0.25), x.Silu())
			}
			return append(res, tensor.Full([]int{8, 16}, 2.5), x.NewOnes([]int{8, 16}).Neg(),
				tensor.Call("aten::fill.Scalar", x, 3).(*tensor.Tensor), tensor.Call("aten::full_like", x, -1).(*tensor.Tensor))
		}, func() []*tensor.Tensor {
			return []*tensor.Tensor{randnSeeded(85, 8, 16), randnSeeded(86, 8, 16)}
		}, []string{"aten.sigmoid_backward.default", "aten.tanh_backward.default", "aten.silu_backward.default",
			"aten.threshold_backward.default", "aten.silu.default", "aten.full.default", "aten.new_ones.default",
			"aten.fill.Scalar", "aten.full_like.default"}},
		{"convolutions", func(t ...*tensor.Tensor) []*tensor.Tensor {
			// Stride 1 (the padded-grid path; Winograd on AVX-512 at 16
			// channels and 32×32), stride 2 (the path that adds into a
			// zeroed result), float64, and the backward with the input
			// gradient left undefined.
			x, w, b, xs, ws := t[0], t[1], t[2], t[3], t[4]
			one, two, none := []int{1, 1}, []int{2, 2}, []int{0, 0}
			y := tensor.Convolution(x, w, b, one, one, one, false, none, 1)
			y2 := tensor.Convolution(xs, ws, nil, two, one, one, false, none, 1)
			y3 := tensor.Convolution(xs.To(tensor.Float64), ws.To(tensor.Float64), nil, one, none, one, false, none, 1)
			gi, gw, gb := tensor.ConvolutionBackward(y.Sin(), x, w, []int{16}, one, one, one, false, none, 1, []bool{true, true, true})
			_, gw2, _ := tensor.ConvolutionBackward(y2.Cos(), xs, ws, nil, two, one, one, false, none, 1, []bool{false, true, false})
			return []*tensor.Tensor{y.Neg(), y2.Neg(), y3, gi.Neg(), gw.Neg(), gb.Neg(), gw2.Neg()}
		}, func() []*tensor.Tensor {
			return []*tensor.Tensor{randnSeeded(87, 2, 16, 32, 32), randnSeeded(88, 16, 16, 3, 3), randnSeeded(89, 16),
				randnSeeded(90, 2, 3, 9, 9), randnSeeded(91, 4, 3, 3, 3)}
		}, []string{"aten.convolution.default", "aten.convolution_backward.default"}},
		{"batch norm", func(t ...*tensor.Tensor) []*tensor.Tensor {
			// native_batch_norm in training and in evaluation, and the
			// functional _native_batch_norm_legit overloads.
			x, w, b, rm, rv := t[0], t[1], t[2], t[3], t[4].Abs()
			nb := func(training bool, rm, rv *tensor.Tensor) []*tensor.Tensor {
				return tensor.Call("aten::native_batch_norm", x, w, b, rm, rv, training, 0.1, 1e-5).([]*tensor.Tensor)
			}
			tr, ev := nb(true, nil, nil), nb(false, rm, rv)
			ns := tensor.Call("aten::_native_batch_norm_legit.no_stats", x, w, b, true, 0.1, 1e-5).([]*tensor.Tensor)
			nt := tensor.Call("aten::_native_batch_norm_legit_no_training", x, w, b, rm, rv, 0.1, 1e-5).([]*tensor.Tensor)
			return []*tensor.Tensor{tr[0].Neg(), tr[1], tr[2], ev[0].Neg(), ns[0].Neg(), ns[2], nt[0].Neg()}
		}, func() []*tensor.Tensor {
			return []*tensor.Tensor{randnSeeded(92, 4, 16, 8, 8), randnSeeded(93, 16), randnSeeded(94, 16), randnSeeded(95, 16),
				randnSeeded(96, 16)}
		}, []string{"aten.native_batch_norm.default", "aten._native_batch_norm_legit.no_stats",
			"aten._native_batch_norm_legit_no_training.default"}},
		{"layer norm backward", func(t ...*tensor.Tensor) []*tensor.Tensor {
			g, x, w, b := t[0], t[1], t[2], t[3]
			var res []*tensor.Tensor
			for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
				g, x, w, b := g.To(dt), x.To(dt), w.To(dt), b.To(dt)
				fw := tensor.Call("aten::native_layer_norm", x, []int{40}, w, b, 1e-5).([]*tensor.Tensor)
				mask := []bool{true, true, true}
				if dt == tensor.Float64 {
					mask[1] = false // dw undefined
				}
				bw := tensor.Call("aten::native_layer_norm_backward", g, x, []int{40}, fw[1], fw[2], w, b, mask).([]*tensor.Tensor)
				res = append(res, bw[0].Neg(), bw[2].Neg())
				if mask[1] {
					res = append(res, bw[1])
				}
			}
			return res
		}, func() []*tensor.Tensor {
			return []*tensor.Tensor{randnSeeded(81, 8, 40), randnSeeded(82, 8, 40), randnSeeded(83, 40), randnSeeded(84, 40)}
		}, []string{"aten.native_layer_norm_backward.default"}},
	}
}

// TestPlannedOps: the ops of outKernelCases run their out kernels into
// results the plan lays out (Describe says so for every call of them),
// give the Eager backend's bits call after call (warm calls reuse the
// arena's storages, which hold the previous call's values, so an element a
// kernel leaves unwritten shows), and later calls leave earlier results
// alone.
func TestPlannedOps(t *testing.T) {
	for _, c := range outKernelCases() {
		t.Run(c.name, func(t *testing.T) {
			ins := c.inputs()
			gm, err := compile.Trace(c.f, ins, compile.TraceOptions{Mode: compile.Fake})
			if err != nil {
				t.Fatal(err)
			}
			plan, err := cpu.Describe(gm, ins)
			if err != nil {
				t.Fatal(err)
			}
			for _, op := range c.ops {
				seen := false
				for _, line := range strings.Split(plan, "\n") {
					if !strings.HasPrefix(line, "call ") || !strings.Contains(line, "target=torch.ops."+op+"]") {
						continue
					}
					seen = true
					if !strings.Contains(line, "(into a planned result") && !strings.Contains(line, "(into planned results") {
						t.Errorf("%s runs through the dispatcher:\n%s", op, line)
					}
				}
				if !seen {
					t.Errorf("no call of %s in the plan:\n%s", op, plan)
				}
			}
			fused := compile.Compile(c.f, compile.Options{Backend: cpu.Backend, Fullgraph: true})
			ref := compile.Compile(c.f, compile.Options{Backend: compile.Eager, Fullgraph: true})
			res, err := ref.Call(ins...)
			if err != nil {
				t.Fatal(err)
			}
			want := tensors(res)
			var kept [][]*tensor.Tensor
			for call := range 3 {
				got, err := fused.Call(ins...)
				if err != nil {
					t.Fatal(err)
				}
				g := tensors(got)
				if len(g) != len(want) {
					t.Fatalf("call %d: %d results, want %d", call, len(g), len(want))
				}
				for i := range g {
					if err := sameBits(g[i], want[i]); err != nil {
						t.Errorf("call %d, result %d: %v", call, i, err)
					}
				}
				kept = append(kept, g)
			}
			for call, g := range kept {
				for i := range g {
					if err := sameBits(g[i], want[i]); err != nil {
						t.Errorf("kept result %d of call %d: %v", i, call, err)
					}
				}
			}
		})
	}
}

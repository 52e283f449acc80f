package cpu_test

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"

	_ "github.com/goaten/goaten"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/cpu"
	"github.com/goaten/goaten/tensor"
)

type fn = func(ts ...*tensor.Tensor) []*tensor.Tensor

func one(f func(ts ...*tensor.Tensor) *tensor.Tensor) fn {
	return func(ts ...*tensor.Tensor) []*tensor.Tensor { return []*tensor.Tensor{f(ts...)} }
}

// randn is a float32 tensor of normal values with a few NaNs, infinities
// and signed zeros where special is set.
func randn(special bool, sizes ...int) *tensor.Tensor {
	t := tensor.Randn(sizes)
	if special && t.Numel() > 8 {
		v := tensor.Elems[float32](t.Storage())
		v[1], v[3] = float32(math.NaN()), float32(math.Inf(1))
		v[5], v[7] = float32(math.Inf(-1)), float32(math.Copysign(0, -1))
	}
	return t
}

func f32s(t *tensor.Tensor) []float32 {
	c := t.Contiguous()
	if c.DType() != tensor.Float32 {
		c = c.To(tensor.Float32) // exact for float16 and bfloat16; float64 results here are widened float32s
	}
	return tensor.Elems[float32](c.Storage())[c.StorageOffset():][:c.Numel()]
}

// sameBits reports where a and b differ (NaN equals NaN, any payload).
func sameBits(a, b *tensor.Tensor) error {
	if a.DType() != b.DType() || fmt.Sprint(a.Sizes()) != fmt.Sprint(b.Sizes()) || fmt.Sprint(a.Strides()) != fmt.Sprint(b.Strides()) {
		return fmt.Errorf("layout: %v %v %v vs %v %v %v", a.DType(), a.Sizes(), a.Strides(), b.DType(), b.Sizes(), b.Strides())
	}
	x, y := f32s(a), f32s(b)
	for i := range x {
		if math.Float32bits(x[i]) != math.Float32bits(y[i]) && !(x[i] != x[i] && y[i] != y[i]) {
			return fmt.Errorf("element %d: %v (%#x) vs %v (%#x)", i, x[i], math.Float32bits(x[i]), y[i], math.Float32bits(y[i]))
		}
	}
	return nil
}

func tensors(res any) []*tensor.Tensor {
	switch v := res.(type) {
	case *tensor.Tensor:
		return []*tensor.Tensor{v}
	case []any:
		out := make([]*tensor.Tensor, len(v))
		for i, x := range v {
			out[i], _ = x.(*tensor.Tensor)
		}
		return out
	}
	return nil
}

type fusionCase struct {
	name   string
	f      fn
	inputs func() []*tensor.Tensor
	calls  int // dispatcher calls the plan keeps (-1: not checked)
	decomp []string
}

func cases() []fusionCase {
	in := func(sizes ...[]int) func() []*tensor.Tensor {
		return func() []*tensor.Tensor {
			out := make([]*tensor.Tensor, len(sizes))
			for i, s := range sizes {
				out[i] = randn(true, s...)
			}
			return out
		}
	}
	return []fusionCase{
		{"chain", one(func(t ...*tensor.Tensor) *tensor.Tensor {
			return t[0].MulScalar(2).AddScalar(1).Sigmoid().Mul(t[0])
		}), in([]int{64, 300}), 0, nil},
		{"gelu_bias", one(func(t ...*tensor.Tensor) *tensor.Tensor { return t[0].Add(t[1]).Gelu() }),
			in([]int{33, 257}, []int{257}), 0, nil},
		{"gelu_tanh_bias", one(func(t ...*tensor.Tensor) *tensor.Tensor {
			return t[0].Add(t[1]).Gelu(tensor.WithApproximate("tanh"))
		}), in([]int{33, 257}, []int{257}), 0, nil},
		{"gelu_decomposed", one(func(t ...*tensor.Tensor) *tensor.Tensor { return t[0].Add(t[1]).Gelu() }),
			in([]int{33, 257}, []int{257}), 0, []string{"aten::gelu"}},
		{"layer_norm_residual", one(func(t ...*tensor.Tensor) *tensor.Tensor {
			return tensor.LayerNorm(t[0].Add(t[1]), []int{200}, tensor.WithWeight(t[2]), tensor.WithBias(t[3]))
		}), in([]int{3, 40, 200}, []int{3, 40, 200}, []int{200}, []int{200}), 0, nil},
		{"layer_norm_stats", func(t ...*tensor.Tensor) []*tensor.Tensor {
			y, m, r := tensor.NativeLayerNorm(t[0].MulScalar(3), []int{10, 20}, nil, nil, 1e-5)
			return []*tensor.Tensor{y.Relu(), m, r.Exp()}
		}, in([]int{7, 10, 20}), 0, nil},
		{"softmax_mask", one(func(t ...*tensor.Tensor) *tensor.Tensor {
			return t[0].DivScalar(0.7).Add(t[1]).Softmax(-1)
		}), in([]int{4, 50, 130}, []int{1, 1, 130}), 0, nil},
		{"log_softmax", one(func(t ...*tensor.Tensor) *tensor.Tensor { return t[0].Exp().LogSoftmax(-1).Neg() }),
			in([]int{20, 70}), 0, nil},
		{"softmax_decomposed", one(func(t ...*tensor.Tensor) *tensor.Tensor {
			return t[0].DivScalar(0.7).Add(t[1]).Softmax(-1)
		}), in([]int{4, 50, 130}, []int{50, 130}), 0, []string{"aten::_softmax"}},
		{"log_softmax_decomposed", one(func(t ...*tensor.Tensor) *tensor.Tensor { return t[0].LogSoftmax(-1).MulScalar(2) }),
			in([]int{20, 40}), 0, []string{"aten::_log_softmax"}},
		{"reductions", func(t ...*tensor.Tensor) []*tensor.Tensor {
			x := t[0].Sigmoid()
			return []*tensor.Tensor{
				x.Sum([]int{-1}),
				x.MeanDim([]int{-1}, tensor.WithKeepdim(true)).MulScalar(2),
				x.Amax(tensor.WithDim([]int{-1})),
				x.Amin(tensor.WithDim([]int{-1}), tensor.WithKeepdim(true)),
			}
		}, in([]int{30, 100}), 0, nil},
		{"short_rows", func(t ...*tensor.Tensor) []*tensor.Tensor {
			x := t[0].AddScalar(1)
			m := x.Amax(tensor.WithDim([]int{-1}), tensor.WithKeepdim(true))
			s := x.Sub(m).Exp().Sum([]int{-1}, tensor.WithKeepdim(true))
			return []*tensor.Tensor{x.Sub(m).Div(s), s.Rsqrt().Reciprocal()}
		}, in([]int{90, 7}), 0, nil},
		{"two_trailing_dims", func(t ...*tensor.Tensor) []*tensor.Tensor {
			x := t[0].Tanh()
			m := x.MeanDim([]int{-1, -2}, tensor.WithKeepdim(true))
			return []*tensor.Tensor{x.Sub(m), x.Sum([]int{1, 2})}
		}, in([]int{6, 9, 11}), 0, nil},
		{"sum_all", one(func(t ...*tensor.Tensor) *tensor.Tensor { return t[0].Mul(t[0]).Sum(nil) }), in([]int{40, 30}), 0, nil},
		{"broadcasts", one(func(t ...*tensor.Tensor) *tensor.Tensor {
			return t[0].Mul(t[1]).Add(t[2]).Maximum(t[3]).Sub(t[4])
		}), in([]int{5, 6, 70}, []int{5, 1, 70}, []int{6, 1}, []int{70}, []int{}), 0, nil},
		{"periodic", func(t ...*tensor.Tensor) []*tensor.Tensor {
			return []*tensor.Tensor{t[1].Sub(t[0].Exp()).Div(t[2]), t[0].Mul(t[1]).Softmax(-1)}
		}, in([]int{3, 7, 300}, []int{300}, []int{7, 300}), 0, nil},
		{"scalar_f64", one(func(t ...*tensor.Tensor) *tensor.Tensor { return t[0].Mul(t[1]).Add(t[1]) }),
			func() []*tensor.Tensor {
				return []*tensor.Tensor{randn(true, 40, 30), tensor.FromSlice([]float64{1.0 / 3}).Reshape([]int{})}
			}, 0, nil},
		{"strided", one(func(t ...*tensor.Tensor) *tensor.Tensor { return t[0].Exp().Mul(t[1]) }),
			func() []*tensor.Tensor {
				return []*tensor.Tensor{randn(true, 50, 60).T(), randn(true, 60, 50)}
			}, -1, nil},
		{"alpha", one(func(t ...*tensor.Tensor) *tensor.Tensor {
			return t[0].Add(t[1], tensor.WithAlpha(2.5)).Sub(t[1], tensor.WithAlpha(-0.5)).Sub(t[0], tensor.WithAlpha(-1))
		}), in([]int{31, 33}, []int{31, 33}), 0, nil},
		{"scalar_first", one(func(t ...*tensor.Tensor) *tensor.Tensor {
			return t[0].RsubScalar(1).Rsub(tensor.WrappedNumber(tensor.Float(2))).Reciprocal().Rsub(t[0], tensor.WithAlpha(3))
		}), in([]int{100, 3}), 0, nil},
		{"clamp_pow", func(t ...*tensor.Tensor) []*tensor.Tensor {
			x := t[0]
			return []*tensor.Tensor{
				x.Clamp(tensor.WithMin(-0.5), tensor.WithMax(0.75)), x.Clamp(tensor.WithMin(0)), x.Clamp(tensor.WithMax(0.25)),
				x.Hardtanh(), x.PowScalar(2), x.PowScalar(3), x.PowScalar(0.5), x.PowScalar(-0.5), x.PowScalar(-1), x.PowScalar(1.7),
			}
		}, in([]int{30, 30}), 0, nil},
		{"go_loops", func(t ...*tensor.Tensor) []*tensor.Tensor {
			return []*tensor.Tensor{t[0].Abs().Log1p().Add(t[0].Atan()), t[0].Sign(), t[0].Asinh().Tan()}
		}, in([]int{20, 20}), 0, nil},
		{"min_max_nan", one(func(t ...*tensor.Tensor) *tensor.Tensor {
			return t[0].Maximum(t[1]).Minimum(t[0].Neg())
		}), in([]int{20, 20}, []int{20, 20}), 0, nil},
		{"casts", func(t ...*tensor.Tensor) []*tensor.Tensor {
			h := t[1].To(tensor.Float32).Add(t[0]).Softmax(-1)
			return []*tensor.Tensor{h.To(tensor.BFloat16), h.Exp().To(tensor.Float16), t[2].To(tensor.Float32).Sigmoid().To(tensor.Float64)}
		}, func() []*tensor.Tensor {
			return []*tensor.Tensor{randn(true, 30, 300), randn(true, 30, 300).To(tensor.Float16), randn(true, 30, 300).To(tensor.Float64)}
		}, 0, nil},
		{"casts_bf16_in", one(func(t ...*tensor.Tensor) *tensor.Tensor {
			return t[0].To(tensor.Float32).MulScalar(3).Gelu().To(tensor.BFloat16)
		}), func() []*tensor.Tensor { return []*tensor.Tensor{randn(true, 30, 300).To(tensor.BFloat16)} }, 0, nil},
		{"attention_mask", one(func(t ...*tensor.Tensor) *tensor.Tensor {
			return t[0].DivScalar(8).MaskedFillScalar(t[1].GtScalar(0.5), math.Inf(-1)).Softmax(-1)
		}), in([]int{2, 3, 40, 40}, []int{40, 40}), 1, nil},
		{"where", func(t ...*tensor.Tensor) []*tensor.Tensor {
			c := t[2].GtScalar(0)
			w := tensor.Where(c, t[0].Exp(), t[1].Neg())
			return []*tensor.Tensor{w, tensor.Where(c, tensor.WrappedNumber(tensor.Float(2)), w), tensor.Where(c.T(), t[1], tensor.WrappedNumber(tensor.Float(-1))),
				tensor.Where(c, tensor.WrappedNumber(tensor.Float(3)), tensor.WrappedNumber(tensor.Float(-3))).Mul(t[0])}
		}, in([]int{30, 30}, []int{30, 30}, []int{30, 30}), 2, nil}, // gt and t stay calls
		{"mlp", one(func(t ...*tensor.Tensor) *tensor.Tensor {
			h := t[0].Mm(t[1]).Add(t[2]).Relu()
			return h.Mm(t[3]).Add(t[4]).Gelu()
		}), in([]int{64, 100}, []int{100, 128}, []int{128}, []int{128, 96}, []int{96}), 2, nil},
		{"float64", one(func(t ...*tensor.Tensor) *tensor.Tensor { return t[0].MulScalar(2).Exp() }),
			func() []*tensor.Tensor { return []*tensor.Tensor{randn(false, 10, 10).To(tensor.Float64)} }, 2, nil},
		{"int64_mix", one(func(t ...*tensor.Tensor) *tensor.Tensor { return t[0].Add(t[1]).Sigmoid() }),
			func() []*tensor.Tensor {
				return []*tensor.Tensor{randn(false, 10, 10), randn(false, 10, 10).MulScalar(10).To(tensor.Int64)}
			}, 1, nil},
		{"shared_outputs", func(t ...*tensor.Tensor) []*tensor.Tensor {
			a := t[0].Sin()
			b := a.Mul(t[1])
			return []*tensor.Tensor{a, b, b.Cos().Add(a)}
		}, in([]int{300, 40}, []int{300, 40}), 0, nil},
		{"big_parallel", func(t ...*tensor.Tensor) []*tensor.Tensor {
			x := t[0].Add(t[1]).Sigmoid().Mul(t[0])
			return []*tensor.Tensor{x, tensor.LayerNorm(x, []int{1024}), x.Softmax(-1)}
		}, in([]int{200, 1024}, []int{1024}), 0, nil},
		{"backward_pointwise", func(t ...*tensor.Tensor) []*tensor.Tensor {
			g := t[0].MulScalar(2)
			return []*tensor.Tensor{
				tensor.ThresholdBackward(g, t[1], 0).Add(t[1]),
				tensor.ThresholdBackward(t[0], t[1].Exp(), 1.5),
				tensor.SigmoidBackward(g, t[1].Sigmoid()),
				tensor.TanhBackward(t[0], t[1].Tanh()).Neg(),
			}
		}, in([]int{30, 70}, []int{30, 70}), 0, nil},
		{"mid_sums", func(t ...*tensor.Tensor) []*tensor.Tensor {
			x := t[0].Mul(t[1])
			return []*tensor.Tensor{x.Sum([]int{0, 2, 3}), x.Exp().Sum([]int{-1, 0, -2}, tensor.WithKeepdim(true)), x}
		}, in([]int{4, 8, 6, 6}, []int{4, 8, 6, 6}), 0, nil},
		{"mid_sums_size1", one(func(t ...*tensor.Tensor) *tensor.Tensor {
			return t[0].Sigmoid().Sum([]int{0, 1, 3, 4, 5})
		}), in([]int{3, 2, 5, 1, 4, 5}), 0, nil},
		{"mid_sums_not_fused", func(t ...*tensor.Tensor) []*tensor.Tensor { // device/cpu's other paths: calls
			return []*tensor.Tensor{t[0].Neg().Sum([]int{0, 2, 3}), t[1].Neg().Sum([]int{0, 2, 3}), t[2].Neg().Sum([]int{0, 2}),
				t[2].Neg().MeanDim([]int{0, 2, 3})}
		}, in([]int{1, 8, 6, 6}, []int{4, 8, 3, 3}, []int{4, 8, 6, 6}), 4, nil},
		{"batch_norm_backward", batchNormBackward, in([]int{8, 16, 16, 16}, []int{8, 16, 16, 16}, []int{8, 16, 16, 16},
			[]int{16}, []int{16}, []int{16}), -1, nil},
		{"broadcast_runs", func(t ...*tensor.Tensor) []*tensor.Tensor { // per-channel operands read in runs (iBinRun)
			x, c := t[0].Exp(), t[1]
			return []*tensor.Tensor{x.Sub(c).Mul(t[2]).Div(c).Maximum(t[2]), c.Sub(x).Minimum(c).Add(t[2]),
				x.Sum([]int{-1, -2}).Mul(t[3]).AddScalar(1)}
		}, in([]int{3, 5, 9, 12}, []int{1, 5, 1, 1}, []int{5, 1, 1}, []int{3, 5}), 0, nil},
		{"clone_gathers", func(t ...*tensor.Tensor) []*tensor.Tensor { // contiguous clones fuse (their input gathered)
			h := t[0].Exp().Reshape([]int{2, 40, 4, 8}).Transpose(1, 2)
			k := h.Transpose(-2, -1).Expand([]int{2, 4, 8, 40}).Contiguous()
			return []*tensor.Tensor{h.Clone(tensor.WithMemoryFormat(tensor.ContiguousFormat)).AddScalar(1), k,
				t[1].Clone(tensor.WithMemoryFormat(tensor.ChannelsLast)), // strided results stay calls
				t[1].Permute([]int{0, 2, 3, 1}).Clone(), t[1].Expand([]int{2, 3, 5, 6}).Clone()}
		}, in([]int{2, 40, 32}, []int{1, 3, 5, 6}), 8, nil}, // the views, and the two strided clones
		{"view_between", one(func(t ...*tensor.Tensor) *tensor.Tensor {
			x := t[0].Exp().Reshape([]int{20, 30})
			return x.Transpose(0, 1).Sigmoid().AddScalar(1)
		}), in([]int{600}), -1, nil},
	}
}

// batchNormBackward is ReLU's and batch norm's backward as AOT autograd
// records them for a conv-BN-ReLU block (autograd's batchNormBackward):
// the gradient go, ReLU's output y, the convolution's output x, the saved
// mean and inverse deviation, the weight.
func batchNormBackward(t ...*tensor.Tensor) []*tensor.Tensor {
	gout, y, x, mean, invstd, w := t[0], t[1], t[2], t[3], t[4], t[5]
	bc := []int{1, x.Size(1), 1, 1}
	n := float64(x.Numel() / x.Size(1))
	g := tensor.ThresholdBackward(gout, y, 0)
	gB := g.Sum([]int{0, 2, 3})
	xhat := x.Sub(mean.Reshape(bc)).Mul(invstd.Reshape(bc))
	gW := g.Mul(xhat).Sum([]int{0, 2, 3})
	gi := g.Sub(gB.Reshape(bc).DivScalar(n)).Sub(xhat.Mul(gW.Reshape(bc).DivScalar(n))).Mul(invstd.Reshape(bc)).Mul(w.Reshape(bc))
	return []*tensor.Tensor{gi, gW, gB}
}

// TestBatchNormBackwardFused: ReLU's backward and the sums over (0, 2, 3)
// of batch norm's backward run inside tile programs (no dispatcher call of
// threshold_backward or sum), the sums in the group that computes their
// input, the per-channel operands read in runs (no gather).
func TestBatchNormBackwardFused(t *testing.T) {
	ins := []*tensor.Tensor{randn(false, 8, 16, 16, 16), randn(false, 8, 16, 16, 16), randn(false, 8, 16, 16, 16),
		randn(false, 16), randn(false, 16), randn(false, 16)}
	gm, err := compile.Trace(batchNormBackward, ins, compile.TraceOptions{Mode: compile.Fake})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := cpu.Describe(gm, ins)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(plan, "\n") {
		if strings.HasPrefix(line, "call ") && (strings.Contains(line, "target=aten.threshold_backward") || strings.Contains(line, "target=aten.sum")) {
			t.Errorf("not fused: %s\n%s", line, plan)
		}
	}
	if strings.Contains(plan, "= gather") {
		t.Errorf("a per-channel operand gathered, not read in runs:\n%s", plan)
	}
	if n := strings.Count(plan, "per row; out"); n != 2 {
		t.Errorf("%d middle sums in tile programs, want 2:\n%s", n, plan)
	}
	if testing.Verbose() {
		t.Log("\n" + plan)
	}
}

// TestTiledBackwardEqualsEager runs batch norm's backward and the
// per-channel runs on tiles that cut the runs and the rows' blocks anywhere
// (and are shared among the cores where the group is big enough): the
// middle sums' rows are added in device/cpu's order whatever tile computed
// them.
func TestTiledBackwardEqualsEager(t *testing.T) {
	ins := []*tensor.Tensor{randn(true, 8, 16, 16, 16), randn(true, 8, 16, 16, 16), randn(true, 8, 16, 16, 16),
		randn(true, 16), randn(true, 16), randn(true, 16)}
	runs := func(ts ...*tensor.Tensor) []*tensor.Tensor {
		c := ts[3].Reshape([]int{1, 16, 1, 1})
		return []*tensor.Tensor{ts[0].Sub(c).Mul(ts[1]), c.Div(ts[2].Exp())}
	}
	for _, f := range []fn{batchNormBackward, runs} {
		want, err := compile.Compile(f, compile.Options{Fullgraph: true}).Call(ins...)
		if err != nil {
			t.Fatal(err)
		}
		for _, te := range []int{1, 100, 256, 777, 4096, 1 << 20} {
			got, err := compile.Compile(f, compile.Options{Backend: cpu.New(cpu.Options{TileElems: te}), Fullgraph: true}).Call(ins...)
			if err != nil {
				t.Fatal(err)
			}
			g, w := tensors(got), tensors(want)
			for i := range g {
				if err := sameBits(g[i], w[i]); err != nil {
					t.Errorf("tiles of %d, result %d: %v", te, i, err)
				}
			}
		}
	}
}

func decomps(t *testing.T, names []string) compile.Decompositions {
	if names == nil {
		return nil
	}
	d, err := compile.GetDecompositions(names...)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestFusedEqualsEager runs each case compiled with the cpu backend and
// with the Eager backend: the same bits, and the plan's dispatcher calls as
// expected.
func TestFusedEqualsEager(t *testing.T) {
	for _, c := range cases() {
		t.Run(c.name, func(t *testing.T) {
			ins := c.inputs()
			d := decomps(t, c.decomp)
			fused := compile.Compile(c.f, compile.Options{Backend: cpu.Backend, Fullgraph: true, Decompositions: d})
			ref := compile.Compile(c.f, compile.Options{Fullgraph: true, Decompositions: d})
			want, err := ref.Call(ins...)
			if err != nil {
				t.Fatal(err)
			}
			for rep := range 3 { // cold, then warm calls reusing the arena
				got, err := fused.Call(ins...)
				if err != nil {
					t.Fatal(err)
				}
				g, w := tensors(got), tensors(want)
				if len(g) != len(w) {
					t.Fatalf("%d results, want %d", len(g), len(w))
				}
				for i := range g {
					if err := sameBits(g[i], w[i]); err != nil {
						t.Errorf("call %d, result %d: %v", rep, i, err)
					}
				}
			}
			gm, err := compile.Trace(c.f, ins, compile.TraceOptions{Mode: compile.Fake, Decompositions: d})
			if err != nil {
				t.Fatal(err)
			}
			plan, err := cpu.Describe(gm, ins)
			if err != nil {
				t.Fatal(err)
			}
			// Steps outside groups: dispatcher calls and the views the
			// plan makes itself.
			calls := strings.Count(plan, "call %") + strings.Count(plan, "view %") - strings.Count(plan, "target=operator.getitem")
			if c.calls >= 0 && calls != c.calls {
				t.Errorf("%d steps outside groups, want %d:\n%s", calls, c.calls, plan)
			}
			if testing.Verbose() {
				t.Log("\n" + plan)
			}
		})
	}
}

// TestResultsSurviveNextCall checks that the arena never reuses what a
// call returned: the results of one call keep their values through the
// next calls.
func TestResultsSurviveNextCall(t *testing.T) {
	f := func(x, w *tensor.Tensor) []*tensor.Tensor {
		h := x.Mm(w).Relu()
		return []*tensor.Tensor{h.Mm(w.T()).Sigmoid(), h.MulScalar(2)}
	}
	c := compile.Compile(f, compile.Options{Backend: cpu.Backend})
	x, w := randn(false, 64, 64), randn(false, 64, 64)
	first, err := c.Call(x, w)
	if err != nil {
		t.Fatal(err)
	}
	keep := tensors(first)
	snap := make([][]float32, len(keep))
	for i, k := range keep {
		snap[i] = append([]float32(nil), f32s(k)...)
	}
	for range 3 {
		if _, err := c.Call(randn(false, 64, 64), randn(false, 64, 64)); err != nil {
			t.Fatal(err)
		}
	}
	for i, k := range keep {
		for j, v := range f32s(k) {
			if v != snap[i][j] {
				t.Fatalf("result %d of the first call changed at %d: %v, was %v", i, j, v, snap[i][j])
			}
		}
	}
}

// TestConcurrentCalls runs one compiled function from several goroutines.
func TestConcurrentCalls(t *testing.T) {
	f := func(x, b *tensor.Tensor) *tensor.Tensor {
		return tensor.LayerNorm(x.Mm(x.T()).Add(b), []int{96}).Gelu()
	}
	c := compile.Compile(f, compile.Options{Backend: cpu.Backend})
	ref := compile.Compile(f)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				x, b := randn(false, 96, 40+g), randn(false, 96)
				got, err := c.Call(x, b)
				if err != nil {
					errs <- err
					return
				}
				want, _ := ref.Call(x, b)
				if err := sameBits(got.(*tensor.Tensor), want.(*tensor.Tensor)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestWarmCallMemory: a warm call of a graph with intermediates outside
// groups (matrix products) allocates little more than its result.
func TestWarmCallMemory(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("memory statistics: the race detector allocates on its own, and -short (the qemu pass) keeps to correctness; go test ./... runs it")
	}
	f := func(x, w1, w2 *tensor.Tensor) *tensor.Tensor {
		h := x.Mm(w1).Relu().MulScalar(0.5)
		return h.Mm(w2).Sigmoid()
	}
	x, w1, w2 := randn(false, 256, 256), randn(false, 256, 512), randn(false, 512, 128)
	c := compile.Compile(f, compile.Options{Backend: cpu.Backend})
	for range 3 {
		if _, err := c.Call(x, w1, w2); err != nil {
			t.Fatal(err)
		}
	}
	var m0, m1 runtime.MemStats
	const calls = 20
	runtime.ReadMemStats(&m0)
	for range calls {
		if _, err := c.Call(x, w1, w2); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&m1)
	per := float64(m1.TotalAlloc-m0.TotalAlloc) / calls
	out := 256.0 * 128 * 4
	inter := 256.0 * 512 * 4 * 2
	t.Logf("%.0f bytes a call (result %.0f, intermediates %.0f)", per, out, inter)
	if per > out+inter/2 {
		t.Errorf("a warm call allocates %.0f bytes; the result is %.0f", per, out)
	}
}

// TestGradFallsBack: with inputs that require grad the compiled function
// trains (AOT autograd runs the backend on detached inputs) and gives the
// Eager backend's values and gradients.
func TestGradFallsBack(t *testing.T) {
	f := func(x, w *tensor.Tensor) *tensor.Tensor {
		return tensor.LayerNorm(x.Mm(w).Gelu(), []int{32}).Sigmoid().Sum(nil)
	}
	run := func(b compile.Backend) ([]float32, []float32) {
		x := randnSeeded(1, 16, 24)
		w := randnSeeded(2, 24, 32)
		w.SetRequiresGrad(true)
		c := compile.Compile(f, compile.Options{Backend: b})
		res, err := c.Call(x, w)
		if err != nil {
			t.Fatal(err)
		}
		out := res.(*tensor.Tensor)
		out.Backward()
		return f32s(out), f32s(w.Grad())
	}
	v1, g1 := run(cpu.Backend)
	v2, g2 := run(compile.Eager)
	if fmt.Sprint(v1) != fmt.Sprint(v2) || fmt.Sprint(g1) != fmt.Sprint(g2) {
		t.Fatalf("values %v vs %v, grads differ: %v", v1, v2, fmt.Sprint(g1) != fmt.Sprint(g2))
	}
}

func randnSeeded(seed uint64, sizes ...int) *tensor.Tensor {
	tensor.ManualSeed(seed)
	return tensor.Randn(sizes)
}

// TestNewLayouts: inputs of another size or layout get plans of their own.
func TestNewLayouts(t *testing.T) {
	f := func(x *tensor.Tensor) *tensor.Tensor { return x.Exp().Softmax(-1).MulScalar(3) }
	c := compile.Compile(f, compile.Options{Backend: cpu.Backend})
	ref := compile.Compile(f)
	for _, x := range []*tensor.Tensor{randn(true, 8, 16), randn(true, 9, 16), randn(true, 16, 8).T(), randn(true, 8, 16)} {
		got, err := c.Call(x)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := ref.Call(x)
		if err := sameBits(got.(*tensor.Tensor), want.(*tensor.Tensor)); err != nil {
			t.Fatalf("%v: %v", x.Sizes(), err)
		}
	}
}

// TestErrorsNameTheNode: a failing dispatcher call reports the node, as
// the Eager backend does.
func TestErrorsNameTheNode(t *testing.T) {
	f := func(x, y *tensor.Tensor) *tensor.Tensor { return x.Exp().Mm(y) }
	gm, err := compile.Trace(f, []*tensor.Tensor{randn(false, 4, 5), randn(false, 5, 6)}, compile.TraceOptions{Mode: compile.Fake})
	if err != nil {
		t.Fatal(err)
	}
	run, err := cpu.Backend(gm, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = run([]*tensor.Tensor{randn(false, 4, 5), randn(false, 7, 6)})
	if err == nil || !strings.Contains(err.Error(), "While executing") {
		t.Fatalf("err = %v", err)
	}
}

// TestWarmCallAllocs counts the allocations of a warm call of a fused
// chain (the result tensor and the call's bookkeeping) and of a graph with
// matrix products (their results' headers, the dispatcher's argument lists).
func TestWarmCallAllocs(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("allocation counts: the race detector allocates on its own, and -short (the qemu pass) keeps to correctness; go test ./... runs it")
	}
	chain := compile.Compile(func(x *tensor.Tensor) *tensor.Tensor { return x.MulScalar(2).AddScalar(1).Sigmoid().Mul(x) },
		compile.Options{Backend: cpu.Backend})
	x := randn(false, 256, 1024)
	chain.Call(x)
	n := testing.AllocsPerRun(20, func() { chain.Call(x) })
	t.Logf("fused chain: %v allocations a call", n)
	if n > 12 {
		t.Errorf("a warm call of a fused chain makes %v allocations", n)
	}
}

// TestCloneGatheredInPlace: a contiguous clone whose input is gathered
// straight into the clone's register costs no copy of its own (the
// gather is the clone), and one that must move its value copies it once.
func TestCloneGatheredInPlace(t *testing.T) {
	x := randn(false, 40, 30)
	for _, c := range []struct {
		f      func(*tensor.Tensor) *tensor.Tensor
		copies int
	}{
		{func(x *tensor.Tensor) *tensor.Tensor { return x.T().Contiguous().AddScalar(1) }, 0},
		{func(x *tensor.Tensor) *tensor.Tensor { return x.T().Contiguous() }, 1},
	} {
		gm, err := compile.Trace(c.f, []*tensor.Tensor{x}, compile.TraceOptions{Mode: compile.Fake})
		if err != nil {
			t.Fatal(err)
		}
		plan, err := cpu.Describe(gm, []*tensor.Tensor{x})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan, "gather in0") || strings.Count(plan, "= clone(") != c.copies {
			t.Errorf("want a gather and %d copies:\n%s", c.copies, plan)
		}
		got, err := compile.Compile(c.f, compile.Options{Backend: cpu.Backend}).Call(x)
		if err != nil {
			t.Fatal(err)
		}
		if err := sameBits(got.(*tensor.Tensor), c.f(x)); err != nil {
			t.Error(err)
		}
	}
}

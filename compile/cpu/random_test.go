package cpu_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/cpu"
	"github.com/goaten/goaten/tensor"
)

// TestRandomChains compiles random chains of pointwise ops, reductions and
// row ops over random shapes (broadcast, strided and scalar operands,
// short and long rows, float64 and float16 inputs) with the cpu backend
// and with the Eager backend, and compares the results bit for bit.
func TestRandomChains(t *testing.T) {
	trials := 300
	if testing.Short() {
		trials = 60
	}
	for trial := range trials {
		r := rand.New(rand.NewPCG(uint64(trial), 7))
		desc, f, inputs := randomChain(r)
		fused := compile.Compile(f, compile.Options{Backend: cpu.New(cpu.Options{TileElems: 1 << (4 + r.IntN(10))}), Fullgraph: true})
		ref := compile.Compile(f, compile.Options{Fullgraph: true})
		want, err := ref.Call(inputs...)
		if err != nil {
			t.Fatalf("trial %d (%s): eager: %v", trial, desc, err)
		}
		got, err := fused.Call(inputs...)
		if err != nil {
			t.Fatalf("trial %d (%s): cpu: %v", trial, desc, err)
		}
		g, w := tensors(got), tensors(want)
		for i := range w {
			if err := sameBits(g[i], w[i]); err != nil {
				t.Fatalf("trial %d (%s), result %d: %v", trial, desc, i, err)
			}
		}
	}
}

// randomChain makes a function of random inputs and describes it.
func randomChain(r *rand.Rand) (string, func(ts ...*tensor.Tensor) []*tensor.Tensor, []*tensor.Tensor) {
	rank := 1 + r.IntN(3)
	S := make([]int, rank)
	for i := range S {
		S[i] = 1 + r.IntN(40)
		if r.IntN(4) == 0 {
			S[i] = 1
		}
	}
	if r.IntN(5) == 0 {
		S[rank-1] = 64 + r.IntN(300) // long rows: per-row kernel calls, periodic operands
	}
	// Inputs: the full shape (maybe transposed in memory), broadcast
	// shapes, a 0-d one, a float64 0-d one, a float16 one.
	var inputs []*tensor.Tensor
	var shapes [][]int
	add := func(t *tensor.Tensor) {
		inputs = append(inputs, t)
		shapes = append(shapes, t.Sizes())
	}
	add(randn(true, S...))
	if rank >= 2 && r.IntN(3) == 0 {
		p := append([]int(nil), S...)
		p[0], p[rank-1] = p[rank-1], p[0]
		add(randn(true, p...).Transpose(0, rank-1))
	} else {
		add(randn(true, S...))
	}
	for range 2 {
		b := append([]int(nil), S[r.IntN(rank):]...)
		for i := range b {
			if r.IntN(2) == 0 {
				b[i] = 1
			}
		}
		add(randn(true, b...))
	}
	add(randn(false))
	add(tensor.FromSlice([]float64{r.Float64()*4 - 2}).Reshape([]int{}))
	add(randn(true, S...).To(tensor.Float16))
	nin := len(inputs)

	type step struct {
		name string
		f    func(vals []*tensor.Tensor) *tensor.Tensor
	}
	unary := []string{"exp", "sigmoid", "tanh", "erf", "neg", "abs", "relu", "gelu", "sin", "log1p", "sqrt", "clamp", "pow2", "reciprocal"}
	var steps []step
	nsteps := 3 + r.IntN(7)
	for range nsteps {
		nv := nin + len(steps)
		pick := func() int {
			if r.IntN(3) == 0 {
				return r.IntN(nv)
			}
			return nv - 1 // the chain goes on from the last value
		}
		a, b := pick(), r.IntN(nv)
		if a == nin-1 {
			a = 0 // the float16 input is only converted
		}
		switch c := r.IntN(10); {
		case c < 4:
			u := unary[r.IntN(len(unary))]
			steps = append(steps, step{fmt.Sprintf("%s(v%d)", u, a), func(v []*tensor.Tensor) *tensor.Tensor {
				x := v[a]
				switch u {
				case "exp":
					return x.Exp()
				case "sigmoid":
					return x.Sigmoid()
				case "tanh":
					return x.Tanh()
				case "erf":
					return x.Erf()
				case "neg":
					return x.Neg()
				case "abs":
					return x.Abs()
				case "relu":
					return x.Relu()
				case "gelu":
					return x.Gelu()
				case "sin":
					return x.Sin()
				case "log1p":
					return x.Log1p()
				case "sqrt":
					return x.Sqrt()
				case "clamp":
					return x.Clamp(tensor.WithMin(-0.5), tensor.WithMax(1))
				case "pow2":
					return x.PowScalar(2)
				}
				return x.Reciprocal()
			}})
		case c < 8:
			if b == nin-1 {
				b = nin - 2
			}
			op := []string{"add", "sub", "mul", "div", "maximum", "minimum", "add_scalar", "mul_scalar", "rsub"}[r.IntN(9)]
			s := float64(r.IntN(7)) / 4
			steps = append(steps, step{fmt.Sprintf("%s(v%d, v%d)", op, a, b), func(v []*tensor.Tensor) *tensor.Tensor {
				x, y := v[a], v[b]
				switch op {
				case "add":
					return x.Add(y)
				case "sub":
					return y.Sub(x)
				case "mul":
					return x.Mul(y)
				case "div":
					return x.Div(y)
				case "maximum":
					return x.Maximum(y)
				case "minimum":
					return y.Minimum(x)
				case "add_scalar":
					return x.AddScalar(s)
				case "mul_scalar":
					return x.MulScalar(s)
				}
				return x.RsubScalar(s)
			}})
		case c < 9:
			op := []string{"sum", "mean", "amax", "softmax", "log_softmax", "layer_norm"}[r.IntN(6)]
			steps = append(steps, step{fmt.Sprintf("%s(v%d)", op, a), func(v []*tensor.Tensor) *tensor.Tensor {
				x := v[a]
				if x.Dim() == 0 {
					return x.Exp()
				}
				switch op {
				case "sum":
					return x.Sum([]int{-1}, tensor.WithKeepdim(true))
				case "mean":
					return x.MeanDim([]int{-1}, tensor.WithKeepdim(true))
				case "amax":
					return x.Amax(tensor.WithDim([]int{-1}), tensor.WithKeepdim(true))
				case "softmax":
					return x.Softmax(-1)
				case "log_softmax":
					return x.LogSoftmax(-1)
				}
				return tensor.LayerNorm(x, []int{x.Size(-1)})
			}})
		case c < 10 && r.IntN(2) == 0:
			steps = append(steps, step{fmt.Sprintf("masked_fill(v%d, v%d > 0)", a, b), func(v []*tensor.Tensor) *tensor.Tensor {
				if v[b].DType() != tensor.Float32 {
					return v[a].MaskedFillScalar(v[2].GtScalar(0), -1)
				}
				return v[a].MaskedFillScalar(v[b].GtScalar(0), -1)
			}})
		default:
			steps = append(steps, step{"f16(v6)", func(v []*tensor.Tensor) *tensor.Tensor {
				return v[nin-1].To(tensor.Float32).Mul(v[0])
			}})
		}
	}
	desc := fmt.Sprintf("shapes %v:", shapes)
	for i, s := range steps {
		desc += fmt.Sprintf(" v%d=%s", nin+i, s.name)
	}
	f := func(ts ...*tensor.Tensor) []*tensor.Tensor {
		vals := append([]*tensor.Tensor(nil), ts...)
		for _, s := range steps {
			vals = append(vals, s.f(vals))
		}
		last := vals[len(vals)-1]
		out := []*tensor.Tensor{last, vals[nin+len(steps)/2]}
		if last.DType() == tensor.Float32 && last.Numel() > 1 {
			out = append(out, last.To(tensor.BFloat16))
		}
		return out
	}
	return desc, f, inputs
}

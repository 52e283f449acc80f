package nninit_test

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	gt "github.com/goaten/goaten"
	nninit "github.com/goaten/goaten/nn/init"
	"github.com/goaten/goaten/safetensors"
)

// The init functions against PyTorch 1.13: testdata/nn/init.* holds what
// scripts/record_nn.py recorded (its torch.nn.init section). Each case runs
// after ManualSeed(seed) on Empty(shape, dtype); the tensor it fills must
// equal PyTorch's bit for bit, but for the QR of Orthogonal_ and the erfinv
// of TruncNormal_ (their tolerances below), and the next four numbers of
// the default stream must be PyTorch's: the function drew as many as
// PyTorch's.

type initIndex struct {
	Torch string `json:"torch"`
	Cases []struct {
		Name  string `json:"name"`
		Seed  uint64 `json:"seed"`
		Shape []int  `json:"shape"`
		DType string `json:"dtype"`
	} `json:"cases"`
	Errors []struct {
		Name    string `json:"name"`
		Kind    string `json:"kind"`
		Message string `json:"message"`
	} `json:"errors"`
}

func readInit(t *testing.T) (*initIndex, map[string]*gt.Tensor) {
	dir := filepath.Join("..", "..", "testdata", "nn")
	b, err := os.ReadFile(filepath.Join(dir, "init.json"))
	if err != nil {
		t.Fatal(err)
	}
	var idx initIndex
	if err := json.Unmarshal(b, &idx); err != nil {
		t.Fatal(err)
	}
	f, err := safetensors.Load(filepath.Join(dir, "init.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	return &idx, f.Tensors
}

// cmp is how a case's tensor is compared with PyTorch's.
type cmp int

const (
	bits  cmp = iota // bit for bit
	qr               // Orthogonal_: gonum's float64 QR against LAPACK's
	erfin            // TruncNormal_: Go's erf and exp against glibc's
)

var initCases = map[string]struct {
	fill func(*gt.Tensor)
	cmp  cmp
}{
	"uniform":             {func(t *gt.Tensor) { nninit.Uniform_(t, -0.5, 2) }, bits},
	"normal_f64":          {func(t *gt.Tensor) { nninit.Normal_(t, 1, 0.3) }, bits},
	"constant":            {func(t *gt.Tensor) { nninit.Constant_(t, 0.7) }, bits},
	"ones":                {func(t *gt.Tensor) { nninit.Ones_(t) }, bits},
	"zeros_f64":           {func(t *gt.Tensor) { nninit.Zeros_(t) }, bits},
	"xavier_uniform_gain": {func(t *gt.Tensor) { nninit.XavierUniform_(t, nninit.CalculateGain("tanh")) }, bits},
	"xavier_normal":       {func(t *gt.Tensor) { nninit.XavierNormal_(t, 1) }, bits},
	"kaiming_uniform_fan_out": {func(t *gt.Tensor) {
		nninit.KaimingUniform_(t, nninit.Kaiming{A: 0.2, Mode: "fan_out"})
	}, bits},
	"kaiming_normal_relu_f64": {func(t *gt.Tensor) {
		nninit.KaimingNormal_(t, nninit.Kaiming{Mode: "fan_in", Nonlinearity: "relu"})
	}, bits},
	"trunc_normal":             {func(t *gt.Tensor) { nninit.TruncNormal_(t, 0, 1, -2, 2) }, erfin},
	"trunc_normal_args":        {func(t *gt.Tensor) { nninit.TruncNormal_(t, 0.5, 2, -1, 3) }, erfin},
	"trunc_normal_bf16":        {func(t *gt.Tensor) { nninit.TruncNormal_(t, 0, 0.5, -2, 2) }, erfin},
	"trunc_normal_f64":         {func(t *gt.Tensor) { nninit.TruncNormal_(t, -0.2, 0.02, -0.24, -0.17) }, erfin},
	"eye":                      {func(t *gt.Tensor) { nninit.Eye_(t) }, bits},
	"eye_tall_f64":             {func(t *gt.Tensor) { nninit.Eye_(t) }, bits},
	"dirac_1d":                 {func(t *gt.Tensor) { nninit.Dirac_(t, 1) }, bits},
	"dirac_2d_groups":          {func(t *gt.Tensor) { nninit.Dirac_(t, 2) }, bits},
	"dirac_3d_groups":          {func(t *gt.Tensor) { nninit.Dirac_(t, 3) }, bits},
	"orthogonal":               {func(t *gt.Tensor) { nninit.Orthogonal_(t, 1) }, qr},
	"orthogonal_tall_f64":      {func(t *gt.Tensor) { nninit.Orthogonal_(t, 1) }, qr},
	"orthogonal_square":        {func(t *gt.Tensor) { nninit.Orthogonal_(t, 1) }, qr},
	"orthogonal_conv_gain":     {func(t *gt.Tensor) { nninit.Orthogonal_(t, 2) }, qr},
	"orthogonal_relu_gain_f64": {func(t *gt.Tensor) { nninit.Orthogonal_(t, nninit.CalculateGain("relu")) }, qr},
	"orthogonal_empty":         {func(t *gt.Tensor) { nninit.Orthogonal_(t, 1) }, bits},
	"sparse":                   {func(t *gt.Tensor) { nninit.Sparse_(t, 0.3, 0.01) }, bits},
	"sparse_f64":               {func(t *gt.Tensor) { nninit.Sparse_(t, 0.5, 0.1) }, bits},
}

// dtypes are the recorded dtypes; a bfloat16 case is stored as float32.
var dtypes = map[string]gt.DType{"F32": gt.Float32, "F64": gt.Float64, "BF16": gt.BFloat16}

// eps is the distance from 1 to the next number of d.
func eps(d gt.DType) float64 {
	switch d {
	case gt.Float64:
		return 0x1p-52
	case gt.BFloat16:
		return 0x1p-7
	}
	return 0x1p-23
}

func TestTorch(t *testing.T) {
	idx, data := readInit(t)
	seen := map[string]bool{}
	nexact, nval := 0, 0
	for _, c := range idx.Cases {
		seen[c.Name] = true
		t.Run(c.Name, func(t *testing.T) {
			ic, ok := initCases[c.Name]
			if !ok {
				t.Fatal("no Go case")
			}
			want, after := data[c.Name+"/out"], data[c.Name+"/after"]
			if want == nil || after == nil {
				t.Fatal("not recorded")
			}
			gt.ManualSeed(c.Seed)
			got := gt.Empty(c.Shape, gt.WithDtype(dtypes[c.DType]))
			ic.fill(got)
			e := eps(got.DType())
			if got.DType() == gt.BFloat16 {
				got = got.To(gt.Float32)
			}
			if got.DType() != want.DType() || !slices.Equal(got.Sizes(), want.Sizes()) {
				t.Fatalf("got %v %v, want %v %v", got.DType(), got.Sizes(), want.DType(), want.Sizes())
			}
			g, w := got.Float64s(), want.Float64s()
			worst, ndiff := 0.0, 0
			for i := range w {
				nval++
				if math.Float64bits(g[i]) == math.Float64bits(w[i]) {
					nexact++
					continue
				}
				var bound float64
				switch ic.cmp {
				case qr:
					// Q is unique after the sign fix; LAPACK's and
					// gonum's Householder QRs differ by rounding, in
					// float32 LAPACK's own (sgeqrf/sorgqr): a few ulps of
					// Q's largest elements (gain ≤ 2 here).
					bound = 8 * e
				case erfin:
					// erfinv within 4 ulps (see TruncNormal_), then
					// ·std·√2 + mean, each rounded once: 4ε of the
					// magnitudes involved.
					bound = 4 * e * (math.Abs(w[i]) + 1)
				}
				ndiff++
				worst = max(worst, math.Abs(g[i]-w[i])/bound)
				if !(math.Abs(g[i]-w[i]) <= bound) {
					t.Errorf("element %d: got %v, want %v (bound %.3g)", i, g[i], w[i], bound)
				}
			}
			if ndiff > 0 {
				t.Logf("%d of %d values differ from PyTorch's, the largest by %.2g of the bound", ndiff, len(w), worst)
			}
			if a := gt.Rand(4).Float64s(); !slices.Equal(a, after.Float64s()) {
				t.Errorf("the stream after: got %v, want %v (a different number of draws)", a, after.Float64s())
			}
		})
	}
	for name := range initCases {
		if !seen[name] {
			t.Errorf("%s: not in testdata/nn/init.json", name)
		}
	}
	t.Logf("PyTorch %s: %d cases, %d of %d values bit for bit", idx.Torch, len(idx.Cases), nexact, nval)
}

var initErrors = map[string]func(){
	"eye_dims":          func() { nninit.Eye_(gt.Empty(3)) },
	"dirac_dims":        func() { nninit.Dirac_(gt.Empty(3, 3), 1) },
	"dirac_groups":      func() { nninit.Dirac_(gt.Empty(5, 2, 3), 2) },
	"orthogonal_dims":   func() { nninit.Orthogonal_(gt.Empty(4), 1) },
	"sparse_dims":       func() { nninit.Sparse_(gt.Empty(2, 3, 4), 0.1, 0.01) },
	"xavier_dims":       func() { nninit.XavierUniform_(gt.Empty(5), 1) },
	"kaiming_mode":      func() { nninit.KaimingNormal_(gt.Empty(3, 4), nninit.Kaiming{Mode: "fan_avg"}) },
	"gain_nonlinearity": func() { nninit.CalculateGain("gelu") },
	"eye_bfloat16":      func() { nninit.Eye_(gt.Empty(2, 3, gt.WithDtype(gt.BFloat16))) },
	"orthogonal_half":   func() { nninit.Orthogonal_(gt.Empty(2, 3, gt.WithDtype(gt.Float16)), 1) },
	"trunc_normal_half": func() { nninit.TruncNormal_(gt.Empty(2, 3, gt.WithDtype(gt.Float16)), 0, 1, -2, 2) },
}

func TestTorchErrors(t *testing.T) {
	idx, _ := readInit(t)
	seen := map[string]bool{}
	for _, e := range idx.Errors {
		seen[e.Name] = true
		f, ok := initErrors[e.Name]
		if !ok {
			t.Errorf("%s: no Go case", e.Name)
			continue
		}
		err := gt.Try(f)
		var te *gt.Error
		if !errors.As(err, &te) {
			t.Errorf("%s: error %v, want %s: %s", e.Name, err, e.Kind, e.Message)
			continue
		}
		if te.Kind.String() != e.Kind || te.Msg != e.Message {
			t.Errorf("%s:\n got %s: %s\nwant %s: %s", e.Name, te.Kind, te.Msg, e.Kind, e.Message)
		}
	}
	for name := range initErrors {
		if !seen[name] {
			t.Errorf("%s: not in testdata/nn/init.json", name)
		}
	}
}

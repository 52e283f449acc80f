package cpu_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/cpu"
	"github.com/goaten/goaten/tensor"
)

// TestAutoTile: with no TileElems given, a group that computes more than
// it moves (a transcendental kernel) and moves at least PageTileBytes runs
// in tiles of one 4 KiB page of float32 per operand (1024 elements, whole
// rows), one that mostly moves bytes, or moves less, in DefaultTileElems
// tiles; an explicit TileElems holds for every group. Results equal the
// Eager backend's over several tiles either way.
func TestAutoTile(t *testing.T) {
	const R, N = 160, 1024 // 160K elements: several tiles of either size
	defer func(v int) { *cpu.PageTileBytes = v }(*cpu.PageTileBytes)
	*cpu.PageTileBytes = R * N * 4 // one operand's bytes: every group here moves more
	long := fmt.Sprintf("%d rows a tile", min(cpu.DefaultTileElems, R*N))
	longRows := fmt.Sprintf("%d rows a tile", min(cpu.DefaultTileElems/N, R))
	for _, c := range []struct {
		name     string
		f        fn
		n        int  // inputs of R×N
		wide     bool // a last input of N (bias, weight)
		want     string
		explicit string // with TileElems 4096
	}{
		{"sigmoid_chain", one(func(t ...*tensor.Tensor) *tensor.Tensor {
			return t[0].MulScalar(2).AddScalar(1).Sigmoid().Mul(t[0])
		}), 1, false, "1024 rows a tile", "4096 rows a tile"},
		{"exp_mul", one(func(t ...*tensor.Tensor) *tensor.Tensor { return t[0].Exp().Mul(t[0]) }), 1, false, "1024 rows a tile", "4096 rows a tile"},
		{"gelu_bias", one(func(t ...*tensor.Tensor) *tensor.Tensor { return t[0].Add(t[1]).Gelu() }), 1, true, "1024 rows a tile", "4096 rows a tile"},
		{"softmax", one(func(t ...*tensor.Tensor) *tensor.Tensor { return t[0].DivScalar(8).Add(t[1]).Softmax(-1) }), 2, false, "1 rows a tile", "4 rows a tile"},
		{"scale_shift", one(func(t ...*tensor.Tensor) *tensor.Tensor { return t[0].MulScalar(2).AddScalar(1) }), 1, false, long, "4096 rows a tile"},
		{"add_sigmoid", one(func(t ...*tensor.Tensor) *tensor.Tensor { return t[0].Add(t[1]).Sigmoid() }), 2, false, long, "4096 rows a tile"},
		{"layer_norm_residual", one(func(t ...*tensor.Tensor) *tensor.Tensor {
			return tensor.LayerNorm(t[0].Add(t[1]), []int{N}, tensor.WithWeight(t[2]))
		}), 2, true, longRows, "4 rows a tile"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ins []*tensor.Tensor
			for range c.n {
				ins = append(ins, randn(true, R, N))
			}
			if c.wide {
				ins = append(ins, randn(false, N))
			}
			gm, err := compile.Trace(c.f, ins, compile.TraceOptions{Mode: compile.Fake})
			if err != nil {
				t.Fatal(err)
			}
			ref := compile.Compile(c.f, compile.Options{Fullgraph: true})
			want, err := ref.Call(ins...)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range []struct {
				opts cpu.Options
				want string
			}{{cpu.Options{}, c.want}, {cpu.Options{TileElems: 4096}, c.explicit}} {
				plan, err := cpu.Describe(gm, ins, o.opts)
				if err != nil {
					t.Fatal(err)
				}
				got := regexp.MustCompile(`\d+ rows a tile`).FindAllString(plan, -1)
				if len(got) != 1 || got[0] != o.want {
					t.Errorf("TileElems %d: %q, want one group of %q:\n%s", o.opts.TileElems, got, o.want, plan)
				}
				if o.opts.TileElems == 0 { // moving less than PageTileBytes: long tiles
					*cpu.PageTileBytes = 1 << 40
					plan, err := cpu.Describe(gm, ins, o.opts)
					*cpu.PageTileBytes = R * N * 4
					if err != nil {
						t.Fatal(err)
					}
					lng := long
					if c.name == "softmax" || c.name == "layer_norm_residual" {
						lng = longRows
					}
					if got := regexp.MustCompile(`\d+ rows a tile`).FindAllString(plan, -1); len(got) != 1 || got[0] != lng {
						t.Errorf("below PageTileBytes: %q, want one group of %q:\n%s", got, lng, plan)
					}
				}
				res, err := compile.Compile(c.f, compile.Options{Backend: cpu.New(o.opts), Fullgraph: true}).Call(ins...)
				if err != nil {
					t.Fatal(err)
				}
				if err := sameBits(tensors(res)[0], tensors(want)[0]); err != nil {
					t.Errorf("TileElems %d: %v", o.opts.TileElems, err)
				}
			}
		})
	}
}

package bench

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	gt "github.com/goaten/goaten"
)

// BenchmarkOps is goaten/<case> for the op survey of peers/ops_cases.json:
// common ops beyond the elementwise and GEMM suites (pooling, reductions
// over other dims, backward ops, indexing, copies, norms, convolution
// variants), each called through the dispatcher with random float32
// operands (int64 indices below their bound, bool masks) on the shapes the
// file gives. bench/peers/ops_peers.py times the same cases in PyTorch.
//
// An argument is a tensor spec ({"t": shape} normal values, {"p": shape}
// positive ones, {"i": shape, "hi": n} int64 in [0, n), {"b": shape}
// bools, {"tT": shape} the transpose of a contiguous tensor of that
// shape), a list of tensor specs, or a plain value (numbers with a point
// or an exponent are floats).
func BenchmarkOps(b *testing.B) {
	for _, c := range opsCases(b) {
		b.Run("goaten/"+c.name, func(b *testing.B) {
			if err := gt.Try(c.f); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				c.f()
			}
		})
	}
}

// opsCases are the cases of peers/ops_cases.json, each with its operands
// made (the same ones on every call, from a fixed seed).
func opsCases(b testing.TB) []apiCase {
	f, err := os.Open("peers/ops_cases.json")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	dec.UseNumber()
	var cases []struct {
		Name, Op string
		Args     []any
	}
	if err := dec.Decode(&cases); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]apiCase, len(cases))
	for i, c := range cases {
		args := make([]any, len(c.Args))
		for i, a := range c.Args {
			args[i] = opsArg(r, a)
		}
		out[i] = apiCase{name: c.Name, f: func() { gt.Call(c.Op, args...) }}
	}
	return out
}

func opsInts(v []any) []int {
	out := make([]int, len(v))
	for i, x := range v {
		n, _ := x.(json.Number).Int64()
		out[i] = int(n)
	}
	return out
}

func opsArg(r *rand.Rand, a any) any {
	switch x := a.(type) {
	case map[string]any:
		for k, s := range x {
			if k == "hi" {
				continue
			}
			sh := opsInts(s.([]any))
			n := 1
			for _, d := range sh {
				n *= d
			}
			switch k {
			case "t", "p", "tT":
				v := make([]float32, n)
				for j := range v {
					if k == "p" {
						v[j] = r.Float32() + 0.1
					} else {
						v[j] = float32(r.NormFloat64())
					}
				}
				if k == "tT" {
					return gt.FromFloat32s(v, sh[1], sh[0]).T()
				}
				return gt.FromFloat32s(v, sh...)
			case "i":
				hi, _ := x["hi"].(json.Number).Int64()
				v := make([]int64, n)
				for j := range v {
					v[j] = r.Int64N(hi)
				}
				return gt.FromInt64s(v, sh...)
			case "b":
				v := make([]bool, n)
				for j := range v {
					v[j] = r.IntN(2) == 1
				}
				return gt.FromBools(v, sh...)
			}
		}
	case []any:
		if len(x) > 0 {
			if _, ok := x[0].(map[string]any); ok {
				ts := make([]*gt.Tensor, len(x))
				for i, e := range x {
					ts[i] = opsArg(r, e).(*gt.Tensor)
				}
				return ts
			}
			if _, ok := x[0].(bool); ok {
				bs := make([]bool, len(x))
				for i, e := range x {
					bs[i] = e.(bool)
				}
				return bs
			}
		}
		return opsInts(x)
	case json.Number:
		if strings.ContainsAny(x.String(), ".eE") {
			f, _ := x.Float64()
			return f
		}
		n, _ := x.Int64()
		return int(n)
	}
	return a
}

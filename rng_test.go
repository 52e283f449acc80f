package goaten_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	gt "github.com/goaten/goaten"
	nninit "github.com/goaten/goaten/nn/init"
	"github.com/goaten/goaten/tensor"
)

// rngRecord is one line of testdata/rng/rng.jsonl: PyTorch 1.13's result
// of call right after torch.manual_seed(seed).
type rngRecord struct {
	Seed   rngSeed   `json:"seed"`
	Call   string    `json:"call"`
	DType  string    `json:"dtype"`
	Shape  []int     `json:"shape"`
	Values []float64 `json:"values"`
}

// rngSeed is a torch.manual_seed argument: any integer in
// [-2^63, 2^64), a negative one taken as its two's complement, as
// torch.manual_seed takes it.
type rngSeed uint64

func (s *rngSeed) UnmarshalJSON(b []byte) error {
	if u, err := strconv.ParseUint(string(b), 10, 64); err == nil {
		*s = rngSeed(u)
		return nil
	}
	i, err := strconv.ParseInt(string(b), 10, 64)
	*s = rngSeed(uint64(i))
	return err
}

func readRNGRecords(t *testing.T) []rngRecord {
	t.Helper()
	path := "testdata/rng/rng.jsonl"
	if p := os.Getenv("GOATEN_RNG_RECORDS"); p != "" {
		path = p // another record set in the same format
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []rngRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r rngRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return recs
}

var rngCall = regexp.MustCompile(`^([a-zA-Z_.0-9]+)\((.*)\)( weight, ?bias| weight)?$`)

// nums parses a record call's comma-separated arguments: numbers, and
// dtype=float64 / replacement=True / probs4 keywords.
func nums(t *testing.T, s string) (v []float64, kw map[string]string) {
	kw = map[string]string{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if k, val, ok := strings.Cut(f, "="); ok {
			kw[k] = val
			continue
		}
		if f == "probs4" {
			kw["probs"] = f
			continue
		}
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			t.Fatalf("bad argument %q", f)
		}
		v = append(v, x)
	}
	return v, kw
}

// linearInit is nn.Linear(in, out) / nn.Conv2d's reset_parameters on a
// weight of the given shape and a bias of shape[0]: weight then bias.
func linearInit(shape ...int) []*gt.Tensor {
	w := gt.Empty(shape)
	b := gt.Empty(shape[0])
	nninit.KaimingUniform_(w, nninit.Kaiming{A: math.Sqrt(5)})
	fanIn, _ := nninit.CalculateFanInAndFanOut(w)
	bound := 1 / math.Sqrt(float64(fanIn))
	nninit.Uniform_(b, -bound, bound)
	return []*gt.Tensor{w, b}
}

// runRNGCall runs a record's call through the public API, right after
// ManualSeed(seed); the results are flattened and concatenated.
func runRNGCall(t *testing.T, r rngRecord) []*gt.Tensor {
	m := rngCall.FindStringSubmatch(r.Call)
	if m == nil {
		t.Fatalf("unknown call %q", r.Call)
	}
	a, kw := nums(t, m[2])
	n := func(i int) int { return int(a[i]) }
	dtype := gt.Float32
	if kw["dtype"] == "float64" {
		dtype = gt.Float64
	}
	gt.ManualSeed(uint64(r.Seed))
	one := func(x *gt.Tensor) []*gt.Tensor { return []*gt.Tensor{x} }
	switch m[1] {
	case "randn":
		return one(gt.CallKw("aten::randn", []any{[]int{n(0)}}, map[string]any{"dtype": dtype}).(*gt.Tensor))
	case "rand":
		return one(gt.CallKw("aten::rand", []any{[]int{n(0)}}, map[string]any{"dtype": dtype}).(*gt.Tensor))
	case "randint":
		return one(gt.RandintLow(n(0), n(1), []int{n(2)}))
	case "randperm":
		return one(gt.Randperm(n(0)))
	case "normal_":
		return one(gt.Empty(n(2), gt.WithDtype(dtype)).Normal_(gt.WithMean(a[0]), gt.WithStd(a[1])))
	case "uniform_":
		return one(gt.Empty(n(2), gt.WithDtype(dtype)).Uniform_(gt.WithFrom(a[0]), gt.WithTo(a[1])))
	case "bernoulli_":
		return one(gt.Empty(n(1), gt.WithDtype(dtype)).Bernoulli_(gt.WithP(a[0])))
	case "exponential_":
		return one(gt.Empty(n(1), gt.WithDtype(dtype)).Exponential_(gt.WithLambd(a[0])))
	case "dropout":
		return one(gt.Dropout(gt.Full(1, n(1), gt.WithDtype(dtype)), a[0], true))
	case "multinomial":
		probs := gt.FromFloat32s([]float32{0.1, 0.2, 0.3, 0.4}).To(dtype)
		return one(probs.Multinomial(n(0), gt.WithReplacement(kw["replacement"] == "True")))
	case "nn.Linear":
		return linearInit(n(1), n(0))
	case "nn.Conv2d":
		return linearInit(n(1), n(0), n(2), n(2))
	case "nn.Embedding":
		return one(nninit.Normal_(gt.Empty(n(0), n(1)), 0, 1))
	}
	t.Fatalf("unknown call %q", r.Call)
	return nil
}

// TestRNGRecords replays PyTorch 1.13's random streams: each record's call
// after ManualSeed must give its values bit for bit.
func TestRNGRecords(t *testing.T) {
	recs := readRNGRecords(t)
	exact := 0
	for _, r := range recs {
		name := fmt.Sprintf("seed%d/%s", r.Seed, r.Call)
		res := runRNGCall(t, r)
		var got []float64
		for _, x := range res {
			if x.DType().String() != r.DType && !strings.HasPrefix(r.Call, "nn.") {
				t.Errorf("%s: dtype %s, want %s", name, x.DType(), r.DType)
			}
			if x.DType() == gt.Int64 {
				for _, v := range x.Int64s() {
					got = append(got, float64(v))
				}
			} else {
				got = append(got, x.Float64s()...)
			}
		}
		if !strings.HasPrefix(r.Call, "nn.") && !equalInts(res[0].Sizes(), r.Shape) { // nn.* records are flattened
			t.Errorf("%s: shape %v, want %v", name, res[0].Sizes(), r.Shape)
			continue
		}
		if len(got) != len(r.Values) {
			t.Errorf("%s: %d values, want %d", name, len(got), len(r.Values))
			continue
		}
		bad := -1
		for i, v := range got {
			w := r.Values[i]
			if r.DType == "float32" {
				w = float64(float32(w))
			}
			if math.Float64bits(v) != math.Float64bits(w) {
				bad = i
				break
			}
		}
		if bad >= 0 {
			t.Errorf("%s: value %d is %v, PyTorch %v", name, bad, got[bad], r.Values[bad])
			continue
		}
		exact++
	}
	t.Logf("%d of %d records bit-exact", exact, len(recs))
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestRNGConsumption checks how many 32-bit words of the stream each
// sampler takes, as ATen's CPU kernels take them: after the call the
// default generator must be exactly that many words past the seed. A
// sampler that drew one word more or less than PyTorch (a cached normal
// redrawn, a uniform of the wrong width, a tail block skipped) fails here
// even if its values happened to match.
func TestRNGConsumption(t *testing.T) {
	// normal_distribution<double>: two 53-bit uniforms per pair.
	pairs := func(n int) int { return 4 * ((n + 1) / 2) }
	// normal_fill: all uniforms, plus 16 more for a ragged tail.
	fill := func(n, words int) int {
		if n%16 != 0 {
			n += 16
		}
		return n * words
	}
	cases := []struct {
		name  string
		call  func()
		words int
	}{
		{"rand(7)", func() { gt.Rand(7) }, 7},
		{"rand(7,float64)", func() { gt.CallKw("aten::rand", []any{[]int{7}}, map[string]any{"dtype": gt.Float64}) }, 14},
		{"randn(5)", func() { gt.Randn(5) }, pairs(5)},
		{"randn(15,float64)", func() { gt.CallKw("aten::randn", []any{[]int{15}}, map[string]any{"dtype": gt.Float64}) }, pairs(15)},
		{"randn(16)", func() { gt.Randn(16) }, fill(16, 1)},
		{"randn(33)", func() { gt.Randn(33) }, fill(33, 1)},
		{"randn(40,float64)", func() { gt.CallKw("aten::randn", []any{[]int{40}}, map[string]any{"dtype": gt.Float64}) }, fill(40, 2)},
		{"randn(2,10) transposed", func() { gt.Empty(10, 2).T().Normal_(gt.WithMean(0), gt.WithStd(1)) }, pairs(20)}, // not contiguous: per element
		{"uniform_(9)", func() { gt.Empty(9).Uniform_(gt.WithFrom(-1), gt.WithTo(1)) }, 9},
		{"uniform_(9,float64)", func() { gt.Empty(9, gt.WithDtype(gt.Float64)).Uniform_(gt.WithFrom(-1), gt.WithTo(1)) }, 18},
		{"randint(0,10,6)", func() { gt.RandintLow(0, 10, []int{6}) }, 6},
		{"randint(0,2^33,6)", func() { gt.RandintLow(0, 1<<33, []int{6}) }, 12},
		{"randperm(10)", func() { gt.Randperm(10) }, 9},
		{"bernoulli_(11)", func() { gt.Empty(11).Bernoulli_(gt.WithP(0.3)) }, 22},
		{"bernoulli(probs float32)", func() { gt.Full(0.5, 11).Bernoulli() }, 11},
		{"dropout(13)", func() { gt.Dropout(gt.Ones(13), 0.2, true) }, 26},
		{"native_dropout(13)", func() { tensor.NativeDropout(gt.Ones(13), 0.2, true) }, 26},
		{"exponential_(5)", func() { gt.Empty(5).Exponential_(gt.WithLambd(2)) }, 10},
		{"multinomial(2x4,3,replacement)", func() { gt.Ones(2, 4).Multinomial(3, gt.WithReplacement(true)) }, 12},
		{"multinomial(4,2)", func() { gt.Ones(4).Multinomial(2, gt.WithReplacement(false)) }, 8}, // exponential_ on 4 elements
		{"Linear(5,3)", func() { linearInit(3, 5) }, 18},
	}
	for _, c := range cases {
		const seed = 1234
		gt.ManualSeed(seed)
		c.call()
		var got uint32
		tensor.DefaultGenerator().Draw(func(e *tensor.Engine) { got = e.Random() })
		ref := tensor.NewGenerator(seed)
		var want uint32
		ref.Draw(func(e *tensor.Engine) {
			for range c.words {
				e.Random()
			}
			want = e.Random()
		})
		if got != want {
			t.Errorf("%s: the stream is not %d words on after the call", c.name, c.words)
		}
	}
}

// TestRNGGeneratorArgument: an op given a generator= draws from it, not
// from the default generator.
func TestRNGGeneratorArgument(t *testing.T) {
	gt.ManualSeed(0)
	want := gt.Randn(20).Float64s()
	next := gt.Rand(4).Float64s()

	gt.ManualSeed(0)
	g := gt.NewGenerator(0)
	got := gt.CallKw("aten::normal_", []any{gt.Empty(20), 0.0, 1.0}, map[string]any{"generator": g}).(*gt.Tensor).Float64s()
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("normal_ with a generator: element %d is %v, want %v", i, got[i], want[i])
		}
	}
	if d := gt.Randn(20).Float64s(); d[0] != want[0] {
		t.Errorf("the default generator moved: randn gives %v first, want %v", d[0], want[0])
	}
	if r := gt.CallKw("aten::uniform_", []any{gt.Empty(4), 0.0, 1.0}, map[string]any{"generator": g}).(*gt.Tensor).Float64s(); r[0] != next[0] {
		t.Errorf("the generator's stream did not go on: uniform_ gives %v first, want %v", r[0], next[0])
	}
	if g.Seed() != 0 || gt.DefaultGenerator().Seed() != 0 {
		t.Errorf("seeds %d, %d, want 0, 0", g.Seed(), gt.DefaultGenerator().Seed())
	}
}

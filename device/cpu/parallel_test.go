package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/goaten/goaten/tensor"
)

// TestLoopSeek cuts walks into ranges and checks that the runs of the
// pieces, in order, visit exactly the offsets of the whole walk.
func TestLoopSeek(t *testing.T) {
	cases := []struct {
		shape   []int
		strides [][]int
	}{
		{[]int{24}, [][]int{{1}, {1}}},                               // one run
		{[]int{5, 7}, [][]int{{7, 1}, {1, 5}}},                       // transposed input
		{[]int{3, 4, 5}, [][]int{{20, 5, 1}, {0, 5, 1}, {1, 0, 3}}},  // broadcast, strided
		{[]int{4, 3, 6}, [][]int{{1, 24, 4}, {18, 6, 1}}},            // permuted output: memory order
		{[]int{2, 1, 3, 5}, [][]int{{30, 15, 5, 1}, {15, 15, 1, 3}}}, // size-1 dim, strided inner
		{[]int{7, 9}, [][]int{{9, 1}, {9, 1}, {0, 0}}},               // coalesced with a scalar
		{[]int{3, 5, 2}, [][]int{{10, 2, 1}, {-10, 2, 1}}},           // negative stride
	}
	r := rand.New(rand.NewPCG(3, 4))
	for ci, c := range cases {
		offs := make([]int, len(c.strides))
		for k := range offs {
			offs[k] = 100 * k
		}
		var whole loop
		whole.init(c.shape, c.strides, offs)
		want := collect(&whole)
		n := whole.numel()
		if len(want[0]) != n {
			t.Fatalf("case %d: numel %d, walk has %d elements", ci, n, len(want[0]))
		}
		for trial := 0; trial < 50; trial++ {
			cuts := []int{0, n}
			for i := r.IntN(4); i > 0; i-- {
				cuts = append(cuts, r.IntN(n+1))
			}
			slices.Sort(cuts)
			cuts = slices.Compact(cuts)
			got := make([][]int, len(c.strides))
			for i := 0; i+1 < len(cuts); i++ {
				var l loop
				l.init(c.shape, c.strides, offs)
				l.seek(cuts[i], cuts[i+1])
				part := collect(&l)
				for k := range got {
					got[k] = append(got[k], part[k]...)
				}
			}
			for k := range want {
				if !slices.Equal(got[k], want[k]) {
					t.Fatalf("case %d cuts %v operand %d:\n got %v\nwant %v", ci, cuts, k, got[k], want[k])
				}
			}
		}
	}
}

// bigValues is n float32 values with NaN, infinities and signed zeros sprinkled in.
func bigValues(n int, seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, 9))
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64() * 4)
	}
	for i := 0; i < n; i += 9973 {
		v[i] = float32(math.NaN())
		if i+1 < n {
			v[i+1] = float32(math.Inf(1))
		}
		if i+2 < n {
			v[i+2] = float32(math.Copysign(0, -1))
		}
	}
	return v
}

// TestParallelMatchesSerial runs ops on tensors big enough to be shared
// among goroutines (every path that splits: the strided loop's typed and
// generic block paths, the contiguous slice paths, copies, conversions,
// transposes, row reductions, reductions over strided dims, softmax, layer
// norm, pooling) with GOMAXPROCS 1 and 4
// and checks the results are identical bit for bit. Run under -race it also
// checks the pieces do not overlap.
func TestParallelMatchesSerial(t *testing.T) {
	const rows, cols = 300, 701 // 210300 elements: above 2·grain
	x := tensor.FromSlice(bigValues(rows*cols, 1)).Reshape([]int{rows, cols})
	y := tensor.FromSlice(bigValues(rows*cols, 2)).Reshape([]int{rows, cols})
	row := tensor.FromSlice(bigValues(cols, 3))
	xt := tensor.FromSlice(bigValues(rows*cols, 4)).Reshape([]int{cols, rows}).T()
	x64 := x.To(tensor.Float64)
	xi := x.Clamp(tensor.WithMin(-1000), tensor.WithMax(1000)).To(tensor.Int64)
	long := tensor.FromSlice(bigValues(5*redChunk+123, 5))
	// 300 planes of 28×28 (not a multiple of 8: the global average pool's
	// eight-plane groups and their tail).
	img := tensor.FromSlice(bigValues(4*75*28*28, 6)).Reshape([]int{4, 75, 28, 28})
	pool := func(op string, a ...any) []*tensor.Tensor {
		switch r := tensor.Call(op, a...).(type) {
		case []*tensor.Tensor:
			return r
		case *tensor.Tensor:
			return ts(r)
		}
		panic(op)
	}
	g14 := tensor.FromSlice(bigValues(4*75*14*14, 7)).Reshape([]int{4, 75, 14, 14})
	maxIdx := pool("aten::max_pool2d_with_indices.default", img, []int{3, 3}, []int{2, 2}, []int{1, 1})[1]
	cases := []struct {
		name string
		f    func() []*tensor.Tensor
	}{
		{"add", func() []*tensor.Tensor { return ts(x.Add(y)) }},
		{"add broadcast", func() []*tensor.Tensor { return ts(x.Add(row)) }},
		{"mul strided", func() []*tensor.Tensor { return ts(xt.Mul(x)) }},
		{"sub scalar", func() []*tensor.Tensor { return ts(x.SubScalar(1.5)) }},
		{"exp", func() []*tensor.Tensor { return ts(x.Exp()) }},
		{"tanh strided", func() []*tensor.Tensor { return ts(xt.Tanh()) }},
		{"sin float64", func() []*tensor.Tensor { return ts(x64.Sin()) }},
		{"cosh float32 (scalar map)", func() []*tensor.Tensor { return ts(x.Cosh()) }},
		{"add float32+float64 (generic)", func() []*tensor.Tensor { return ts(x.Add(x64)) }},
		{"int64 mul", func() []*tensor.Tensor { return ts(xi.Mul(xi)) }},
		{"gt", func() []*tensor.Tensor { return ts(x.Gt(y)) }},
		{"gt broadcast (pooled scratch)", func() []*tensor.Tensor { return ts(x.Gt(row)) }},
		{"add float16 broadcast (pooled scratch)", func() []*tensor.Tensor {
			return ts(x.To(tensor.Float16).Add(row.To(tensor.Float16)))
		}},
		{"where", func() []*tensor.Tensor { return ts(tensor.Where(x.Gt(y), x, xt)) }},
		{"to float16", func() []*tensor.Tensor { return ts(x.To(tensor.Float16)) }},
		{"to bfloat16 strided", func() []*tensor.Tensor { return ts(xt.To(tensor.BFloat16)) }},
		{"to int32", func() []*tensor.Tensor { return ts(x.To(tensor.Int32)) }},
		{"contiguous of transpose", func() []*tensor.Tensor { return ts(xt.Contiguous()) }},
		{"contiguous of permuted 3-d", func() []*tensor.Tensor {
			return ts(x.Reshape([]int{30, 10, cols}).Permute([]int{2, 0, 1}).Contiguous())
		}},
		{"sum rows", func() []*tensor.Tensor { return ts(x.Sum([]int{1})) }},
		{"sum all", func() []*tensor.Tensor { return ts(x.SumAll()) }},
		{"sum long", func() []*tensor.Tensor { return ts(long.SumAll()) }},
		{"amax rows", func() []*tensor.Tensor { return ts(x.Amax(tensor.WithDim([]int{1}))) }},
		{"argmax long", func() []*tensor.Tensor { return ts(long.Argmax()) }},
		{"softmax", func() []*tensor.Tensor { return ts(tensor.Call("aten::_softmax", x, 1, false).(*tensor.Tensor)) }},
		{"log_softmax", func() []*tensor.Tensor {
			return ts(tensor.Call("aten::_log_softmax", x, 1, false).(*tensor.Tensor))
		}},
		// Reductions over strided dims: walkRed shares the kept dims.
		{"sum dim 0", func() []*tensor.Tensor { return ts(x.Sum([]int{0})) }},
		{"sum of transpose rows", func() []*tensor.Tensor { return ts(xt.Sum([]int{1}, tensor.WithKeepdim(true))) }},
		{"sum middle dim", func() []*tensor.Tensor { return ts(x.Reshape([]int{30, 10, cols}).Sum([]int{1})) }},
		{"int64 sum dim 0", func() []*tensor.Tensor { return ts(xi.Sum([]int{0})) }},
		{"mean dim 0 float64", func() []*tensor.Tensor { return ts(x64.MeanDim([]int{0})) }},
		{"var dim 0", func() []*tensor.Tensor { return ts(x.VarDim([]int{0})) }},
		{"var of transpose rows", func() []*tensor.Tensor { return ts(xt.VarDim([]int{1})) }},
		{"prod dim 0", func() []*tensor.Tensor { return ts(x64.ProdDim(0)) }},
		{"amax dim 0", func() []*tensor.Tensor { return ts(x.Amax(tensor.WithDim([]int{0}))) }},
		{"max dim 0", func() []*tensor.Tensor { v, i := x.MaxDim(0); return ts(v, i) }},
		{"argmax of transpose rows", func() []*tensor.Tensor { return ts(xt.Argmax(tensor.WithDim(1))) }},
		{"any dim 0", func() []*tensor.Tensor { return ts(x.Gt(y).AnyDim(0)) }},
		{"cumsum dim 0", func() []*tensor.Tensor { return ts(x.Cumsum(0)) }},
		{"cumsum of transpose rows", func() []*tensor.Tensor { return ts(xt.Cumsum(1)) }},
		{"softmax dim 0", func() []*tensor.Tensor { return ts(tensor.Call("aten::_softmax", x, 0, false).(*tensor.Tensor)) }},
		{"log_softmax dim 0", func() []*tensor.Tensor {
			return ts(tensor.Call("aten::_log_softmax", x, 0, false).(*tensor.Tensor))
		}},
		// Pooling: planes shared among goroutines (poolParallel).
		{"adaptive_avg_pool2d global", func() []*tensor.Tensor {
			return pool("aten::_adaptive_avg_pool2d.default", img, []int{1, 1})
		}},
		{"adaptive_avg_pool2d 5x3", func() []*tensor.Tensor {
			return pool("aten::_adaptive_avg_pool2d.default", img, []int{5, 3})
		}},
		{"adaptive_avg_pool2d backward", func() []*tensor.Tensor {
			return pool("aten::_adaptive_avg_pool2d_backward.default", g14, img)
		}},
		{"avg_pool2d 3x3 stride 2", func() []*tensor.Tensor {
			return pool("aten::avg_pool2d.default", img, []int{3, 3}, []int{2, 2}, []int{1, 1})
		}},
		{"avg_pool2d backward", func() []*tensor.Tensor {
			return pool("aten::avg_pool2d_backward.default", g14, img, []int{3, 3}, []int{2, 2}, []int{1, 1}, false, true, nil)
		}},
		{"avg_pool3d", func() []*tensor.Tensor {
			return pool("aten::avg_pool3d.default", img.Reshape([]int{4, 75, 4, 7, 28}), []int{2, 2, 2})
		}},
		{"max_pool2d 3x3 stride 2", func() []*tensor.Tensor {
			return pool("aten::max_pool2d_with_indices.default", img, []int{3, 3}, []int{2, 2}, []int{1, 1})
		}},
		{"max_pool2d 2x2", func() []*tensor.Tensor {
			return pool("aten::max_pool2d_with_indices.default", img, []int{2, 2})
		}},
		{"max_pool3d", func() []*tensor.Tensor {
			return pool("aten::max_pool3d_with_indices.default", img.Reshape([]int{4, 75, 4, 7, 28}), []int{2, 2, 2})
		}},
		{"max_pool2d backward", func() []*tensor.Tensor {
			return pool("aten::max_pool2d_with_indices_backward.default", g14, img, []int{3, 3}, []int{2, 2}, []int{1, 1},
				[]int{1, 1}, false, maxIdx)
		}},
		{"layer_norm", func() []*tensor.Tensor {
			a, b, c := tensor.NativeLayerNorm(x, []int{cols}, row, row, 1e-5)
			return ts(a, b, c)
		}},
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, c := range cases {
		runtime.GOMAXPROCS(1)
		serial := c.f()
		runtime.GOMAXPROCS(4)
		par := c.f()
		for i := range serial {
			a, b := bitsOf(serial[i]), bitsOf(par[i])
			if len(a) != len(b) {
				t.Fatalf("%s: %d vs %d elements", c.name, len(a), len(b))
			}
			for j := range a {
				if a[j] != b[j] {
					t.Fatalf("%s: output %d element %d: serial %s, parallel %s", c.name, i, j,
						serial[i].Contiguous().Reshape([]int{-1}).Select(0, j), par[i].Contiguous().Reshape([]int{-1}).Select(0, j))
				}
			}
		}
	}
}

func ts(t ...*tensor.Tensor) []*tensor.Tensor { return t }

// bitsOf is t's elements as raw bytes per element, in row-major order.
func bitsOf(t *tensor.Tensor) []string {
	c := t.Contiguous()
	b := tensor.Elems[byte](c.Storage())
	sz := c.DType().ItemSize()
	off := c.StorageOffset() * sz
	out := make([]string, c.Numel())
	for i := range out {
		out[i] = fmt.Sprintf("%x", b[off+i*sz:off+(i+1)*sz])
	}
	return out
}

// TestLongRowReductions checks the pieces of a long row combine to the
// right answer: the sum against a float64 sum, max/argmax with the
// extreme (and a NaN) placed in later pieces, ties going to the first.
func TestLongRowReductions(t *testing.T) {
	n := 3*redChunk + 17
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i%1000) * 0.001
	}
	v[redChunk+5] = 7    // the max, in the second piece
	v[2*redChunk+9] = 7  // a tie, later
	v[3*redChunk+3] = -3 // the min, in the last (short) piece
	x := tensor.FromSlice(v)
	var want float64
	for _, e := range v {
		want += float64(e)
	}
	if got := x.SumAll().Float64s()[0]; math.Abs(got-want) > 1e-6*math.Abs(want) {
		t.Errorf("sum = %v, want %v", got, want)
	}
	if got := x.Argmax().Int64s()[0]; got != int64(redChunk+5) {
		t.Errorf("argmax = %d, want %d", got, redChunk+5)
	}
	if got := x.Max().Float64s()[0]; got != 7 {
		t.Errorf("max = %v, want 7", got)
	}
	if got := tensor.Call("aten::argmin", x).(*tensor.Tensor).Int64s()[0]; got != int64(3*redChunk+3) {
		t.Errorf("argmin = %d, want %d", got, 3*redChunk+3)
	}
	v[2*redChunk+100] = float32(math.NaN()) // the first NaN wins, in a later piece
	v[3*redChunk+1] = float32(math.NaN())
	x = tensor.FromSlice(v)
	if got := x.Argmax().Int64s()[0]; got != int64(2*redChunk+100) {
		t.Errorf("argmax with NaN = %d, want %d", got, 2*redChunk+100)
	}
	if got := x.Max().Float64s()[0]; !math.IsNaN(got) {
		t.Errorf("max with NaN = %v, want NaN", got)
	}
}

// TestSumColumns checks the column path of a float32 sum over leading dims
// (contiguous input) against walkRed's path on a strided view of the same
// values, which adds each column's elements in the same order: the same
// bits.
func TestSumColumns(t *testing.T) {
	for _, sh := range [][]int{{7, 5}, {300, 701}, {4, 3, 1, 9}, {2, 1, 3}} {
		n := 1
		for _, d := range sh {
			n *= d
		}
		last := len(sh) - 1
		wide := slices.Clone(sh)
		wide[last]++ // a padded last dim: the view of it is strided
		// ±2^70 at dim-0 indices 1 and sh[0]-2: they absorb the elements
		// between them and cancel, so the order of the sum shows in the bits.
		vals := bigValues(n/sh[last]*wide[last], 7)
		if slab := len(vals) / sh[0]; sh[0] >= 4 {
			for i := range slab {
				vals[slab+i], vals[(sh[0]-2)*slab+i] = 0x1p70, -0x1p70
			}
		}
		big := tensor.FromSlice(vals).Reshape(wide)
		view := big.Narrow(last, 0, sh[last])
		x := view.Contiguous()
		for _, dims := range [][]int{{0}, {0, 1}} {
			if dims[len(dims)-1] >= last {
				continue
			}
			got, want := bitsOf(x.Sum(dims)), bitsOf(view.Sum(dims))
			if !slices.Equal(got, want) {
				t.Errorf("shape %v sum over %v: column path %v, strided %v", sh, dims, got[:min(4, len(got))], want[:min(4, len(want))])
			}
		}
	}
}

// An op's error raised inside a pool worker (integer division by zero in
// a piece other than the first) reaches the caller as the op's error, not
// a crash of the process.
func TestWorkerErrorReachesCaller(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	n := 1 << 18 // split over the pool
	x, y := make([]int64, n), make([]int64, n)
	for i := range x {
		x[i], y[i] = int64(i), 1
	}
	y[n-3] = 0 // in the last piece, on a worker
	err := tensor.Try(func() {
		tensor.FromSlice(x).DivTensorMode(tensor.FromSlice(y), tensor.WithRoundingMode("floor"))
	})
	if err == nil || !strings.Contains(err.Error(), "ZeroDivisionError") {
		t.Fatalf("floor division by zero over %d elements: err %v, want ZeroDivisionError", n, err)
	}
	// It keeps the op's name and the caller's line across the goroutines.
	e, _ := tensor.AsError(err)
	if e.Op != "aten::div.Tensor_mode" || !strings.Contains(e.Where(), "parallel_test.go") {
		t.Errorf("worker error: op %q, where %q; want aten::div.Tensor_mode at parallel_test.go", e.Op, e.Where())
	}
}

// TestPoolParallelPieces: poolParallel visits every plane once, in pieces
// whose bounds other than n are multiples of align, with GOMAXPROCS 1, 2
// and 4, below and above the grain.
func TestPoolParallelPieces(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, procs := range []int{1, 2, 4} {
		runtime.GOMAXPROCS(procs)
		for _, c := range []struct{ n, cost, align int }{
			{1, 1 << 20, 1}, {7, 10, 1}, {2048, 196, 8}, {2048, 196, 1}, {803, 196, 8}, {512, 7056, 1}, {3, 1 << 16, 8},
		} {
			seen := make([]atomic.Int32, c.n)
			var bad atomic.Int32
			poolParallel(c.n, c.cost, c.align, func(lo, hi int) {
				if lo%c.align != 0 || (hi != c.n && hi%c.align != 0) || lo >= hi {
					bad.Store(1)
				}
				for p := lo; p < hi; p++ {
					seen[p].Add(1)
				}
			})
			if bad.Load() != 0 {
				t.Fatalf("GOMAXPROCS %d, %+v: a piece is empty or not aligned", procs, c)
			}
			for p := range seen {
				if n := seen[p].Load(); n != 1 {
					t.Fatalf("GOMAXPROCS %d, %+v: plane %d visited %d times", procs, c, p, n)
				}
			}
		}
	}
}

package cpu_test

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/goaten/goaten/aten/core"
	_ "github.com/goaten/goaten/device/cpu"
	"github.com/goaten/goaten/internal/golden"
	"github.com/goaten/goaten/tensor"
)

// ixMk builds a tensor of the given shape from values, zero-filled when no
// values are given.
func ixMk[T float32 | int64 | int32 | bool](shape []int, v []T) *tensor.Tensor {
	if len(v) == 0 {
		v = make([]T, tensor.Numel(shape))
	}
	return tensor.FromSlice(v, shape...)
}

func ixF32(shape []int, v ...float32) *tensor.Tensor { return ixMk(shape, v) }
func ixI64(shape []int, v ...int64) *tensor.Tensor   { return ixMk(shape, v) }
func ixI32(shape []int, v ...int32) *tensor.Tensor   { return ixMk(shape, v) }
func ixBools(shape []int, v ...bool) *tensor.Tensor  { return ixMk(shape, v) }
func ixShp(s ...int) []int                           { return s }

// ixArange makes a float32 tensor 0, 1, 2, ... of the given shape.
func ixArange(shape ...int) *tensor.Tensor {
	v := make([]float32, tensor.Numel(shape))
	for i := range v {
		v[i] = float32(i)
	}
	return tensor.FromSlice(v, shape...)
}

func TestIndexingBadInputs(t *testing.T) {
	x := ixArange(3, 4)
	cases := []struct {
		name string
		op   string
		args []any
		kw   map[string]any
		kind tensor.ErrorKind
		want string
	}{
		{"gather int32 index", "aten::gather", []any{x, 1, ixI32(ixShp(2, 2), 0, 1, 2, 3)}, nil,
			tensor.RuntimeError, "gather(): Expected dtype int64 for index"},
		{"gather rank mismatch", "aten::gather", []any{x, 1, ixI64(ixShp(2), 0, 1)}, nil,
			tensor.RuntimeError, "Index tensor must have the same number of dimensions as input tensor"},
		{"gather index too big", "aten::gather", []any{x, 1, ixI64(ixShp(4, 5))}, nil,
			tensor.RuntimeError, "Size does not match at dimension 0 expected index [4, 5] to be smaller than self [3, 4] apart from dimension 1"},
		{"gather out of range", "aten::gather", []any{x, 0, ixI64(ixShp(1, 1), 5)}, nil,
			tensor.RuntimeError, "index 5 is out of bounds for dimension 0 with size 3"},
		{"gather bad dim", "aten::gather", []any{x, 2, ixI64(ixShp(1, 1), 0)}, nil,
			tensor.IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"},
		{"scatter dtype", "aten::scatter.src", []any{x, 0, ixI64(ixShp(1, 1), 0), tensor.FromSlice([]float64{1}, 1, 1)}, nil,
			tensor.RuntimeError, "scatter(): Expected self.dtype to be equal to src.dtype"},
		{"scatter shape", "aten::scatter.src", []any{x, 1, ixI64(ixShp(1, 3), 0, 1, 2), ixF32(ixShp(1, 2), 1, 2)}, nil,
			tensor.RuntimeError, "Expected index [1, 3] to be smaller than self [3, 4] apart from dimension 1 and to be smaller size than src [1, 2]"},
		{"scatter src rank", "aten::scatter_add", []any{x, 0, ixI64(ixShp(1, 1), 0), ixArange(1, 1, 2)}, nil,
			tensor.RuntimeError, "Index tensor must have the same number of dimensions as src tensor"},
		{"scatter out of range", "aten::scatter.value", []any{x, 1, ixI64(ixShp(1, 1), -1), 2.0}, nil,
			tensor.RuntimeError, "index -1 is out of bounds for dimension 1 with size 4"},
		{"scatter value overflow", "aten::scatter.value", []any{tensor.FromSlice([]uint8{1, 2}), 0, ixI64(ixShp(1), 0), -2.5}, nil,
			tensor.RuntimeError, "value cannot be converted to type uint8_t without overflow"},
		{"scatter_reduce bad reduce", "aten::scatter_reduce.two", []any{x, 1, ixI64(ixShp(1, 1), 0), ixF32(ixShp(1, 1), 1), "max"}, nil,
			tensor.RuntimeError, "reduce argument must be either sum, prod, mean, amax or amin"},
		{"index float index", "aten::index.Tensor", []any{x, []*tensor.Tensor{ixF32(ixShp(1), 0)}}, nil,
			tensor.IndexError, "tensors used as indices must be long, byte or bool tensors"},
		{"index out of range", "aten::index.Tensor", []any{x, []*tensor.Tensor{ixI64(ixShp(2), 0, 5)}}, nil,
			tensor.IndexError, "index 5 is out of bounds for dimension 0 with size 3"},
		{"index negative out of range", "aten::index.Tensor", []any{x, []*tensor.Tensor{nil, ixI64(ixShp(1), -5)}}, nil,
			tensor.IndexError, "index -5 is out of bounds for dimension 0 with size 4"},
		{"index too many", "aten::index.Tensor", []any{ixArange(3), []*tensor.Tensor{ixI64(ixShp(1), 0), ixI64(ixShp(1), 0)}}, nil,
			tensor.IndexError, "too many indices for tensor of dimension 1 (got 2)"},
		{"index mask shape", "aten::index.Tensor", []any{x, []*tensor.Tensor{ixBools(ixShp(2), true, false)}}, nil,
			tensor.IndexError, "The shape of the mask [2] at index 0 does not match the shape of the indexed tensor [3, 4] at index 0"},
		{"index broadcast", "aten::index.Tensor", []any{x, []*tensor.Tensor{ixI64(ixShp(2), 0, 1), ixI64(ixShp(3), 0, 1, 2)}}, nil,
			tensor.IndexError, "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]"},
		{"index empty dim", "aten::index.Tensor", []any{ixArange(0, 4), []*tensor.Tensor{ixI64(ixShp(1), 0)}}, nil,
			tensor.IndexError, "index is out of bounds for dimension with size 0"},
		{"index 0-d mask only", "aten::index.Tensor", []any{x, []*tensor.Tensor{ixBools([]int{}, false)}}, nil,
			tensor.RuntimeError, "ntensor >= 3 INTERNAL ASSERT FAILED"},
		{"index None only", "aten::index.Tensor", []any{x, []*tensor.Tensor{nil}}, nil,
			tensor.RuntimeError, "ntensor >= 3 INTERNAL ASSERT FAILED"},
		{"index_put accumulate 0-d mask only", "aten::index_put", []any{x, []*tensor.Tensor{ixBools([]int{}, true)}, ixF32([]int{}, 1), true}, nil,
			tensor.RuntimeError, "ntensor >= 3 INTERNAL ASSERT FAILED"},
		{"index_put value shape", "aten::index_put", []any{x, []*tensor.Tensor{ixI64(ixShp(2), 0, 2)}, ixF32(ixShp(3), 1, 2, 3)}, nil,
			tensor.RuntimeError, "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of shape [2, 4]"},
		{"index_put dtype", "aten::index_put", []any{x, []*tensor.Tensor{ixI64(ixShp(2), 0, 2)}, tensor.FromSlice([]float64{1, 2, 3, 4}), true}, nil,
			tensor.RuntimeError, "Index put requires the source and destination dtypes match, got Float for the destination and Double for the source."},
		{"index_put mask count", "aten::index_put", []any{x, []*tensor.Tensor{ixBools(ixShp(3), true, false, true)}, ixArange(3, 4)}, nil,
			tensor.RuntimeError, "shape mismatch: value tensor of shape [3, 4] cannot be broadcast to indexing result of shape [2, 4]"},
		{"index_select matrix index", "aten::index_select", []any{x, 0, ixI64(ixShp(1, 2), 0, 1)}, nil,
			tensor.IndexError, "index_select(): Index is supposed to be a vector"},
		{"index_select int16 index", "aten::index_select", []any{x, 0, tensor.FromSlice([]int16{0})}, nil,
			tensor.RuntimeError, "index_select(): Expected dtype int32 or int64 for index"},
		{"index_select out of range", "aten::index_select", []any{x, 0, ixI64(ixShp(2), 0, 3)}, nil,
			tensor.IndexError, "index out of range in self"},
		{"masked_scatter too few", "aten::masked_scatter", []any{x, ixBools(ixShp(4), true, false, true, true), ixF32(ixShp(8))}, nil,
			tensor.RuntimeError, "Number of elements of source < number of ones in mask"},
		{"masked_scatter dtype", "aten::masked_scatter", []any{x, ixBools(ixShp(4), true, false, true, true), tensor.FromSlice([]float64{1})}, nil,
			tensor.RuntimeError, "masked_scatter: expected self and source to have same dtypes but gotFloat and Double"},
		{"masked_scatter int mask", "aten::masked_scatter", []any{ixArange(3), ixI64(ixShp(3), 1, 0, 2), ixArange(3)}, nil,
			tensor.RuntimeError, "Mask tensor can take 0 and 1 values only"},
		{"embedding 1-d weight", "aten::embedding", []any{ixArange(5), ixI64(ixShp(1), 0)}, nil,
			tensor.RuntimeError, "'weight' must be 2-D"},
		{"embedding float indices", "aten::embedding", []any{x, ixF32(ixShp(1), 0)}, nil,
			tensor.RuntimeError, "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got torch.FloatTensor instead (while checking arguments for embedding)"},
		{"embedding out of range", "aten::embedding", []any{x, ixI64(ixShp(2), 0, 3)}, nil,
			tensor.IndexError, "index out of range in self"},
		{"embedding_dense_backward shape", "aten::embedding_dense_backward", []any{ixArange(2, 3), ixI64(ixShp(3), 0, 1, 2), 5, -1, false}, nil,
			tensor.RuntimeError, "shape '[3, 3]' is invalid for input of size 6"},
		{"embedding_bag offsets[0]", "aten::_embedding_bag", []any{x, ixI64(ixShp(3), 0, 1, 2), ixI64(ixShp(2), 1, 2)}, nil,
			tensor.RuntimeError, "offsets[0] has to be 0"},
		{"embedding_bag offsets[-1]", "aten::_embedding_bag", []any{x, ixI64(ixShp(3), 0, 1, 2), ixI64(ixShp(2), 0, 9)}, nil,
			tensor.RuntimeError, "offsets[-1] can not be greater than input's length 3 but got offsets[-1] of 9"},
		{"embedding_bag offsets[-1] of a 2-d input", "aten::_embedding_bag", []any{x, ixI64(ixShp(1, 3), 0, 1, 2), ixI64(ixShp(2), 0, 2)}, nil,
			tensor.RuntimeError, "offsets[-1] can not be greater than input's length 1 but got offsets[-1] of 2"},
		{"embedding_bag psw mode", "aten::_embedding_bag", []any{x, ixI64(ixShp(2), 0, 1), ixI64(ixShp(1), 0), false, 1, false, ixF32(ixShp(2), 1, 1)}, nil,
			tensor.RuntimeError, "embedding_bag: per_sample_weights only supported with mode='sum'"},
		{"embedding_bag index", "aten::_embedding_bag", []any{x, ixI64(ixShp(2), 0, 9), ixI64(ixShp(1), 0)}, nil,
			tensor.RuntimeError, "Index 1 is out of bounds: 9, range 0 to 3"},
		{"embedding_bag weight dtype", "aten::_embedding_bag", []any{ixI64(ixShp(1, 1), 1), ixI64(ixShp(1), 0), ixI64(ixShp(1), 0)}, nil,
			tensor.RuntimeError, "'weight' to have one of the following scalar types: Half, Float, Double; but got torch.LongTensor"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := tensor.CallErr(c.op, c.args, c.kw)
			e, ok := tensor.AsError(err)
			if !ok {
				t.Fatalf("want a *tensor.Error containing %q, got %v", c.want, err)
			}
			if !strings.Contains(e.Msg, c.want) {
				t.Errorf("message %q does not contain %q", e.Msg, c.want)
			}
			if e.Kind != c.kind {
				t.Errorf("kind %s, want %s (%s)", e.Kind, c.kind, e.Msg)
			}
		})
	}
}

// TestIndexingDataDependentMeta checks that meta functions refuse ops whose
// output shape depends on data, and that the CPU kernels still run them.
func TestIndexingDataDependentMeta(t *testing.T) {
	x := ixF32(ixShp(2, 2), 0, 1, 2, 0)
	for _, c := range []struct {
		op   string
		args []any
	}{
		{"aten::nonzero", []any{x}},
		{"aten::index.Tensor", []any{x, []*tensor.Tensor{ixBools(ixShp(2), true, false)}}},
	} {
		op := tensor.MustOp(c.op)
		args := op.Bind(c.args, nil)
		err := tensor.Try(func() { core.RunMeta(op, args) })
		e, ok := tensor.AsError(err)
		if !ok || !strings.Contains(e.Msg, "depends on the input's data") {
			t.Errorf("%s meta: want a data-dependent shape error, got %v", c.op, err)
		}
		if _, err := tensor.CallErr(c.op, c.args, nil); err != nil {
			t.Errorf("%s on cpu: %v", c.op, err)
		}
	}
}

func TestIndexingValues(t *testing.T) {
	nan := float32(math.NaN())
	cases := []struct {
		name  string
		op    string
		args  []any
		kw    map[string]any
		shape []int
		want  []float64
	}{
		{"gather", "aten::gather", []any{ixArange(2, 3), 1, ixI64(ixShp(2, 2), 2, 0, 1, 1)}, nil,
			ixShp(2, 2), []float64{2, 0, 4, 4}},
		{"index None-separated goes to front", "aten::index.Tensor",
			[]any{ixArange(2, 3, 4), []*tensor.Tensor{ixI64(ixShp(2), 0, 1), nil, ixI64(ixShp(2), 3, 0)}}, nil,
			ixShp(2, 3), []float64{3, 7, 11, 12, 16, 20}},
		{"index adjacent stays in place", "aten::index.Tensor",
			[]any{ixArange(2, 3, 4), []*tensor.Tensor{nil, ixI64(ixShp(2), 2, -3), ixI64(ixShp(1), 1)}}, nil,
			ixShp(2, 2), []float64{9, 1, 21, 13}},
		{"index bool mask", "aten::index.Tensor",
			[]any{ixArange(3, 2), []*tensor.Tensor{ixBools(ixShp(3), true, false, true)}}, nil,
			ixShp(2, 2), []float64{0, 1, 4, 5}},
		{"index_put accumulate duplicates", "aten::index_put",
			[]any{ixF32(ixShp(3), 0, 0, 0), []*tensor.Tensor{ixI64(ixShp(3), 1, 1, -1)}, ixF32(ixShp(3), 1, 2, 4), true}, nil,
			ixShp(3), []float64{0, 3, 4}},
		{"index_put mask broadcast value", "aten::index_put",
			[]any{ixArange(2, 2), []*tensor.Tensor{ixBools(ixShp(2, 2), false, true, true, false)}, tensor.FromScalar(tensor.Float(9), tensor.Float32)}, nil,
			ixShp(2, 2), []float64{0, 9, 9, 3}},
		{"scatter_reduce amax without self", "aten::scatter_reduce.two",
			[]any{ixF32(ixShp(3), 5, 5, 5), 0, ixI64(ixShp(3), 0, 0, 2), ixF32(ixShp(3), 1, nan, 2), "amax"},
			map[string]any{"include_self": false}, ixShp(3), []float64{math.NaN(), 5, 2}},
		{"scatter_reduce integer mean floors", "aten::scatter_reduce.two",
			[]any{ixI64(ixShp(2), -7, 2), 0, ixI64(ixShp(1), 0), ixI64(ixShp(1), 0), "mean"}, nil,
			ixShp(2), []float64{-4, 2}},
		{"nonzero", "aten::nonzero", []any{ixF32(ixShp(2, 2), 0, nan, -0.0, 3)}, nil,
			ixShp(2, 2), []float64{0, 1, 1, 1}},
		{"masked_scatter broadcast", "aten::masked_scatter",
			[]any{ixF32(ixShp(2), 0, 0), ixBools(ixShp(2, 2), true, false, false, true), ixF32(ixShp(3), 7, 8, 9)}, nil,
			ixShp(2, 2), []float64{7, 0, 0, 8}},
		{"embedding", "aten::embedding", []any{ixArange(3, 2), ixI64(ixShp(2, 1), 2, 0)}, nil,
			ixShp(2, 1, 2), []float64{4, 5, 0, 1}},
		{"embedding_dense_backward scale and padding", "aten::embedding_dense_backward",
			[]any{ixF32(ixShp(3, 1), 1, 2, 4), ixI64(ixShp(3), 1, 1, 0), 3, 0, true}, nil,
			ixShp(3, 1), []float64{0, 1.5, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := tensor.CallErr(c.op, c.args, c.kw)
			if err != nil {
				t.Fatal(err)
			}
			got := res.(*tensor.Tensor)
			if !reflect.DeepEqual(got.Shape(), c.shape) {
				t.Fatalf("shape %v, want %v", got.Shape(), c.shape)
			}
			for i, v := range got.Float64s() {
				w := c.want[i]
				if v != w && !(math.IsNaN(v) && math.IsNaN(w)) {
					t.Fatalf("values %v, want %v", got.Float64s(), c.want)
				}
			}
		})
	}
}

func TestEmbeddingBagModes(t *testing.T) {
	w := ixF32(ixShp(3, 2), 1, -2, 4, 5, -7, 8)
	idx := ixI64(ixShp(4), 0, 2, 1, 2)
	offs := ixI64(ixShp(3), 0, 2, 2)
	want := map[int][][]float64{
		// output, offset2bag, bag_size, max_indices
		0: {{-6, 6, 0, 0, -3, 13}, {0, 0, 2, 2}, {0, 0, 0}, {0, 0, 0}},
		1: {{-3, 3, 0, 0, -1.5, 6.5}, {0, 0, 2, 2}, {2, 0, 2}, {2, 0, 2}},
		2: {{1, 8, 0, 0, 4, 8}, {0, 0, 2, 2}, {2, 0, 2}, {0, 2, 0, 0, 1, 2}},
	}
	for mode, exp := range want {
		// padding_idx 5 (out of range) forces the slow path, so offset2bag is filled.
		res, err := tensor.CallErr("aten::_embedding_bag", []any{w, idx, offs, false, mode, false, nil, false, 5}, nil)
		if err != nil {
			t.Fatal(err)
		}
		outs := res.([]*tensor.Tensor)
		for k, o := range outs {
			if !reflect.DeepEqual(o.Float64s(), exp[k]) {
				t.Errorf("mode %d output %d: %v, want %v", mode, k, o.Float64s(), exp[k])
			}
		}
	}
	// The fast sum path leaves offset2bag empty, as PyTorch's CPU kernel does.
	res := tensor.Call("aten::_embedding_bag", w, idx, offs).([]*tensor.Tensor)
	if res[1].Numel() != 0 {
		t.Errorf("fast path offset2bag has %d elements, want 0", res[1].Numel())
	}
}

// TestIndexingErrorRecords replays the golden error records of this family:
// every one must raise a *tensor.Error, never return or crash.
func TestIndexingErrorRecords(t *testing.T) {
	recs, err := golden.Load(filepath.Join("..", "..", "testdata", "golden", "errors.jsonl.gz"))
	if err != nil {
		t.Fatal(err) // the records are part of the repository
	}
	ops := map[string]bool{}
	for _, n := range []string{"gather.default", "scatter.src", "scatter.value", "scatter_add.default", "scatter_reduce.two",
		"index.Tensor", "index_put.default", "index_select.default", "masked_scatter.default", "nonzero.default",
		"embedding.default", "embedding_dense_backward.default", "_embedding_bag.default"} {
		ops["aten::"+n] = true
	}
	n := 0
	for _, r := range recs {
		if !ops[r.Op] {
			continue
		}
		n++
		op := tensor.MustOp(r.Op)
		args, kw, err := golden.Args(op, r, tensor.CPU)
		if err != nil {
			t.Fatalf("line %d: %v", r.Line, err)
		}
		_, err = tensor.CallErr(r.Op, args, kw)
		if _, ok := tensor.AsError(err); !ok {
			t.Errorf("%s line %d (%s): want an error like %q, got %v", r.Op, r.Line, r.Source, r.ErrorMessage, err)
		}
	}
	if n == 0 {
		t.Error("no error records found for the indexing family")
	}
}

// TestGatherScatterAddLastDim: gather and scatter_add along the last dim of
// contiguous float tensors (the row-by-row path), with an index smaller
// than self in the leading dims and repeated indices: gather equals the
// strided path's result for the same values (self as a transposed copy),
// scatter_add the additions in row-major order.
func TestGatherScatterAddLastDim(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	// lead: index's sizes before the last dim; {3, 5}, self's, takes the
	// path that copies self into the result row by row inside the kernel.
	for _, tc := range []struct {
		dt   tensor.DType
		lead [2]int
	}{{tensor.Float32, [2]int{2, 4}}, {tensor.Float64, [2]int{2, 4}}, {tensor.Float32, [2]int{3, 5}}, {tensor.Float64, [2]int{3, 5}}} {
		dt, l0, l1 := tc.dt, tc.lead[0], tc.lead[1]
		v := make([]float64, 3*5*7)
		for i := range v {
			v[i] = r.NormFloat64()
		}
		self := tensor.FromSlice(v, 3, 5, 7).To(dt)
		strided := self.Transpose(0, 1).Contiguous().Transpose(0, 1) // same values, not contiguous
		iv := make([]int64, l0*l1*9)
		for i := range iv {
			iv[i] = int64(r.IntN(7))
		}
		index := tensor.FromSlice(iv, l0, l1, 9)
		sv := make([]float64, len(iv))
		for i := range sv {
			sv[i] = r.NormFloat64()
		}
		src := tensor.FromSlice(sv, l0, l1, 9).To(dt)
		fast := tensor.Call("aten::gather.default", self, -1, index).(*tensor.Tensor).Float64s()
		slow := tensor.Call("aten::gather.default", strided, -1, index).(*tensor.Tensor).Float64s()
		if !slices.Equal(fast, slow) {
			t.Fatalf("%v %v gather: %v, strided path %v", dt, tc.lead, fast, slow)
		}
		// scatter_add: self's values, then each src element added at its
		// index in row-major order, in the dtype.
		want := self.Float64s()
		srcV := src.Float64s()
		for i, v := range iv {
			a, b := i/(9*l1), i/9%l1
			at := (a*5+b)*7 + int(v)
			if dt == tensor.Float32 {
				want[at] = float64(float32(want[at]) + float32(srcV[i]))
			} else {
				want[at] += srcV[i]
			}
		}
		got := tensor.Call("aten::scatter_add.default", self, 2, index, src).(*tensor.Tensor).Float64s()
		if !slices.Equal(got, want) {
			t.Fatalf("%v %v scatter_add: %v, want %v", dt, tc.lead, got, want)
		}
	}
	// An index out of range raises the generic path's error.
	_, err := tensor.CallErr("aten::gather.default", []any{tensor.FromSlice([]float32{1, 2}, 1, 2), 1, tensor.FromSlice([]int64{0, 2}, 1, 2)}, nil)
	if err == nil || !strings.Contains(err.Error(), "index 2 is out of bounds for dimension 1 with size 2") {
		t.Fatalf("err %v", err)
	}
	// The row path checks each index where it uses it, on several
	// goroutines: with bad indices in several rows of a walk split in
	// pieces, the error still names the first in order, for gather and
	// scatter_add, float32 and float64.
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		big := tensor.FromSlice(make([]float64, 512*256), 512, 256).To(dt)
		iv := make([]int64, 512*256)
		iv[500*256+3] = 999
		iv[300*256+7] = -2
		iv[400*256] = 256
		index := tensor.FromSlice(iv, 512, 256)
		for _, call := range []struct {
			op string
			a  []any
		}{
			{"aten::gather.default", []any{big, 1, index}},
			{"aten::scatter_add.default", []any{big, -1, index, big}},
		} {
			_, err := tensor.CallErr(call.op, call.a, nil)
			if err == nil || !strings.Contains(err.Error(), "index -2 is out of bounds for dimension 1 with size 256") {
				t.Fatalf("%v %s: err %v", dt, call.op, err)
			}
		}
	}
}

// TestEmbeddingRows: embedding's row copies (a contiguous weight) and its
// strided path give each index's row, for int64 and int32 indices of any
// shape, float32 and float64 weights, and an index out of range is
// PyTorch's IndexError.
func TestEmbeddingRows(t *testing.T) {
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		w := tensor.Randn([]int{7, 5}).To(dt)
		strided := w.T().Contiguous().T() // the same values, column-major
		idx := []int64{3, 0, 6, 6, 1, 2}
		for _, ix := range []*tensor.Tensor{ixI64([]int{2, 3}, idx...), ixI64([]int{6}, idx...).Narrow(0, 1, 4),
			ixI32([]int{3, 2}, 3, 0, 6, 6, 1, 2)} {
			for _, wt := range []*tensor.Tensor{w, strided} {
				got := tensor.Embedding(wt, ix)
				if want := append(slices.Clone(ix.Sizes()), 5); !slices.Equal(got.Sizes(), want) {
					t.Fatalf("sizes %v, want %v", got.Sizes(), want)
				}
				flat := ix.Contiguous().To(tensor.Int64).Int64s()
				g := got.To(tensor.Float64).Contiguous().Float64s()
				ws := w.To(tensor.Float64).Float64s()
				for i, v := range flat {
					if !slices.Equal(g[i*5:(i+1)*5], ws[v*5:(v+1)*5]) {
						t.Errorf("%v weight (contiguous %v), index %d: row %v, want row %d %v", dt, wt.IsContiguous(), i, g[i*5:(i+1)*5], v, ws[v*5:(v+1)*5])
					}
				}
			}
		}
		for _, bad := range []int64{7, -1} {
			err := tensor.Try(func() { tensor.Embedding(w, ixI64([]int{2}, 0, bad)) })
			if err == nil || !strings.Contains(err.Error(), "index out of range in self") {
				t.Errorf("index %d: err = %v", bad, err)
			}
		}
	}
}

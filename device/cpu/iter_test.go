package cpu

import (
	"testing"

	"github.com/goaten/goaten/tensor"
)

// collect lists every element offset the loop visits, per operand.
func collect(l *loop) [][]int {
	out := make([][]int, l.nargs)
	for l.next() {
		for k := 0; k < l.nargs; k++ {
			for i := 0; i < l.n; i++ {
				out[k] = append(out[k], l.offs[k]+i*l.inner[k])
			}
		}
	}
	return out
}

func TestLoopCoalescesContiguous(t *testing.T) {
	var l loop
	l.init([]int{2, 3, 4}, [][]int{{12, 4, 1}, {12, 4, 1}}, []int{0, 5})
	if l.rank != 1 || l.shape[0] != 24 {
		t.Fatalf("rank %d shape %v", l.rank, l.shape[:l.rank])
	}
	got := collect(&l)
	for i := 0; i < 24; i++ {
		if got[0][i] != i || got[1][i] != 5+i {
			t.Fatalf("offsets %v", got)
		}
	}
}

func TestLoopTransposedAndBroadcast(t *testing.T) {
	// out is 2x3 contiguous; a is its transpose-view (strides 1,2); b broadcasts a row.
	var l loop
	l.init([]int{2, 3}, [][]int{{3, 1}, {1, 2}, {0, 1}}, []int{0, 0, 10})
	got := collect(&l)
	wantA := []int{0, 2, 4, 1, 3, 5}
	wantB := []int{10, 11, 12, 10, 11, 12}
	for i := range wantA {
		if got[0][i] != i || got[1][i] != wantA[i] || got[2][i] != wantB[i] {
			t.Fatalf("got %v", got)
		}
	}
}

func TestLoopEmptyAndScalar(t *testing.T) {
	var l loop
	l.init([]int{3, 0, 2}, [][]int{{2, 2, 1}}, []int{0})
	if l.next() {
		t.Fatal("empty shape produced a run")
	}
	l.init(nil, [][]int{{}, {}}, []int{4, 7})
	got := collect(&l)
	if len(got[0]) != 1 || got[0][0] != 4 || got[1][0] != 7 {
		t.Fatalf("0-d: %v", got)
	}
	l.init([]int{1, 1, 5}, [][]int{{5, 5, 1}}, []int{0})
	if got := collect(&l); len(got[0]) != 5 {
		t.Fatalf("size-1 dims: %v", got)
	}
}

// TestPointwisePathsAgree runs one kernel through the float32 fast path, the
// float64 zero-copy path and the generic block path on strided, broadcast
// inputs longer than a block, and checks they agree.
func TestPointwisePathsAgree(t *testing.T) {
	n := 3*blockLen + 7
	a64 := tensor.Empty(tensor.Float64, 2, n)
	for i := 0; i < 2*n; i++ {
		tensor.Elems[float64](a64.Storage())[i] = float64(i%97) - 40.5
	}
	row := tensor.Empty(tensor.Float64, n)
	for i := 0; i < n; i++ {
		tensor.Elems[float64](row.Storage())[i] = float64(i%13) * 0.25
	}
	// A transposed view of a 2-column copy exercises strided runs.
	aT := tensor.NewMeta([]int{2, n}, []int{1, 2}, 0, tensor.Float64, tensor.CPU).WithRaw(tensor.Empty(tensor.Float64, 2*n).Storage())
	copyInto(aT, a64)
	f64 := func(d []float64, s [][]float64) {
		for i := range d {
			d[i] = s[0][i]*2 - s[1][i]
		}
	}
	f32 := func(d []float32, s [][]float32) {
		for i := range d {
			d[i] = s[0][i]*2 - s[1][i]
		}
	}
	ref := tensor.Empty(tensor.Float64, 2, n)
	pointwiseF64(ref, tensor.Invalid, []*tensor.Tensor{a64, row}, f64) // generic (ct Invalid)
	viaT := tensor.Empty(tensor.Float64, 2, n)
	pointwiseF64(viaT, tensor.Float64, []*tensor.Tensor{aT, row}, f64) // float64 typed, strided input
	out32 := tensor.Empty(tensor.Float32, 2, n)
	pointwiseFloat(out32, tensor.Float32, []*tensor.Tensor{toDType(aT, tensor.Float32), toDType(row, tensor.Float32)}, f64, f32)
	r, v, o := ref.Float64s(), viaT.Float64s(), out32.Float64s()
	for i := range r {
		if r[i] != v[i] || float64(float32(r[i])) != o[i] {
			t.Fatalf("element %d: generic %v, float64 path %v, float32 path %v", i, r[i], v[i], o[i])
		}
	}
}

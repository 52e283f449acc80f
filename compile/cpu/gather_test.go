package cpu

import (
	"slices"
	"testing"

	"github.com/goaten/goaten/tensor"
)

// TestGatherBroadcastRuns: a per-channel value broadcast over planes (runs
// of one value, filled by doubling copies) and a strided operand gather
// the elements a row-major walk of the space reads, from any start and
// for tile lengths that end inside a run.
func TestGatherBroadcastRuns(t *testing.T) {
	src := make([]float32, 64)
	for i := range src {
		src[i] = float32(i + 1)
	}
	for _, c := range []struct {
		space, sizes, strides []int
		at                    func(n, c, i int) int // the src index of space element (n, c, i)
	}{
		{[]int{3, 5, 37}, []int{5, 1}, []int{1, 0}, func(n, c, i int) int { return c }},
		{[]int{2, 4, 16}, []int{4, 1}, []int{1, 0}, func(n, c, i int) int { return c }},
		{[]int{2, 3, 1}, []int{3, 1}, []int{1, 0}, func(n, c, i int) int { return c }},
		{[]int{2, 3, 7}, []int{3, 7}, []int{1, 3}, func(n, c, i int) int { return c + 3*i }},
	} {
		g := newGather(c.space, c.sizes, c.strides)
		total := c.space[0] * c.space[1] * c.space[2]
		want := make([]float32, total)
		for k := range want {
			i := k % c.space[2]
			ch := k / c.space[2] % c.space[1]
			want[k] = src[c.at(k/(c.space[1]*c.space[2]), ch, i)]
		}
		for lo := 0; lo < total; lo += 5 {
			for _, n := range []int{1, 15, 16, 17, 40, total - lo} {
				if lo+n > total {
					continue
				}
				dst := make([]float32, n)
				gatherInto(&g, dst, src, 0, lo)
				for j, v := range dst {
					if v != want[lo+j] {
						t.Fatalf("space %v, lo %d, n %d: element %d = %v, want %v", c.space, lo, n, j, v, want[lo+j])
					}
				}
			}
		}
	}
}

// TestViewStepChecksLayout: a view step makes its view only of an input
// laid out as planned (sizes, strides, offset, dtype, a CPU storage) and
// otherwise leaves the call to the dispatcher.
func TestViewStepChecksLayout(t *testing.T) {
	x := tensor.Randn([]int{4, 6})
	v := &viewStep{in: 0, at: geomOf(x), dtype: tensor.Float32,
		outs: []geom{{sizes: []int{6, 4}, strides: []int{1, 6}, offset: 0}}}
	r, ok := v.run([]any{x}, nil, nil)
	if !ok {
		t.Fatal("the planned layout was not viewed")
	}
	y := r.(*tensor.Tensor)
	if y.Storage() != x.Storage() || !slices.Equal(y.Sizes(), []int{6, 4}) || !slices.Equal(y.Strides(), []int{1, 6}) {
		t.Fatalf("view %v %v", y.Sizes(), y.Strides())
	}
	x.AddScalar_(1)
	if y.Version() != x.Version() {
		t.Errorf("the view does not share its base's version counter: %d vs %d", y.Version(), x.Version())
	}
	past := *v
	past.need = 4 * 25 // as_strided past the end of x's 24 elements: the dispatcher raises
	if _, ok := past.run([]any{x}, nil, nil); ok {
		t.Errorf("viewed past the end of the storage")
	}
	for name, other := range map[string]any{
		"transposed":   x.T(),
		"offset":       tensor.Randn([]int{30}).Slice(tensor.WithStart(6)).View([]int{4, 6}),
		"float64":      x.To(tensor.Float64),
		"meta":         tensor.NewMeta([]int{4, 6}, []int{6, 1}, 0, tensor.Float32, tensor.Meta),
		"not a tensor": 3,
	} {
		if _, ok := v.run([]any{other}, nil, nil); ok {
			t.Errorf("%s: viewed an input not laid out as planned", name)
		}
	}
}

package cpu_test

import (
	"strings"
	"testing"

	"github.com/goaten/goaten/tensor"
)

// Views never reach past their storage: as_strided checks the extent
// against the storage, expand only repeats existing elements, and resize_
// grows the storage that every view shares.
func TestViewsStayInsideStorage(t *testing.T) {
	base := tensor.FromSlice([]float32{0, 1, 2, 3, 4, 5})
	bad := []struct {
		args []any
		want string
	}{
		{[]any{base, []int{7}, []int{1}}, "out of bounds for storage of size"},
		{[]any{base, []int{3}, []int{3}}, "out of bounds for storage of size"},
		{[]any{base, []int{2, 2}, []int{1, 1}, 5}, "out of bounds for storage of size"},
		{[]any{base, []int{2}, []int{-1}}, "Negative strides are not supported"},
		{[]any{base, []int{2}, []int{1}, -1}, "Tensor: invalid storage offset -1"},
		{[]any{base, []int{-2}, []int{1}}, "Storage size calculation overflowed"},
	}
	for _, c := range bad {
		_, err := tensor.CallErr("aten::as_strided", c.args, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("as_strided%v: err %v, want %q", c.args[1:], err, c.want)
		}
	}
	// A view of a view is checked against the shared storage, not the view.
	tail := base.Slice(tensor.WithStart(4)) // elements 4, 5
	if _, err := tensor.CallErr("aten::as_strided", []any{tail, []int{6}, []int{1}, 0}, nil); err != nil {
		t.Errorf("as_strided over the whole storage from a view: %v", err)
	}
	if _, err := tensor.CallErr("aten::as_strided", []any{tail, []int{3}, []int{1}, 4}, nil); err == nil {
		t.Error("as_strided past the storage from a view was accepted")
	}

	// expand: only size-1 dims grow, and the values repeat.
	col := tensor.FromSlice([]float32{7, 8}, 2, 1)
	e := col.Expand([]int{2, 1000})
	if e.Strides()[1] != 0 || e.At(1, 999).Float64() != 8 {
		t.Errorf("expand: strides %v value %v", e.Strides(), e.At(1, 999))
	}
	if _, err := tensor.CallErr("aten::expand", []any{col, []int{3, 4}}, nil); err == nil {
		t.Error("expand of a size-2 dim to 3 was accepted")
	}

	// resize_ grows the shared storage; a view made before sees the same data.
	x := tensor.FromSlice([]float32{1, 2, 3, 4})
	v := x.Slice(tensor.WithStart(1))
	x.Resize_([]int{4, 4})
	if x.Storage().NBytes() < 16*4 || x.Storage() != v.Storage() {
		t.Fatalf("resize_ did not grow the shared storage: %d bytes", x.Storage().NBytes())
	}
	x.Fill_(9)
	if v.At(2).Float64() != 9 {
		t.Errorf("view after resize_ does not see writes: %v", v.At(2))
	}
	if _, err := tensor.CallErr("aten::resize_", []any{x, []int{-1}}, nil); err == nil {
		t.Error("resize_ to a negative size was accepted")
	}
	// A huge resize is refused with an error rather than attempted.
	old := tensor.MaxElements
	tensor.MaxElements = 1 << 20
	defer func() { tensor.MaxElements = old }()
	if _, err := tensor.CallErr("aten::resize_", []any{x, []int{1 << 30}}, nil); err == nil {
		t.Error("resize_ to 2^30 elements under a 2^20 cap was accepted")
	}
}

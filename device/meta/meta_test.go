package meta_test

import (
	"strings"
	"testing"

	_ "github.com/goaten/goaten"
	"github.com/goaten/goaten/tensor"
)

func errOf(f func()) string {
	if err := tensor.Try(f); err != nil {
		return err.Error()
	}
	return ""
}

func TestShapesAndDTypes(t *testing.T) {
	a := tensor.Empty(tensor.Float32, 2, 3).ToDevice(tensor.Meta)
	b := tensor.Empty(tensor.Int64, 3).ToDevice(tensor.Meta)
	c := a.Add(b)
	if c.Device() != tensor.Meta || c.DType() != tensor.Float32 || tensor.ShapeString(c.Sizes()) != "[2, 3]" {
		t.Errorf("a + b: %s %s %v", c.Device(), c.DType(), c.Sizes())
	}
	m := a.Mm(tensor.Empty(tensor.Float32, 3, 5).ToDevice(tensor.Meta))
	if tensor.ShapeString(m.Sizes()) != "[2, 5]" {
		t.Errorf("mm: %v", m.Sizes())
	}
	if got := m.String(); got != "tensor(..., device='meta', size=(2, 5))" {
		t.Errorf("printed as %s", got)
	}
	// Non-core ops decompose on meta too.
	s := tensor.Empty(tensor.Float32, 4, 6).ToDevice(tensor.Meta).Softmax(1)
	if tensor.ShapeString(s.Sizes()) != "[4, 6]" {
		t.Errorf("softmax: %v", s.Sizes())
	}
}

func TestViewsAndInplace(t *testing.T) {
	a := tensor.Empty(tensor.Float32, 2, 3).ToDevice(tensor.Meta)
	v := a.Permute([]int{1, 0})
	if tensor.ShapeString(v.Strides()) != "[1, 3]" || v.Raw() != a.Raw() {
		t.Errorf("permute: strides %v, shares storage %v", v.Strides(), v.Raw() == a.Raw())
	}
	before := a.Version()
	r := v.MulScalar_(2)
	if r != v || a.Version() != before+1 {
		t.Errorf("in-place: returns self %v, base version %d -> %d", r == v, before, a.Version())
	}
	sl := a.Select(0, 1)
	if sl.StorageOffset() != 3 {
		t.Errorf("select offset %d", sl.StorageOffset())
	}
	a.Resize_([]int{4, 4})
	if tensor.ShapeString(a.Sizes()) != "[4, 4]" {
		t.Errorf("resize_: %v", a.Sizes())
	}
}

func TestDataDependent(t *testing.T) {
	a := tensor.Empty(tensor.Float32, 2, 3).ToDevice(tensor.Meta)
	for _, c := range []struct {
		f    func()
		want string
	}{
		{func() { a.Sum(nil).Item() }, "Cannot copy out of meta tensor; no data!"},
		{func() { tensor.Call("aten::_local_scalar_dense", a.Sum(nil)) }, "Tensor.item() cannot be called on meta tensors"},
		{func() { a.Nonzero() }, `aten::nonzero has no lowering on device "meta"`},
		{func() {
			tensor.Call("aten::index.Tensor", a, []any{a.Gt(tensor.Empty(tensor.Float32).ToDevice(tensor.Meta))})
		}, "the output shape depends on the input's data"},
		{func() { a.AsStrided([]int{10}, []int{1}) }, "out of bounds for storage of size 24"},
		{func() { a.Mm(a) }, "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"},
	} {
		if got := errOf(c.f); !strings.Contains(got, c.want) {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

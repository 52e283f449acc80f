package device_test

import (
	"slices"
	"strings"
	"testing"

	_ "github.com/goaten/goaten"
	"github.com/goaten/goaten/device"
	"github.com/goaten/goaten/tensor"
)

// tiny is a test device: raw data is a []float64 of the values in row-major
// order, a handful of lowerings, float32/float64/int64/bool only.
var tiny = device.Register(device.Backend{
	Name:    "tiny",
	FromCPU: func(t *tensor.Tensor) any { return t.Float64s() },
	ToCPU: func(raw any, t *tensor.Tensor) *tensor.Tensor {
		return tensor.FromSlice(raw.([]float64), append([]int{}, t.Sizes()...)...).To(t.DType())
	},
	Lowerings: map[string]device.Lowering{
		"aten::add.Tensor":          binary(func(a, b float64) float64 { return a + b }),
		"aten::mul.Tensor":          binary(func(a, b float64) float64 { return a * b }),
		"aten::neg.default":         func(c *device.Call) any { return c.Raw(0) }, // wrong on purpose
		"aten::as_strided.default":  asStrided,
		"aten::silu.default":        func(c *device.Call) any { return scale(c.Raw(0).([]float64), 100) },
		"aten::sum.dim_IntList":     sumAll,
		"aten::_local_scalar_dense": func(c *device.Call) any { return tensor.Float(c.Raw(0).([]float64)[0]) },
	},
	DTypes: []tensor.DType{tensor.Float32, tensor.Float64, tensor.Int64, tensor.Bool},
})

func scale(v []float64, k float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x * k
	}
	return out
}

// binary handles same-shape operands and 0-d ones.
func binary(f func(a, b float64) float64) device.Lowering {
	return func(c *device.Call) any {
		a, b := c.Raw(0).([]float64), c.Raw(1).([]float64)
		out := make([]float64, c.Out[0].Numel())
		for i := range out {
			out[i] = f(a[i%len(a)], b[i%len(b)])
		}
		return out
	}
}

func asStrided(c *device.Call) any {
	x := c.Raw(0).([]float64)
	sizes, strides, off := c.Ints(1), c.Ints(2), c.Int(3, 0)
	out := make([]float64, tensor.Numel(sizes))
	idx := make([]int, len(sizes))
	for k := range out {
		p := off
		for d, i := range idx {
			p += i * strides[d]
		}
		out[k] = x[p]
		for d := len(sizes) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < sizes[d] {
				break
			}
			idx[d] = 0
		}
	}
	return out
}

func sumAll(c *device.Call) any {
	s := 0.0
	for _, x := range c.Raw(0).([]float64) {
		s += x
	}
	return []float64{s}
}

func on(vals ...float32) *tensor.Tensor { return tensor.FromSlice(vals).ToDevice(tiny) }

func errOf(f func()) string {
	if err := tensor.Try(f); err != nil {
		return err.Error()
	}
	return ""
}

func TestRoundTrip(t *testing.T) {
	x := on(1, 2, 3)
	if x.Device() != tiny || x.DType() != tensor.Float32 || !x.Keys.Has(tensor.KeyFunctionalize) {
		t.Fatalf("moved tensor: device %s dtype %s keys %b", x.Device(), x.DType(), x.Keys)
	}
	back := x.ToDevice(tensor.CPU)
	if back.Device() != tensor.CPU || back.Float64s()[2] != 3 {
		t.Errorf("back on the CPU: %v", back)
	}
	if got := x.String(); got != "tensor([1., 2., 3.], device='tiny')" {
		t.Errorf("printed as %s", got)
	}
	if !device.Registered(tiny) || device.Registered(tensor.CPU) {
		t.Error("Registered")
	}
	if !device.SupportsDType(tiny, tensor.Int64) || device.SupportsDType(tiny, tensor.Float16) {
		t.Error("SupportsDType")
	}
}

func TestLowering(t *testing.T) {
	x, y := on(1, 2, 3), on(10, 20, 30)
	if got := x.Add(y).Float64s(); got[0] != 11 || got[2] != 33 {
		t.Errorf("add: %v", got)
	}
	// A 0-d CPU tensor and a Go number act as scalars.
	if got := x.Mul(tensor.FromSlice([]float32{2}, []int{}...)).Float64s(); got[1] != 4 {
		t.Errorf("mul by a 0-d CPU tensor: %v", got)
	}
	if got := tensor.Call("aten::add.Tensor", x, 1.0).(*tensor.Tensor).Float64s(); got[0] != 2 {
		t.Errorf("add a number: %v", got)
	}
	if got := x.Sum(nil).Item().Float64(); got != 6 {
		t.Errorf("sum: %v", got)
	}
}

func TestErrors(t *testing.T) {
	x := on(1, 2, 3)
	for _, c := range []struct {
		f    func()
		want string
	}{
		{func() { x.Exp() }, `aten::exp has no lowering on device "tiny" and no decomposition`},
		{func() { x.Add(tensor.FromSlice([]float32{1, 2, 3})) }, "Expected all tensors to be on the same device, but found at least two devices, tiny and cpu!"},
		{func() { tensor.Empty(tensor.Float16, 2).ToDevice(tiny) }, `device "tiny" does not support dtype float16`},
		{func() { x.To(tensor.Int32) }, `device "tiny" does not support dtype int32`},
		{func() { x.Add(on(1, 2)) }, "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"},
	} {
		if got := errOf(c.f); !strings.Contains(got, c.want) {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

// TestConstructor: full has no lowering on tiny: it runs on the CPU and moves.
func TestConstructor(t *testing.T) {
	f := tensor.CallKw("aten::full", []any{[]int{2, 2}, 3.5}, map[string]any{"device": tiny}).(*tensor.Tensor)
	if f.Device() != tiny || f.Float64s()[3] != 3.5 || f.DType() != tensor.Float32 {
		t.Errorf("full on tiny: %v", f)
	}
}

// TestDerivedViews: tiny lowers as_strided only; every other view op that
// reaches it runs through as_strided, with PyTorch's metadata. (Package
// functional computes the views of its wrappers itself, so the backend
// kernels are called directly here, as functional's own callers would.)
func TestDerivedViews(t *testing.T) {
	x := tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	d := tensor.DeviceHooksOf(tiny).FromCPU(x)
	run := func(name string, args ...any) *tensor.Tensor {
		op := tensor.MustOp(name)
		return op.RunBackend(tiny, op.Bind(args, nil)).(*tensor.Tensor)
	}
	vals := func(t *tensor.Tensor) []float64 { return t.Raw().([]float64) }
	p := run("aten::permute", d, []int{1, 0})
	if !slices.Equal(p.Strides(), []int{1, 3}) || !slices.Equal(vals(p), []float64{1, 4, 2, 5, 3, 6}) {
		t.Errorf("permute: strides %v values %v", p.Strides(), vals(p))
	}
	s := run("aten::select.int", d, 1, 2)
	if !slices.Equal(vals(s), []float64{3, 6}) || s.StorageOffset() != 2 {
		t.Errorf("select: %v offset %d", vals(s), s.StorageOffset())
	}
	e := run("aten::expand", run("aten::select.int", d, 0, 1), []int{2, 3})
	if !slices.Equal(vals(e), []float64{4, 5, 6, 4, 5, 6}) || !slices.Equal(e.Strides(), []int{0, 1}) {
		t.Errorf("expand: %v strides %v", vals(e), e.Strides())
	}
	// as_strided addresses the storage: on a transposed input it maps the
	// storage positions back to the input's values.
	a := run("aten::as_strided", p, []int{3}, []int{1}, 3)
	if !slices.Equal(vals(a), []float64{4, 5, 6}) {
		t.Errorf("as_strided over a permuted input: %v", vals(a))
	}
	if err := errOf(func() { run("aten::as_strided", s, []int{3}, []int{1}, 0) }); !strings.Contains(err, "has no native views") {
		t.Errorf("as_strided outside the input: %q", err)
	}
}

// TestExtraLowering: a lowering of a non-core op wins over its
// decomposition; its output metadata comes from the decomposition on meta.
func TestExtraLowering(t *testing.T) {
	got := on(1, 2).Silu()
	if !slices.Equal(got.Float64s(), []float64{100, 200}) || !slices.Equal(got.Sizes(), []int{2}) {
		t.Errorf("silu on tiny: %v", got)
	}
}

func TestDebug(t *testing.T) {
	var trace strings.Builder
	d := device.Debug(tiny, device.DebugOptions{Trace: &trace, CompareWithCPU: true})
	x := on(1, 2, 3)
	x.Add(x)
	x.Neg()
	d.Close()
	x.Neg() // not traced
	m := d.First()
	if m == nil || m.Op != "aten::neg" || !strings.Contains(m.Detail, "element 0 (of 3) is 1, the CPU gave -1") {
		t.Fatalf("first mismatch: %v", m)
	}
	if len(d.Mismatches()) != 1 || d.Ops() != 2 {
		t.Errorf("%d mismatches in %d ops", len(d.Mismatches()), d.Ops())
	}
	out := trace.String()
	for _, want := range []string{
		"[tiny] aten::add.Tensor(f32[3], f32[3]) -> f32[3]",
		"[tiny] aten::neg(f32[3]) -> f32[3]",
		"MISMATCH device tiny: aten::neg(f32[3]): out differs from the CPU",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("trace lacks %q:\n%s", want, out)
		}
	}
}

func TestRegisterChecks(t *testing.T) {
	for _, c := range []struct {
		b    device.Backend
		want string
	}{
		{device.Backend{Name: "tiny", FromCPU: func(*tensor.Tensor) any { return nil }}, "registered twice"},
		{device.Backend{Name: "x1"}, "has no FromCPU"},
		{device.Backend{Name: "x2", FromCPU: func(*tensor.Tensor) any { return nil },
			Lowerings: map[string]device.Lowering{"aten::nope": nil}}, "unknown op"},
		{device.Backend{Name: "x3", FromCPU: func(*tensor.Tensor) any { return nil },
			Lowerings: map[string]device.Lowering{"aten::add_.Tensor": binary(nil)}}, "does not set Inplace"},
		{device.Backend{Name: "x4", FromCPU: func(*tensor.Tensor) any { return nil }, NativeViews: true,
			Lowerings: map[string]device.Lowering{"aten::permute": asStrided}}, "runs the view op"},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), c.want) {
					t.Errorf("Register(%s): got %v, want %q", c.b.Name, r, c.want)
				}
			}()
			device.Register(c.b)
		}()
	}
}

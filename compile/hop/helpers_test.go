package hop_test

import (
	"strings"
	"testing"

	_ "github.com/goaten/goaten"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/examples/newdevice"
	"github.com/goaten/goaten/tensor"
)

type T = tensor.Tensor

// num is a Python number given where an op takes a Tensor (x * 2 in Python
// calls mul.Tensor with a wrapped number).
func num(v any) *T { s, _ := tensor.ToScalar(v); return tensor.WrappedNumber(s) }

func ts(xs ...*T) []*T { return xs }

// code is gm.code.strip() of the module or of its sub-module at path
// ("while_loop_body_graph_0.while_loop_cond_graph_0").
func code(t *testing.T, gm *fx.GraphModule, path string) string {
	t.Helper()
	if path != "" {
		v, ok := gm.Attr(path)
		sub, isGM := v.(*fx.GraphModule)
		if !ok || !isGM {
			t.Fatalf("no sub-GraphModule %q (attributes %v)", path, gm.AttrNames())
		}
		gm = sub
	}
	return strings.TrimSpace(gm.Code())
}

func expectCode(t *testing.T, gm *fx.GraphModule, path, want string) {
	t.Helper()
	if got := code(t, gm, path); got != strings.TrimSpace(want) {
		t.Errorf("%s: got\n%s\nwant\n%s", path, got, strings.TrimSpace(want))
	}
}

func trace(t *testing.T, fn any, inputs []*T, mode compile.Mode, names ...string) *fx.GraphModule {
	t.Helper()
	gm, err := compile.Trace(fn, inputs, compile.TraceOptions{Mode: mode, ArgNames: names})
	if err != nil {
		t.Fatal(err)
	}
	return gm
}

// modes are both trace modes.
var modes = []compile.Mode{compile.Real, compile.Fake}

// devices are the CPU and the gonum example device.
var devices = []tensor.Device{tensor.CPU, newdevice.Device}

func on(d tensor.Device, xs ...*T) []*T {
	out := make([]*T, len(xs))
	for i, x := range xs {
		out[i] = x.ToDevice(d)
	}
	return out
}

// close reports whether a and b (any devices) hold the same values within
// 1e-5 (1e-9 for float64).
func close(a, b *T) bool {
	a, b = a.ToDevice(tensor.CPU), b.ToDevice(tensor.CPU)
	if a.DType() != b.DType() {
		return false
	}
	tol := 1e-5
	if a.DType() == tensor.Float64 {
		tol = 1e-9
	}
	if !a.DType().IsFloat() {
		a, b = a.To(tensor.Float64), b.To(tensor.Float64)
	}
	return tensor.AllClose(a, b, tol, tol)
}

func expectClose(t *testing.T, what string, got, want []*T) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d results, want %d", what, len(got), len(want))
	}
	for i := range got {
		if (got[i] == nil) != (want[i] == nil) {
			t.Errorf("%s[%d]: got %v, want %v", what, i, got[i], want[i])
			continue
		}
		if got[i] != nil && !close(got[i], want[i]) {
			t.Errorf("%s[%d]: got\n%v\nwant\n%v", what, i, got[i].ToDevice(tensor.CPU), want[i].ToDevice(tensor.CPU))
		}
	}
}

// results lists a compiled call's results.
func results(v any) []*T {
	switch x := v.(type) {
	case *T:
		return []*T{x}
	case []*T:
		return x
	case []any:
		var out []*T
		for _, e := range x {
			out = append(out, results(e)...)
		}
		return out
	case fx.Tuple:
		return results([]any(x))
	}
	return nil
}

func expectPanic(t *testing.T, want string, f func()) {
	t.Helper()
	err := tensor.Try(f)
	if err == nil {
		t.Fatalf("no error; want %q", want)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error\n%v\nwant it to contain\n%s", err, want)
	}
}

// boolT is a 0-d bool tensor.
func boolT(v bool) *T { return tensor.FromSlice([]bool{v}).Reshape([]int{}) }

package cpu_test

import (
	"reflect"
	"testing"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/cpu"
	"github.com/goaten/goaten/tensor"
)

// codeOf is the code a Runnable runs (a method value's wrapper is the same
// for every receiver).
func codeOf(r compile.Runnable) uintptr { return reflect.ValueOf(r).Pointer() }

// TestDefaultBackend: compile.Compile's default backend is this package's
// for graphs of CPU tensors (it registers itself) and Eager for others.
func TestDefaultBackend(t *testing.T) {
	f := func(x *tensor.Tensor) *tensor.Tensor { return x.MulScalar(2).AddScalar(1).Sigmoid().Mul(x) }
	x := randn(true, 64, 1024)
	gm, err := compile.Trace(f, []*tensor.Tensor{x})
	if err != nil {
		t.Fatal(err)
	}
	def, err := compile.DefaultBackend(gm, []*tensor.Tensor{x})
	if err != nil {
		t.Fatal(err)
	}
	fused, _ := cpu.Backend(gm, []*tensor.Tensor{x})
	eager, _ := compile.Eager(gm, []*tensor.Tensor{x})
	if codeOf(def) != codeOf(fused) || codeOf(def) == codeOf(eager) {
		t.Errorf("DefaultBackend on CPU inputs: not the cpu backend's Runnable")
	}
	meta := tensor.EmptyOf([]int{64, 1024}, tensor.WithDevice(tensor.Meta))
	defMeta, err := compile.DefaultBackend(gm, []*tensor.Tensor{meta})
	if err != nil {
		t.Fatal(err)
	}
	if codeOf(defMeta) != codeOf(eager) {
		t.Errorf("DefaultBackend on meta inputs: not Eager's Runnable")
	}
	compile.RegisterCPUBackend(nil)
	noCPU, _ := compile.DefaultBackend(gm, []*tensor.Tensor{x})
	compile.RegisterCPUBackend(cpu.Backend)
	if codeOf(noCPU) != codeOf(eager) {
		t.Errorf("DefaultBackend with no CPU backend registered: not Eager's Runnable")
	}

	// Through Compile: the default's warm call allocates only its result,
	// Eager's one tensor per op; both give the same bits.
	cd := compile.Compile(f, compile.Options{Fullgraph: true})
	ce := compile.Compile(f, compile.Options{Fullgraph: true, Backend: compile.Eager})
	var rd, re any
	call := func(c *compile.Compiled, r *any) func() {
		return func() {
			var err error
			if *r, err = c.Call(x); err != nil {
				t.Fatal(err)
			}
		}
	}
	ad := testing.AllocsPerRun(5, call(cd, &rd))
	ae := testing.AllocsPerRun(5, call(ce, &re))
	if ad >= ae {
		t.Errorf("allocations per warm call: default %v, Eager %v: the default is not the fused backend", ad, ae)
	}
	if err := sameBits(rd.(*tensor.Tensor), re.(*tensor.Tensor)); err != nil {
		t.Errorf("default vs Eager: %v", err)
	}
}

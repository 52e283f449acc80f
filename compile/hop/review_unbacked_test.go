package hop_test

import (
	"testing"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// Unbacked symbols are numbered per segment in segment mode: a function
// that runs more int-carry loops than there are symbols (each makes two),
// with a data read between them (each loop in a segment of its own),
// compiles, and every call equals eager's.
func TestUnbackedPerSegment(t *testing.T) {
	f := func(x *T) *T {
		for range compile.UnbackedSymbols() {
			x = countLoop(x).(fx.Tuple)[1].(*T)
			if x.SumAll().Item().Float64() > 1e30 {
				x = x.Neg()
			}
			x = x.MulScalar(0.125)
		}
		return x
	}
	x := tensor.FromSlice([]float32{1, 2})
	want := f(x)
	c := compile.Compile(f, compile.Options{Logf: func(string, ...any) {}})
	for i := range 3 {
		got, err := c.Call(x)
		if err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		expectClose(t, "segments", results(got), ts(want))
	}
	if s := c.Stats(); s.Segments == 0 {
		t.Errorf("stats %+v: want segments", s)
	}
}

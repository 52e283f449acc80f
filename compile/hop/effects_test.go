package hop_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/compile/hop"
	"github.com/goaten/goaten/tensor"
)

// S9 (test_print): _print("moo"); x + x; _print("moo").
func printProgram(x *T) *T {
	hop.Print("moo")
	res := x.Add(x)
	hop.Print("moo")
	return res
}

func TestEffectsPrintEager(t *testing.T) {
	var buf bytes.Buffer
	defer hop.SetPrintWriter(&buf)()
	x := tensor.Randn([]int{3})
	expectClose(t, "eager", ts(printProgram(x)), ts(x.Add(x)))
	if buf.String() != "moo\nmoo\n" {
		t.Errorf("printed %q", buf.String())
	}
	if e, ok := hop.Effect(hop.PrintOp); !ok || e != hop.EffectOrdered {
		t.Errorf("Effect(_print) = %v %v", e, ok)
	}
}

// S9's aot_export graph: the token is the first input and the first output,
// each _print is a with_effects node.
func TestEffectsPrintGraphS9(t *testing.T) {
	var buf bytes.Buffer
	defer hop.SetPrintWriter(&buf)()
	x := tensor.Randn([]int{3})
	for _, mode := range modes {
		buf.Reset()
		gm, err := compile.Trace(printProgram, ts(x), compile.TraceOptions{Mode: mode, Functionalize: true})
		if err != nil {
			t.Fatal(err)
		}
		expectCode(t, gm, "", `
def forward(self, arg0_1, arg1_1):
    with_effects = torch.ops.higher_order.with_effects(arg0_1, torch.ops.aten._print.default, 'moo');  arg0_1 = None
    getitem = with_effects[0];  with_effects = None
    add = torch.ops.aten.add.Tensor(arg1_1, arg1_1);  arg1_1 = None
    with_effects_1 = torch.ops.higher_order.with_effects(getitem, torch.ops.aten._print.default, 'moo');  getitem = None
    getitem_2 = with_effects_1[0];  with_effects_1 = None
    return (getitem_2, add)`)
		want := map[compile.Mode]string{compile.Real: "moo\nmoo\n", compile.Fake: ""}[mode]
		if buf.String() != want {
			t.Errorf("%v: tracing printed %q, want %q", mode, buf.String(), want)
		}
		if compile.TokenInput(gm) == nil {
			t.Errorf("%v: no token input", mode)
		}
		// Run on the interpreter with a fresh token.
		buf.Reset()
		res, err := fx.NewInterpreter(gm).Run(tensor.Empty(tensor.Float32, 0), x)
		if err != nil {
			t.Fatal(err)
		}
		out := results(res)
		if len(out) != 2 || out[0].Numel() != 0 {
			t.Fatalf("results %v", out)
		}
		expectClose(t, "interpreted", out[1:], ts(x.Add(x)))
		if buf.String() != "moo\nmoo\n" {
			t.Errorf("running printed %q", buf.String())
		}
		// DCE keeps the effectful calls although nothing reads their tokens
		// but the output.
		if _, err := gm.Graph.EliminateDeadCode(); err != nil {
			t.Fatal(err)
		}
		if c := code(t, gm, ""); strings.Count(c, "with_effects(") != 2 {
			t.Errorf("after DCE:\n%s", c)
		}
	}
	// Without functionalization make_fx keeps two plain _print calls, which
	// DCE keeps.
	gm := trace(t, printProgram, ts(x), compile.Fake, "x")
	if _, err := gm.Graph.EliminateDeadCode(); err != nil {
		t.Fatal(err)
	}
	if c := code(t, gm, ""); strings.Count(c, "torch.ops.aten._print.default('moo')") != 2 {
		t.Errorf("make_fx without functionalization:\n%s", c)
	}
}

// test_alias_op: an op that aliases an argument cannot be effectful.
func TestEffectsAliasingRefused(t *testing.T) {
	err := tensor.Try(func() {
		hop.WithEffects(tensor.Empty(tensor.Float32, 0), tensor.MustOp("aten::abs_"), tensor.Randn([]int{2}))
	})
	if err == nil || !strings.Contains(err.Error(), "Ops with aliasing is not supported") {
		t.Errorf("err = %v", err)
	}
}

// S9 with unlift_effect_tokens=True (printed as PyTorch 2 prints it).
func TestEffectsUnliftS9(t *testing.T) {
	var buf bytes.Buffer
	defer hop.SetPrintWriter(&buf)()
	x := tensor.Randn([]int{3})
	gm, err := compile.Trace(printProgram, ts(x), compile.TraceOptions{Mode: compile.Fake, Functionalize: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := hop.UnliftEffectTokens(gm); err != nil {
		t.Fatal(err)
	}
	want := `
def forward(self, arg1_1):
    _make_token_default = torch.ops.prims._make_token.default()
    with_effects = torch.ops.higher_order.with_effects(_make_token_default, torch.ops.aten._print.default, 'moo');  _make_token_default = None
    getitem = with_effects[0];  with_effects = None
    add = torch.ops.aten.add.Tensor(arg1_1, arg1_1);  arg1_1 = None
    with_effects_1 = torch.ops.higher_order.with_effects(getitem, torch.ops.aten._print.default, 'moo');  getitem = None
    getitem_2 = with_effects_1[0];  with_effects_1 = None
    _sink_tokens_default = torch.ops.prims._sink_tokens.default([getitem_2]);  getitem_2 = _sink_tokens_default = None
    return (add,)`
	if got := strings.TrimSpace(gm.CodeWith(fx.CodeOptions{FreeUnused: true})); got != strings.TrimSpace(want) {
		t.Errorf("got\n%s\nwant\n%s", got, strings.TrimSpace(want))
	}
	if _, err := gm.Graph.EliminateDeadCode(); err != nil {
		t.Fatal(err)
	}
	res, err := fx.NewInterpreter(gm).Run(x)
	if err != nil {
		t.Fatal(err)
	}
	expectClose(t, "unlifted", results(res), ts(x.Add(x)))
	if buf.String() != "moo\nmoo\n" {
		t.Errorf("printed %q", buf.String())
	}
}

package tensorqueue_test

import (
	"strings"
	"testing"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/export"
	"github.com/goaten/goaten/tensor"

	tq "github.com/goaten/goaten/examples/torchbind/tensorqueue"
)

// forEachAddGelu is S1's ForEachAdd with a gelu of the queue's new top.
type forEachAddGelu struct{ forEachAdd }

func (m *forEachAddGelu) Forward(q tensor.ScriptObject, a *tensor.Tensor) (tensor.ScriptObject, *tensor.Tensor) {
	tq.ForEachAdd.Call(q, a)
	return q, a.Gelu()
}

// S1's program (the queue a user input and a user output, a token) goes
// through RunDecompositions: the signature is the same, gelu is decomposed,
// the for_each_add_ call keeps its with_effects, and the decomposed module
// mutates the queue it is given as the original does.
func TestRunDecompositionsForEachAddS1(t *testing.T) {
	m := &forEachAddGelu{}
	m.SetName("ForEachAdd")
	ep, err := export.ExportArgs(m, []any{newQueue(), tensor.OnesOf([]int{1})}, export.Options{InputNames: []string{"tq", "a"}})
	if err != nil {
		t.Fatal(err)
	}
	table, err := compile.GetDecompositions("aten::gelu")
	if err != nil {
		t.Fatal(err)
	}
	dec, err := ep.RunDecompositions(table)
	if err != nil {
		t.Fatal(err)
	}
	want := `
def forward(self, token, tq, a):
    with_effects = torch._higher_order_ops.effects.with_effects(token, torch.ops.MyCustomClass.for_each_add_.default, tq, a);  token = None
    getitem = with_effects[0];  with_effects = None
    mul = torch.ops.aten.mul.Tensor(a, 0.5)
    mul_1 = torch.ops.aten.mul.Tensor(a, 0.7071067811865476);  a = None
    erf = torch.ops.aten.erf.default(mul_1);  mul_1 = None
    add = torch.ops.aten.add.Tensor(erf, 1);  erf = None
    mul_2 = torch.ops.aten.mul.Tensor(mul, add);  mul = add = None
    return (getitem, tq, mul_2)`
	if got := strings.TrimSpace(dec.GraphModule.Code()); got != strings.TrimSpace(want) {
		t.Errorf("decomposed:\n%s\nwant:\n%s\nbefore:\n%s", got, strings.TrimSpace(want), ep.GraphModule.Code())
	}
	wantSig := "\n# inputs\ntoken: TOKEN\ntq: USER_INPUT\na: USER_INPUT\n\n# outputs\ngetitem: TOKEN\ntq: USER_OUTPUT\nmul_2: USER_OUTPUT\n"
	if got := dec.GraphSignature.String(); got != wantSig {
		t.Errorf("signature:%s\nwant:%s", got, wantSig)
	}
	for _, p := range []*export.ExportedProgram{ep, dec} {
		q := newQueue()
		q.Call("push", tensor.ZerosOf([]int{1}))
		out, err := p.Module().ForwardArgs(q, tensor.FullOf(tensor.Float32, 2, 1))
		if err != nil {
			t.Fatal(err)
		}
		if out[0] != any(q) {
			t.Errorf("the queue output is %v, not the queue given", out[0])
		}
		if top := q.Call("top").(*tensor.Tensor).Item().Float64(); top != 2 {
			t.Errorf("the queue's top is %v after for_each_add_ of 2 to a pushed 0, want 2", top)
		}
		if g := out[1].(*tensor.Tensor).Item().Float64(); g < 1.9544 || g > 1.9545 {
			t.Errorf("gelu(2) = %v", g)
		}
	}
}

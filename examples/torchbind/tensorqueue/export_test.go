package tensorqueue_test

import (
	"strings"
	"testing"

	"github.com/goaten/goaten/compile/export"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/tensor"

	tq "github.com/goaten/goaten/examples/torchbind/tensorqueue"
)

// forEachAdd is seed 001's ForEachAdd module.
type forEachAdd struct{ nn.Base }

func (m *forEachAdd) Forward(q tensor.ScriptObject, a *tensor.Tensor) tensor.ScriptObject {
	tq.ForEachAdd.Call(q, a)
	return q
}

// S1's signature: the token first in and out, the queue a user input and
// a user output of its class; the real queue is untouched by export and
// mutated by the program's module.
func TestExportForEachAddS1(t *testing.T) {
	q := newQueue()
	for range 10 {
		q.Call("push", tensor.ZerosOf([]int{1}))
	}
	m := &forEachAdd{}
	m.SetName("ForEachAdd")
	ep, err := export.ExportArgs(m, []any{q, tensor.OnesOf([]int{1})}, export.Options{InputNames: []string{"tq", "a"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "\n# inputs\ntoken: TOKEN\ntq: USER_INPUT\na: USER_INPUT\n\n# outputs\ngetitem: TOKEN\ntq: USER_OUTPUT\n"
	if got := ep.GraphSignature.String(); got != want {
		t.Errorf("signature:%s\nwant:%s", got, want)
	}
	const class = "__torch__.torch.classes.MyCustomClass.TensorQueue"
	if a, ok := ep.GraphSignature.InputSpecs[1].Arg.(export.CustomObjArgument); !ok || a.ClassFQN != class {
		t.Errorf("tq's input spec %#v", ep.GraphSignature.InputSpecs[1].Arg)
	}
	if a, ok := ep.GraphSignature.OutputSpecs[1].Arg.(export.CustomObjArgument); !ok || a.ClassFQN != class {
		t.Errorf("tq's output spec %#v", ep.GraphSignature.OutputSpecs[1].Arg)
	}
	if top := q.Call("top").(*tensor.Tensor); top.Item().Float64() != 0 {
		t.Errorf("export changed the real queue: top %v", top)
	}
	// Another queue of another class is refused at call time.
	if _, err := ep.Module().ForwardArgs(tensor.OnesOf([]int{1}), tensor.OnesOf([]int{1})); err == nil ||
		!strings.Contains(err.Error(), "Expected input at *args[0] to be a ScriptObject of class "+class) {
		t.Errorf("a tensor for tq: %v", err)
	}
	// Newer PyTorch's spelling.
	ep, err = export.ExportArgs(m, []any{q, tensor.OnesOf([]int{1})}, export.Options{InputNames: []string{"tq", "a"}, NewerEffects: true})
	if err != nil {
		t.Fatal(err)
	}
	if c := ep.GraphModule.Code(); !strings.Contains(c, "with_effects = torch.ops.higher_order.with_effects(token, torch.ops.MyCustomClass.for_each_add_.default, tq, a)") {
		t.Errorf("newer spelling:\n%s", c)
	}
}

package main

import (
	"strings"
	"testing"
)

// s1 is seed 001's exported ForEachAdd graph (pt2_tests.md S1), byte for byte.
const s1 = `def forward(self, token, tq, a):
    with_effects = torch._higher_order_ops.effects.with_effects(token, torch.ops.MyCustomClass.for_each_add_.default, tq, a);  token = a = None
    getitem = with_effects[0];  with_effects = None
    return (getitem, tq)
`

// TestRun runs the command's checks and finds S1's graph in what it
// prints, followed by the checked size and top of the output queue.
func TestRun(t *testing.T) {
	var b strings.Builder
	if err := run(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	i := strings.Index(out, s1)
	if i < 0 || (i > 0 && out[i-1] != '\n') {
		t.Fatalf("the output does not hold S1's graph on lines of its own:\n%s", out)
	}
	rest := out[i+len(s1):]
	if !strings.HasPrefix(rest, "output_tq.size() = 10, output_tq.top() = tensor([1.])\n") {
		t.Errorf("after S1's graph:\n%s", rest)
	}
	for _, want := range []string{
		"Mod compiled (fullgraph, eager backend): 1 graph, popped == x.sin(), tq.size() = 1\n",
		"Mod exported, run on the real queue: popped as eager does, tq.size() = 2\n",
		"loaded and run again: output_tq.top() = tensor([2.])\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
}

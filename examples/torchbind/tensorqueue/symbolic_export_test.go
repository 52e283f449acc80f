package tensorqueue_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/goaten/goaten/compile/export"
	"github.com/goaten/goaten/tensor"
	"github.com/goaten/goaten/torchbind"
)

// Beyond PyTorch, exported: (x + tq.size()) * (2*tq.size() + 1) exports to a graph that reads the
// size at run time, which Save writes as a symbolic int and Load reads
// back, so the program is right for queues of every length (PyTorch's
// graph burns the size in).
func TestExportSymbolicSize(t *testing.T) {
	fn := func(q tensor.ScriptObject, x *tensor.Tensor) *tensor.Tensor {
		n := torchbind.Call(q, "size").(int)
		return x.Add(tensor.WrappedNumber(tensor.Int(int64(n)))).Mul(tensor.WrappedNumber(tensor.Int(int64(2*n + 1))))
	}
	x := tensor.Randn([]int{3})
	ep, err := export.ExportArgs(&fnMod{fn: fn}, []any{emptyQueue(randn(tensor.Float32, false, 2)), x})
	if err != nil {
		t.Fatal(err)
	}
	want := `def forward(self, args_0, args_1):
    call_torchbind = torch.ops.higher_order.call_torchbind(args_0, 'size');  args_0 = None
    add = torch.ops.aten.add.Tensor(args_1, call_torchbind);  args_1 = None
    mul = call_torchbind * 2;  call_torchbind = None
    add_1 = mul + 1;  mul = None
    mul_1 = torch.ops.aten.mul.Tensor(add, add_1);  add = add_1 = None
    return (mul_1,)`
	if got := strings.TrimSpace(ep.GraphModule.Code()); got != want {
		t.Errorf("exported graph:\n%s\nwant:\n%s", got, want)
	}
	// print_readable names the sizes computed from the method's int.
	if r := ep.String(); !strings.Contains(r, `add_1: "Sym(2*u0 + 1)" = mul + 1`) {
		t.Errorf("readable program:\n%s", r)
	}
	var b bytes.Buffer
	if err := ep.Save(&b); err != nil {
		t.Fatal(err)
	}
	loaded, err := export.Load(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(loaded.GraphModule.Code()); got != want {
		t.Errorf("loaded graph:\n%s\nwant:\n%s", got, want)
	}
	for _, n := range []int{0, 1, 5} {
		var ts []*tensor.Tensor
		for range n {
			ts = append(ts, randn(tensor.Float32, false, 2))
		}
		wantT := fn(emptyQueue(ts...), x)
		for what, p := range map[string]*export.ExportedProgram{"exported": ep, "loaded": loaded} {
			got, err := p.Module().ForwardArgs(emptyQueue(ts...), x)
			if err != nil {
				t.Fatal(err)
			}
			sameTensor(t, fmt.Sprintf("%s, queue of %d", what, n), got[0].(*tensor.Tensor), wantT)
		}
	}
}

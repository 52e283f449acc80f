// Command torchbind runs seed 001's two TensorQueue programs end to end:
//
//   - Mod pushes x.sin() and x.cos() and pops (the sine): compiled with
//     Fullgraph on the eager backend, it leaves one tensor in the queue;
//     exported, the program's module runs on the real queue, mutating it.
//   - ForEachAdd calls the custom op for_each_add_ on a queue of ten
//     zeros: its exported graph is printed (seed 001's text), and the
//     program's module adds one to every queued tensor.
//
// It exits with status 1 when a check fails. The TensorQueue class, its
// fake class and the op are in package tensorqueue.
package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	_ "github.com/goaten/goaten"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/export"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/tensor"
	"github.com/goaten/goaten/torchbind"

	"github.com/goaten/goaten/examples/torchbind/tensorqueue"
)

// Mod is seed 001's Mod: push sin, push cos, pop.
type Mod struct{ nn.Base }

// Forward returns the queue and the popped tensor.
func (m *Mod) Forward(tq tensor.ScriptObject, x *tensor.Tensor) (tensor.ScriptObject, *tensor.Tensor) {
	torchbind.Call(tq, "push", x.Sin())
	torchbind.Call(tq, "push", x.Cos())
	popped := torchbind.Call(tq, "pop").(*tensor.Tensor)
	return tq, popped
}

// ForEachAdd is seed 001's ForEachAdd: for_each_add_(tq, a), returning tq.
type ForEachAdd struct{ nn.Base }

// Forward adds a to every tensor of the queue, in place.
func (m *ForEachAdd) Forward(tq tensor.ScriptObject, a *tensor.Tensor) tensor.ScriptObject {
	tensorqueue.ForEachAdd.Call(tq, a)
	return tq
}

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "torchbind:", err)
		os.Exit(1)
	}
}

// emptyQueue is seed 001's empty_tensor_queue(): init tensor [-1].
func emptyQueue() *torchbind.Object {
	return tensorqueue.Class.New(tensor.FullOf(tensor.Float32, -1, 1))
}

func size(o *torchbind.Object) int { return torchbind.Unwrap[*tensorqueue.TensorQueue](o).Size() }

// run runs both programs, printing to w; it returns the first failed check.
func run(w io.Writer) error {
	if err := runMod(w); err != nil {
		return fmt.Errorf("Mod: %w", err)
	}
	if err := runForEachAdd(w); err != nil {
		return fmt.Errorf("ForEachAdd: %w", err)
	}
	return nil
}

func runMod(w io.Writer) error {
	tq := emptyQueue()
	mod := &Mod{}
	mod.SetName("Mod")

	// torch.compile(Mod(), backend="eager", fullgraph=True)(tq, x)
	x := tensor.Randn([]int{2, 3})
	c := compile.Compile(func(tq tensor.ScriptObject, x *tensor.Tensor) *tensor.Tensor {
		_, popped := mod.Forward(tq, x)
		return popped
	}, compile.Options{Backend: compile.Eager, Fullgraph: true})
	res, err := c.CallArgs(tq, x)
	if err != nil {
		return err
	}
	popped, _ := res.(*tensor.Tensor)
	if popped == nil || !tensor.AllClose(popped, x.Sin(), 1e-5, 1e-8) {
		return fmt.Errorf("the compiled Mod popped %v, want x.sin() = %v", popped, x.Sin())
	}
	if n := size(tq); n != 1 {
		return fmt.Errorf("after the compiled Mod tq.size() = %d, want 1", n)
	}
	fmt.Fprintf(w, "Mod compiled (fullgraph, eager backend): %d graph, popped == x.sin(), tq.size() = %d\n", c.Stats().Frames, size(tq))

	// torch.export.export(Mod(), (tq, x), strict=False).module()(tq, x)
	ep, err := export.ExportArgs(mod, []any{tq, tensor.Randn([]int{2, 3})}, export.Options{InputNames: []string{"tq", "x"}})
	if err != nil {
		return err
	}
	if n := size(tq); n != 1 {
		return fmt.Errorf("exporting changed the real queue: tq.size() = %d, want 1", n)
	}
	fmt.Fprintf(w, "Mod exported:\n%s\n", strings.TrimSpace(ep.GraphModule.Code()))
	// Eager on a copy of the queue gives what the exported module must.
	want := torchbind.Unwrap[*tensorqueue.TensorQueue](tq).CloneQueue()
	x2 := tensor.Randn([]int{2, 3})
	_, wantPopped := mod.Forward(tensorqueue.Class.Wrap(want), x2)
	out, err := ep.Module().ForwardArgs(tq, x2)
	if err != nil {
		return err
	}
	if len(out) != 2 || out[0] != tq {
		return fmt.Errorf("the exported module returned %v, want (tq, popped)", out)
	}
	got, _ := out[1].(*tensor.Tensor)
	if got == nil || !tensor.AllClose(got, wantPopped, 0, 0) {
		return fmt.Errorf("the exported module popped %v, eager pops %v", got, wantPopped)
	}
	if n := size(tq); n != want.Size() || n != 2 {
		return fmt.Errorf("after the exported module tq.size() = %d, eager gives %d", n, want.Size())
	}
	fmt.Fprintf(w, "Mod exported, run on the real queue: popped as eager does, tq.size() = %d\n", size(tq))
	return nil
}

func runForEachAdd(w io.Writer) error {
	mod := &ForEachAdd{}
	mod.SetName("ForEachAdd")
	tq := emptyQueue()
	const qlen = 10
	for range qlen {
		torchbind.Call(tq, "push", tensor.ZerosOf([]int{1}))
	}
	ep, err := export.ExportArgs(mod, []any{tq, tensor.OnesOf([]int{1})}, export.Options{InputNames: []string{"tq", "a"}})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, strings.TrimSpace(ep.GraphModule.Code()))

	out, err := ep.Module().ForwardArgs(tq, tensor.OnesOf([]int{1}))
	if err != nil {
		return err
	}
	if len(out) != 1 {
		return fmt.Errorf("the exported module returned %d values, want 1", len(out))
	}
	outTQ, ok := out[0].(*torchbind.Object)
	if !ok || outTQ != tq {
		return fmt.Errorf("the exported module returned %v, not the queue", out[0])
	}
	if n := size(outTQ); n != qlen {
		return fmt.Errorf("output_tq.size() = %d, want %d", n, qlen)
	}
	top := outTQ.Call("top").(*tensor.Tensor)
	if !tensor.AllClose(top, tensor.OnesOf([]int{1}), 0, 0) {
		return fmt.Errorf("output_tq.top() = %v, want tensor([1.])", top)
	}
	fmt.Fprintf(w, "output_tq.size() = %d, output_tq.top() = %v\n", size(outTQ), top)

	// Saved to one file and loaded back, the program runs on the queue
	// again: every tensor is now 2.
	var buf bytes.Buffer
	if err := ep.Save(&buf); err != nil {
		return err
	}
	loaded, err := export.Load(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		return err
	}
	if got, want := loaded.GraphModule.Code(), ep.GraphModule.Code(); got != want {
		return fmt.Errorf("the loaded program's graph differs:\n%s", got)
	}
	if _, err := loaded.Module().ForwardArgs(tq, tensor.OnesOf([]int{1})); err != nil {
		return err
	}
	top = outTQ.Call("top").(*tensor.Tensor)
	if n := size(tq); n != qlen || !tensor.AllClose(top, tensor.FullOf(tensor.Float32, 2, 1), 0, 0) {
		return fmt.Errorf("after the loaded program tq.size() = %d, top() = %v, want %d, tensor([2.])", n, top, qlen)
	}
	fmt.Fprintf(w, "saved (%d bytes), loaded and run again: output_tq.top() = %v\n", buf.Len(), top)
	return nil
}

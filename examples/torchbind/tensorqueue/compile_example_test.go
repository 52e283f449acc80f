package tensorqueue_test

import (
	"fmt"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/tensor"
	"github.com/goaten/goaten/torchbind"

	tensorqueue "github.com/goaten/goaten/examples/torchbind/tensorqueue"
)

// A compiled function of a queue: the graph runs the queue's real methods,
// reads size() at run time, and is guarded on the queue's flattened state.
func Example_compiled() {
	f := func(q tensor.ScriptObject, x *tensor.Tensor) *tensor.Tensor {
		torchbind.Call(q, "push", x.Mul(tensor.WrappedNumber(tensor.Int(2))))
		n := torchbind.Call(q, "size").(int)
		return torchbind.Call(q, "pop").(*tensor.Tensor).Add(tensor.WrappedNumber(tensor.Int(int64(n))))
	}
	c := compile.Compile(f, compile.Options{Fullgraph: true})
	x := tensor.FullOf(tensor.Float32, 1, 2)
	q := tensorqueue.Class.New(tensor.Empty(tensor.Float32, 0))
	for range 2 {
		out, err := c.CallArgs(q, x)
		if err != nil {
			panic(err)
		}
		fmt.Println(out, "queue size", q.Call("size"))
	}
	fmt.Println(c.Stats().Frames, "graphs;", c.Stats().Recompiles)
	// Output:
	// tensor([3., 3.]) queue size 0
	// tensor([3., 3.]) queue size 0
	// 1 graphs; []
}

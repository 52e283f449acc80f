// Command tensorqueue runs seed 001's TensorQueue eagerly: the Go API, a
// boxed call by method name, the custom op for_each_add_, the flattened
// and pickled state, and the fake object tracing will use.
package main

import (
	"fmt"

	_ "github.com/goaten/goaten"
	"github.com/goaten/goaten/tensor"
	"github.com/goaten/goaten/torchbind"

	tensorqueue "github.com/goaten/goaten/examples/torchbind"
)

func main() {
	tq := tensorqueue.New(tensor.FullOf(tensor.Float32, -1, 1))
	for i := 0; i < 10; i++ {
		tq.Push(tensor.FullOf(tensor.Float32, 0, 1))
	}
	tensor.Call("MyCustomClass::for_each_add_", tq, tensor.FullOf(tensor.Float32, 1, 1))
	fmt.Println("size:", tq.Size(), "top:", tq.Top())

	obj := tensorqueue.Class.Wrap(tq)
	fmt.Println("boxed pop:", obj.Call("pop"), "size:", obj.Call("size"))
	fmt.Println(tensorqueue.Class.Method("push").Schema())

	back := torchbind.Unwrap[*tensorqueue.TensorQueue](tensorqueue.Class.SetState(obj.GetState()))
	fmt.Println("unpickled size:", back.Size())

	fake := torchbind.ToFake(obj, nil)
	fake.Call("push", tensor.NewMetaContiguous([]int{2, 3}, tensor.Float32, tensor.Meta))
	fmt.Println("fake size:", fake.Call("size"), "real size:", tq.Size())
}

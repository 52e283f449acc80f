package tensorqueue_test

import (
	"fmt"

	"github.com/goaten/goaten/tensor"

	tensorqueue "github.com/goaten/goaten/examples/torchbind/tensorqueue"
)

// Seed 001's for_each_add_ on a queue of ten zeros, run eagerly.
func Example() {
	tq := tensorqueue.New(tensor.FullOf(tensor.Float32, -1, 1))
	for i := 0; i < 10; i++ {
		tq.Push(tensor.FullOf(tensor.Float32, 0, 1))
	}
	tensor.Call("MyCustomClass::for_each_add_", tq, tensor.FullOf(tensor.Float32, 1, 1))
	fmt.Println(tq.Size(), tq.Top())
	// Output:
	// 10 tensor([1.])
}

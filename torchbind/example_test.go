package torchbind_test

import (
	"fmt"

	"github.com/goaten/goaten/tensor"
	"github.com/goaten/goaten/torchbind"
)

type Counter struct{ n int }

func (c *Counter) Add(k int) int { c.n += k; return c.n }

func Example() {
	cls := torchbind.Register[*Counter]("example::Counter").
		Init(func(start int) *Counter { return &Counter{start} }).
		Def("add", (*Counter).Add)
	obj := cls.New(10)
	fmt.Println(cls.Method("add").Schema())
	fmt.Println(obj.Call("add", 5))
	fmt.Println(torchbind.Unwrap[*Counter](obj).Add(1))
	fmt.Println(tensor.Try(func() { obj.Call("sub", 1) }))
	// Output:
	// add(__torch__.torch.classes.example.Counter _0, int _1) -> int _0
	// 15
	// 16
	// Tried to access nonexistent attribute or method 'sub' of type '__torch__.torch.classes.example.Counter'.
}

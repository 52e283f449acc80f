// Command quickstart is a short tour of goaten: creation, dtypes,
// broadcasting arithmetic, matmul, reductions, views and in-place ops that
// alias, and printing. It runs on the CPU, or with -device on any registered
// device, e.g. -device gonum (the example device of examples/newdevice) or
// -device meta.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	gt "github.com/goaten/goaten"
	_ "github.com/goaten/goaten/examples/newdevice" // the "gonum" device
)

func main() {
	name := flag.String("device", "cpu", "the device to run the tour on")
	flag.Parse()
	dev, ok := gt.LookupDevice(*name)
	if !ok {
		fmt.Fprintf(os.Stderr, "quickstart: no device %q\n", *name)
		os.Exit(2)
	}
	tour(os.Stdout, dev)
}

// tour prints the tour to w, with every tensor it makes moved to dev.
func tour(w io.Writer, dev gt.Device) {
	on := func(t *gt.Tensor) *gt.Tensor { return t.ToDevice(dev) }
	section := func(title string) { fmt.Fprintf(w, "\n== %s ==\n", title) }
	println := func(a ...any) { fmt.Fprintln(w, a...) }

	section("creation")
	a := on(gt.FromFloat32s([]float32{1, 2, 3, 4, 5, 6}, 2, 3))
	println("a =", a)
	println("a.Sizes() =", a.Sizes(), " a.Strides() =", a.Strides(), " a.DType() =", a.DType())
	println("arange(0, 6, 1) =", on(gt.Arange(0, 6)))
	println("ones(2, 2) =", on(gt.Ones(2, 2)))
	gt.ManualSeed(0)
	println("rand(2, 3) has shape", on(gt.Rand(2, 3)).Sizes())

	section("dtypes and type promotion")
	i := on(gt.FromInt32s([]int32{1, 2, 3}))
	println("int32 tensor:", i)
	println("int32 + 2.5 ->", i.AddScalar(2.5))
	println("int32 / int32 (true division) ->", i.Div(i))
	println("as float16:", a.To(gt.Float16))

	section("broadcasting arithmetic")
	row := on(gt.FromFloat32s([]float32{10, 20, 30}))
	col := on(gt.FromFloat32s([]float32{100, 200}, 2, 1))
	println("a + row =", a.Add(row))
	println("a * col =", a.Mul(col))
	println("exp(a / 6) =", a.DivScalar(6).Exp())

	section("matmul")
	wt := on(gt.FromFloat32s([]float32{1, 0, 0, 1, 1, 1}, 3, 2))
	println("a @ w =", a.Mm(wt))

	section("reductions")
	println("sum(a) =", a.Sum(nil))
	println("mean over dim 1 =", a.MeanDim([]int{1}))
	vals, idx := a.MaxDim(0)
	println("max over dim 0 =", vals, "at", idx)
	println("softmax over dim 1 =", gt.Call("aten::_softmax", a, 1, false))

	section("views alias their base")
	v := a.View([]int{3, 2})
	t := a.Permute([]int{1, 0})
	println("a.View(3, 2) =", v)
	println("a.Permute(1, 0) strides:", t.Strides(), "contiguous:", t.IsContiguous())
	r := a.Select(0, 1) // the second row of a
	r.MulScalar_(-1)    // in place: writes through to a
	println("after a.Select(0, 1).MulScalar_(-1): a =", a)
	println("... and the view a.View(3, 2) sees it:", v)

	section("errors are values you can catch")
	err := gt.Try(func() { a.Mm(a) })
	println("a.Mm(a):", err)
}

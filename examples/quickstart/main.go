// Command quickstart is a short tour of goaten on the default CPU device:
// creation, dtypes, broadcasting arithmetic, matmul, reductions, views and
// in-place ops that alias, and printing.
package main

import (
	"fmt"

	gt "github.com/goaten/goaten"
)

func section(title string) { fmt.Printf("\n== %s ==\n", title) }

func main() {
	section("creation")
	a := gt.FromFloat32s([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	fmt.Println("a =", a)
	fmt.Println("a.Sizes() =", a.Sizes(), " a.Strides() =", a.Strides(), " a.DType() =", a.DType())
	fmt.Println("arange(0, 6, 1) =", gt.Arange(0, 6, 1))
	fmt.Println("ones(2, 2) =", gt.Ones(2, 2))
	gt.ManualSeed(0)
	fmt.Println("rand(2, 3) has shape", gt.Rand([]int{2, 3}).Sizes())

	section("dtypes and type promotion")
	i := gt.FromInt32s([]int32{1, 2, 3})
	fmt.Println("int32 tensor:", i)
	fmt.Println("int32 + 2.5 ->", i.AddScalar(2.5, 1))
	fmt.Println("int32 / int32 (true division) ->", i.Div(i))
	fmt.Println("as float16:", a.To(gt.Float16))

	section("broadcasting arithmetic")
	row := gt.FromFloat32s([]float32{10, 20, 30})
	col := gt.FromFloat32s([]float32{100, 200}, 2, 1)
	fmt.Println("a + row =", a.Add(row))
	fmt.Println("a * col =", a.Mul(col))
	fmt.Println("exp(a / 6) =", a.DivScalar(6).Exp())

	section("matmul")
	w := gt.FromFloat32s([]float32{1, 0, 0, 1, 1, 1}, 3, 2)
	fmt.Println("a @ w =", a.Mm(w))

	section("reductions")
	fmt.Println("sum(a) =", a.Sum(nil, false))
	fmt.Println("mean over dim 1 =", a.MeanDim([]int{1}, false))
	vals, idx := a.MaxDim(0, false)
	fmt.Println("max over dim 0 =", vals, "at", idx)
	fmt.Println("softmax over dim 1 =", gt.Call("aten::_softmax", a, 1, false))

	section("views alias their base")
	v := a.View([]int{3, 2})
	t := a.Permute([]int{1, 0})
	fmt.Println("a.View(3, 2) =", v)
	fmt.Println("a.Permute(1, 0) strides:", t.Strides(), "contiguous:", t.IsContiguous())
	r := a.Select(0, 1) // the second row of a
	r.MulScalar_(-1)    // in place: writes through to a
	fmt.Println("after a.Select(0, 1).MulScalar_(-1): a =", a)
	fmt.Println("... and the view a.View(3, 2) sees it:", v)

	section("errors are values you can catch")
	err := gt.Try(func() { a.Mm(a) })
	fmt.Println("a.Mm(a):", err)
}

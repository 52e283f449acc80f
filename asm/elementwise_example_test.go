package asm_test

import (
	"fmt"
	"math"

	"github.com/goaten/goaten/asm"
)

func ExampleAddF32() {
	x := []float32{1, 2, 3}
	y := []float32{10, 20, 30}
	d := make([]float32, 3)
	asm.AddF32(d, x, y)
	fmt.Println(d)
	asm.AxpyF32(d, 2, x, y) // 2·x + y, rounded once
	fmt.Println(d)
	asm.MaximumScalarF32(d, []float32{-1, float32(math.NaN()), 5}, 0)
	fmt.Println(d)
	// Output:
	// [11 22 33]
	// [12 24 36]
	// [0 NaN 5]
}

func ExampleAddcmulF32() {
	// Adam's exp_avg_sq.addcmul_(grad, grad, value=1-β2), in place.
	v := []float32{0.5, 0.25}
	g := []float32{2, -4}
	asm.AddcmulF32(v, v, g, g, 1-0.999)
	fmt.Println(v)
	// One rounding, as torch 1.13's CPU kernel: 0.5359 + 1.1·(-0.4872).
	x := []float32{0.5359}
	asm.AddcmulF32(x, x, []float32{1.1}, []float32{-0.4872}, 1)
	fmt.Printf("fused %g, unfused %g\n", x[0], float32(0.5359)+float32(float32(1.1)*float32(-0.4872)))
	// Output:
	// [0.504 0.266]
	// fused -2.0005993e-05, unfused -2.002716e-05
}

func ExampleExpF32() {
	d := make([]float32, 4)
	asm.ExpF32(d, []float32{0, 1, float32(math.Inf(-1)), 89})
	fmt.Println(d)
	asm.GeluF32(d, []float32{-1, 0, 1, 3})
	fmt.Printf("%.6f\n", d)
	// Output:
	// [1 2.7182817 0 +Inf]
	// [-0.158655 0.000000 0.841345 2.995950]
}

func ExampleSoftmaxF32() {
	d := make([]float32, 3)
	asm.SoftmaxF32(d, []float32{1, 2, 3})
	fmt.Printf("%.4f\n", d)
	v, i := asm.MaxF32([]float32{3, 7, 7, 1})
	fmt.Println(v, i)
	// Output:
	// [0.0900 0.2447 0.6652]
	// 7 1
}

func ExampleF32ToBF16() {
	h := make([]uint16, 3)
	asm.F32ToBF16(h, []float32{1, 1.00390625, float32(math.NaN())})
	fmt.Printf("%#04x\n", h)
	f := make([]float32, 3)
	asm.BF16ToF32(f, h)
	fmt.Println(f)
	// Output:
	// [0x3f80 0x3f80 0x7fc0]
	// [1 1 NaN]
}

package asm_test

import (
	"fmt"

	"github.com/goaten/goaten/asm"
)

func ExampleSgemm() {
	// C = A·B for a 2×3 A and a 3×2 B, row-major.
	a := []float32{
		1, 2, 3,
		4, 5, 6,
	}
	b := []float32{
		7, 8,
		9, 10,
		11, 12,
	}
	c := make([]float32, 4)
	asm.Sgemm(false, false, 2, 2, 3, 1, a, 3, b, 2, 0, c, 2)
	fmt.Println(c)

	// C = 2·Aᵀ·Bᵀ: Aᵀ is 3×2 and Bᵀ 2×3, read from the same slices with
	// their stored strides; beta 0 ignores what C held.
	c3 := make([]float32, 9)
	asm.Sgemm(true, true, 3, 3, 2, 2, a, 3, b, 2, 0, c3, 3)
	fmt.Println(c3)
	// Output:
	// [58 64 139 154]
	// [78 98 118 108 136 164 138 174 210]
}

func ExampleDgemm() {
	// C = 0.5·A·B + C with a strided A: its rows are 4 apart, 3 used.
	a := []float64{
		1, 2, 3, -1,
		4, 5, 6, -1,
	}
	b := []float64{1, 0, 0, 1, 1, 1}
	c := []float64{10, 20, 30, 40}
	asm.Dgemm(false, false, 2, 2, 3, 0.5, a, 4, b, 2, 1, c, 2)
	fmt.Println(c)
	// Output: [12 22.5 35 45.5]
}

func ExamplePath() {
	p := asm.Path() // "avx512", "avx2+fma", "neon" or "go"
	fmt.Println(p != "")
	// Output: true
}

package decomp_test

import (
	"fmt"

	"github.com/goaten/goaten/tensor"
)

// Non-core ops run through their decompositions on any device; the typed
// wrappers are generated from decomp/ops.txt.
func Example() {
	x := tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	fmt.Println(x.Reshape([]int{3, 2}).Shape())
	fmt.Println(x.T().Strides())
	fmt.Println(x.Softmax(1).SumAll())
	fmt.Println(tensor.Einsum("ij,kj->ik", []*tensor.Tensor{x, x}))
	// Output:
	// [3 2]
	// [1 3]
	// tensor(2.)
	// tensor([[14., 32.],
	//         [32., 77.]])
}

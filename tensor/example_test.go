package tensor_test

import (
	"fmt"

	"github.com/goaten/goaten/tensor"
)

func ExampleFormat() {
	fmt.Println(tensor.FromSlice([]float32{1, 2, 3, 4}, 2, 2))
	fmt.Println(tensor.FromSlice([]float32{1.5, -2.25, 3}))
	fmt.Println(tensor.FromSlice([]int32{1, 2, 3}))
	fmt.Println(tensor.FromSlice([]bool{true, false}))
	fmt.Println(tensor.FromSlice([]float64{1e-5, 1}))
	fmt.Println(tensor.FromScalar(tensor.Float(3.5), tensor.Float32))
	fmt.Println(tensor.Empty(tensor.Float32, 0, 3))
	fmt.Println(tensor.FromSlice([]int64{0, 1, 2, 3, 4, 5, 6, 7}, 2, 2, 2))
	fmt.Println(tensor.Empty(tensor.Int64, 0))
	fmt.Println(tensor.FromSlice([]float64{1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5}))
	// Output:
	// tensor([[1., 2.],
	//         [3., 4.]])
	// tensor([ 1.5000, -2.2500,  3.0000])
	// tensor([1, 2, 3], dtype=torch.int32)
	// tensor([ True, False])
	// tensor([1.0000e-05, 1.0000e+00], dtype=torch.float64)
	// tensor(3.5000)
	// tensor([], size=(0, 3))
	// tensor([[[0, 1],
	//          [2, 3]],
	//
	//         [[4, 5],
	//          [6, 7]]])
	// tensor([], dtype=torch.int64)
	// tensor([1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000],
	//        dtype=torch.float64)
}

func ExampleResultType() {
	ints := tensor.FromSlice([]int32{1, 2})
	fmt.Println(tensor.ResultType(ints, 2))
	fmt.Println(tensor.ResultType(ints, 2.5))
	fmt.Println(tensor.ResultType(ints, tensor.FromScalar(tensor.Float(1), tensor.Float64)))
	// Output:
	// int32
	// float32
	// float64
}

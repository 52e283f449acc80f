package export_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/goaten/goaten/compile/export"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/tensor"
)

// dense is relu(x @ weight + bias).
type dense struct {
	nn.Base
	Weight, Bias *tensor.Tensor
}

func newDense() *dense {
	m := &dense{}
	m.Weight = m.RegisterParameter("weight", tensor.FromSlice([]float32{1, -1, 0.5, 2, 0, -1}, 3, 2))
	m.Bias = m.RegisterParameter("bias", tensor.FromSlice([]float32{0.5, -0.5}))
	return m
}

func (m *dense) Forward(x *tensor.Tensor) *tensor.Tensor {
	return x.Matmul(m.Weight).Add(m.Bias).Relu()
}

// Export a module: its parameters become the graph's first inputs, named
// as PyTorch names them; save the program to one archive, load it back and
// run it.
func Example() {
	x := tensor.FromSlice([]float32{1, 2, 3, -1, 0, 1}, 2, 3)
	ep, err := export.Export(newDense(), []*tensor.Tensor{x}, export.Options{
		InputNames:    []string{"x"},
		DynamicShapes: []map[int]*export.Dimension{{0: export.Dim("batch", 1, 1024)}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.TrimSpace(ep.GraphModule.Code()))
	fmt.Print(ep.GraphSignature)
	fmt.Println(ep.RangeConstraints)

	var buf bytes.Buffer
	if err := ep.Save(&buf); err != nil {
		fmt.Println(err)
		return
	}
	loaded, err := export.Load(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		fmt.Println(err)
		return
	}
	m := loaded.Module()
	out, err := m.Forward(tensor.FromSlice([]float32{1, 1, 1}, 1, 3))
	fmt.Println(out[0].Float64s(), err)
	_, err = m.Forward(tensor.FromSlice([]float32{1, 1}, 1, 2))
	fmt.Println(err)
	// Output:
	// def forward(self, p_weight, p_bias, x):
	//     mm = torch.ops.aten.mm.default(x, p_weight);  x = p_weight = None
	//     add = torch.ops.aten.add.Tensor(mm, p_bias);  mm = p_bias = None
	//     relu = torch.ops.aten.relu.default(add);  add = None
	//     return (relu,)
	//
	// # inputs
	// p_weight: PARAMETER target='weight'
	// p_bias: PARAMETER target='bias'
	// x: USER_INPUT
	//
	// # outputs
	// relu: USER_OUTPUT
	// map[s0:VR[1, 1024]]
	// [2 0] <nil>
	// Expected input at *args[0].shape[1] to be equal to 3, but got 2
}

package nninit_test

import (
	"fmt"
	"math"

	gt "github.com/goaten/goaten"
	nninit "github.com/goaten/goaten/nn/init"
)

// nn.Linear(3, 2)'s default initialisation after torch.manual_seed(0):
// the weight by kaiming_uniform_(a=√5), then the bias from
// U(-1/√fan_in, 1/√fan_in), drawn from the same stream.
func Example() {
	gt.ManualSeed(0)
	w := gt.Empty(2, 3)
	b := gt.Empty(2)
	nninit.KaimingUniform_(w, nninit.Kaiming{A: math.Sqrt(5)})
	fanIn, _ := nninit.CalculateFanInAndFanOut(w)
	bound := 1 / math.Sqrt(float64(fanIn))
	nninit.Uniform_(b, -bound, bound)
	fmt.Printf("%.4f\n%.4f\n", w.Float64s(), b.Float64s())
	// Output:
	// [-0.0043 0.3097 -0.4752 -0.4249 -0.2224 0.1548]
	// [-0.0114 0.4578]
}

func ExampleCalculateGain() {
	fmt.Printf("%.4f %.4f %.4f\n", nninit.CalculateGain("relu"), nninit.CalculateGain("tanh"), nninit.CalculateGain("leaky_relu", math.Sqrt(5)))
	// Output:
	// 1.4142 1.6667 0.5774
}

func ExampleCalculateFanInAndFanOut() {
	in, out := nninit.CalculateFanInAndFanOut(gt.Empty(6, 3, 3, 3)) // a Conv2d(3, 6, 3) weight
	fmt.Println(in, out)
	err := gt.Try(func() { nninit.CalculateFanInAndFanOut(gt.Empty(5)) })
	fmt.Println(err)
	// Output:
	// 27 54
	// Fan in and fan out can not be computed for tensor with fewer than 2 dimensions
}

package goaten_test

import (
	"fmt"

	gt "github.com/goaten/goaten"
)

// The random ops draw PyTorch's CPU streams: after the same seed they give
// the numbers torch.manual_seed(0); torch.randn(3) and torch.randint gives.
func ExampleManualSeed() {
	gt.ManualSeed(0)
	fmt.Println(gt.Randn([]int{3}))
	gt.ManualSeed(0)
	fmt.Println(gt.RandintLow(0, 10, []int{3}))
	// Output:
	// tensor([ 1.5410, -0.2934, -2.1788])
	// tensor([4, 9, 3])
}

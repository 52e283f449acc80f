package cpu

import (
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// inplaceKernel runs the functional op and writes its result into self,
// bumping self's version counter: the in-place variant derived from the
// functional one, as STYLE.md asks.
func inplaceKernel(op *tensor.Op, args []any) any {
	self := args[0].(*tensor.Tensor)
	f, _ := core.Functional(op)
	res := f.RunBackend(tensor.CPU, args).(*tensor.Tensor)
	core.CheckInplaceResult(self, res)
	copyInto(self, res)
	self.BumpVersion()
	return self
}

func init() {
	for _, name := range core.InplaceNames {
		impl(name, inplaceKernel)
	}
}

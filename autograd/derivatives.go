package autograd

import (
	"github.com/goaten/goaten/tensor"
)

// registerDerivatives fills the derivative table: one entry per core op,
// with PyTorch 1.13's derivatives.yaml as the reference for which inputs
// are differentiable and what the formulas compute. A formula reads the
// op's non-tensor arguments through its view in package args
// (args.XOf(c.Args())) and names its tensor arguments, the saved values it
// reads and the inputs whose gradients it sets, by the positions args.XAt
// gives (schemas are quoted above the entries). Each op family registers
// its entries in the file named as its family's file in aten/core
// (unary.go, binary.go, reduce.go, movement.go, indexing.go, ...), with the
// formulas too long to sit in the table beside them; non-core ops with a
// derivative of their own are in noncore.go. The order does not matter: def
// panics on a second entry for one op.
func registerDerivatives() {
	registerUnary()
	registerBinary()
	registerReduce()
	registerSort()
	registerMovement()
	registerPad()
	registerIndexing()
	registerMatmul()
	registerConv()
	registerSoftmax()
	registerFactory()
	registerRandom()
	registerNorm()
	registerPool()
	registerEmbedding()
	registerResample()
	registerNonCore()

	// ---- core ops goaten lacks ----
	def("aten::_fft_r2c", notImpl("goaten has no complex dtypes yet, so the op itself is missing"))
	def("aten::_fft_c2r", notImpl("goaten has no complex dtypes yet, so the op itself is missing"))
}

// notImpl marks an op whose gradient fails, as in PyTorch, with the
// reason recorded in the table.
func notImpl(reason string) *Deriv {
	return &Deriv{Reason: reason, Backward: func(c *Ctx) {
		tensor.Raise(&tensor.Error{Kind: tensor.NotImplementedError, Msg: "the derivative for '" + c.node.name + "' is not implemented."})
	}}
}

// Package autograd is goaten's reverse-mode automatic differentiation: the
// Autograd dispatch key of DESIGN.md.
//
// Every core op has an entry in one derivative table (derivatives.go and
// the files beside it): the formula of PyTorch's derivatives.yaml, written
// in ops called through the dispatcher, so it runs on every device, can be
// differentiated again (double backward) and can later be traced. Non-core
// ops decompose above this layer, so their gradients flow through their
// decompositions, as PyTorch's CompositeImplicitAutograd ops do.
//
// # Using it
//
//	x := tensor.FromSlice([]float64{1, 2, 3}).SetRequiresGrad(true)
//	y := x.Mul(x).SumAll()
//	y.Backward()
//	x.Grad() // 2*x
//
// autograd.Grad computes gradients without touching .Grad (retain_graph,
// create_graph and allow_unused as options); Detach, NoGrad, InferenceMode,
// RegisterHook, RetainGrad and custom functions (Function, Apply) complete
// the PyTorch surface. Gradcheck compares analytical gradients with finite
// differences.
//
// # Grad mode is process-wide
//
// Go has no goroutine-local storage, so the grad mode is a property of the
// process, not of a thread as in PyTorch. NoGrad and InferenceMode count
// nested scopes; while any is open, no goroutine records gradients (the
// Autograd key is excluded from every call, so ops pay nothing for it).
// Programs that train in one goroutine while another runs a no-grad
// evaluation should evaluate with Detach-ed tensors instead of a scope.
// The first tensor marked with SetRequiresGrad also switches on the Autograd
// key for every call (still process-wide), so that views of tensors that do
// not require grad are tracked and an in-place write of a value that
// requires grad into such a view rebases the base's history (CopySlices),
// as in PyTorch. Before that first call the layer costs nothing at all.
//
// The engine itself keeps no global state: backward passes run in the
// goroutine that calls them, can be re-entered from a backward function,
// and may run concurrently on disjoint graphs.
//
// # Differences from PyTorch
//
//   - Gradients accumulate into .Grad out of place: after a second
//     backward, Grad returns a new tensor.
//   - Saved tensors are kept until the graph is released; the version
//     check happens when a formula reads one, which gives PyTorch's errors.
//   - InferenceMode is NoGrad: tensors made inside it are not marked as
//     inference tensors.
package autograd

// Package autograd is goaten's reverse-mode automatic differentiation: the
// Autograd dispatch key of DESIGN.md.
//
// Every core op has an entry in one derivative table, filled per op family
// in the file named as the family's file in aten/core (unary.go, binary.go,
// reduce.go, movement.go, indexing.go, ...; derivatives.go calls them all):
// the formula of PyTorch's derivatives.yaml, written
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
// # In-place ops and views
//
// An in-place op records its functional op on a copy of self's old value
// (or on self itself when the formula never reads it) and writes the
// result into self. When self is a view, its base takes a CopySlices node
// (the written region's gradient goes to the new value, the rest to the
// base's old history) and every view of that base regenerates its history
// from the base at its next use, detected through the shared version
// counter. Saved tensors modified in place, in-place writes into leaves
// that require grad (or their views) and into outputs of multi-output view
// ops fail with PyTorch's messages.
//
// # Differences from PyTorch
//
//   - Gradients accumulate into .Grad out of place: after a second
//     backward, Grad returns a new tensor.
//   - A node keeps the arguments and outputs of its call until the graph is
//     released (then only their metadata); the version check happens when a
//     formula reads one, so the errors are PyTorch's.
//   - InferenceMode is NoGrad: tensors made inside it are not marked as
//     inference tensors.
//   - Views made inside NoGrad, or before the first SetRequiresGrad of the
//     process, are not tracked as views: an in-place write of a value that
//     requires grad into one of them does not reach its base.
//   - A hook registered on a tensor stays on the node that produced it when
//     an in-place op later gives the tensor a new history.
package autograd

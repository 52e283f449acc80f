// Package tensor holds goaten's Tensor value, dtypes, scalars, devices, the
// schema parser and the dispatcher, and the typed op wrappers generated from
// the schema tables (ops_gen.go).
//
// # One call, from the typed method to the kernel
//
// Take x.Add(y, WithAlpha(2)) on two CPU tensors, one of which requires grad.
//
//  1. ops_gen.go: Add is generated from the schema
//     "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
//     (internal/cmd/opgen reads aten/core/core_ops.txt,
//     aten/core/inplace_ops.txt and decomp/ops.txt). It calls an opRef
//     (opref.go), which finds the registered *Op once.
//  2. dispatch.go, Bind: the positional arguments and the options (keyword
//     arguments) become the op's complete canonical argument list: every
//     schema argument in order, defaults filled in, Go values converted
//     (convertValue: 2 becomes the Scalar alpha; a number given for a Tensor
//     becomes a wrapped-number tensor). Wrong arity, names or types are
//     PyTorch's TypeErrors. Kernels read the list through the typed views of
//     package aten/args, generated from the same schemas.
//  3. dispatch.go, Op.Dispatch: the call's keys are the keys its tensors
//     carry (Tensor.Keys: Autograd on a tensor that requires grad,
//     Functionalize on a functional wrapper, Trace on a traced one), plus the
//     armed keys and the calling goroutine's included keys (modes.go), less
//     its excluded ones (NoGrad excludes Autograd); its device is the
//     tensors' common device (0-d CPU tensors act as scalars). The result, a
//     Dispatch, is worked out once per call.
//  4. dispatch.go, Op.dispatch: the keys are walked from the highest,
//     Autograd > Functionalize > Trace, to the backend. A key's kernel runs
//     (autograd/kernel.go records the call; functional/kernel.go turns views
//     and mutations into functional ops; compile/trace.go records a graph
//     node), and falls through with Op.Redispatch(d, key, args), passing the
//     Dispatch down. Where a composite (non-core) op decomposes is decided
//     here only (Op.decomposeAt): above Autograd when an argument requires
//     grad, above Functionalize for views, mutations and ops the device
//     lacks (but not an Explicit op on a device with native views: graph
//     capture's functional layer sees it whole, as PyTorch's does), above
//     Trace unless PyTorch gives the op a kernel of its own (Op.Explicit),
//     else below the backend when the device has no kernel.
//  5. The backend kernel of the device (device/cpu/binary.go for add on the
//     CPU, registered with Op.ImplBackend; device/kernels.go wraps the
//     lowerings of a device registered through package device) computes the
//     result; its metadata comes from the op's meta function (aten/core).
//     In-place and out= variants derive from the functional op
//     (variant.go: Op.Functional).
//
// Errors are panics of *Error (error.go) naming the op, in PyTorch's words;
// Try turns them into an error. They are raised with Raise (Panicf, Check,
// ...), which notes the error as the goroutine's error in flight: the
// dispatcher's deferred call names it after the innermost op it unwinds
// without recovering it, so an uncaught panic's trace shows each frame once,
// and its message ends with the user's file:line (Error.Where) while it
// escapes.
//
// # Modes are per goroutine
//
// Dispatcher modes — grad mode (autograd.NoGrad, EnableGrad, InferenceMode,
// SetGradEnabled), IncludeKey/ExcludeKey and the tracer's mode value — belong
// to the goroutine that entered them, as PyTorch's are thread-local; a new
// goroutine starts with the defaults. Go has no goroutine-local storage, so
// modes.go keeps each goroutine's modes in a map keyed by its id, which
// internal/goid reads from the runtime in a couple of nanoseconds (ids are
// never reused, unlike the runtime's g pointers, so a goroutine that ends
// inside a scope leaves nothing to a successor; passing a context through
// every call would have changed PyTorch's API). A counter of goroutines in
// some mode keeps the common case, none, to one atomic load per call.
//
// # Default arguments are options
//
// The typed wrappers follow one convention for PyTorch's default arguments:
// functional options named after the schema argument.
// Required arguments are parameters, in schema order; every argument with a
// default, and every optional keyword-only argument, is left out and passed
// by name through the wrapper's trailing opts:
//
//	x.Softmax(1)                               // softmax.int(self, int dim, ScalarType? dtype=None)
//	x.Gelu(WithApproximate("tanh"))            // gelu(self, *, str approximate="none")
//	x.Sum([]int{1}, WithKeepdim(true))         // sum.dim_IntList(self, int[1]? dim, bool keepdim=False, ...)
//	Randn([]int{3}, WithDtype(Float64))        // randn(SymInt[] size, *, ScalarType? dtype=None, ...); the root package's Randn(3, ...) takes sizes as PyTorch does
//	logits.CrossEntropyLoss(y, WithLabelSmoothing(0.1))
//
// There is one With* constructor per argument name over all the op tables
// (WithAlpha, WithDim, WithReduction, ...), typed when every schema gives
// that name the same Go type, else taking any; Kw passes any argument by
// name. Options become keyword arguments of Bind, so an option the op does
// not have fails as PyTorch does ("Unknown keyword argument 'x' for operator
// 'aten::...'"), as does a value of the wrong type; of two options with the
// same name the last wins. A wrapper whose op has no such argument takes no
// options.
package tensor

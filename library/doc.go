// Package library registers custom ops from Go, as PyTorch's
// TORCH_LIBRARY blocks and torch.library do: an op is defined from a
// PyTorch schema, gets kernels per device or key, a fake kernel for
// tracing, and an autograd formula, and is then an op like any other —
// reachable by name through tensor.Call or goaten.Call, recorded in graphs
// as torch.ops.<namespace>.<name>.<overload>, differentiable, and
// functionalized on devices without views.
//
//	var scaleAdd = library.Define("mylib::scale_add(Tensor x, Tensor y, *, float alpha=1.) -> Tensor")
//
//	func init() {
//		scaleAdd.Impl("CPU", func(a library.Args) any {
//			return a.Tensor("x").MulScalar(a.Float("alpha")).Add(a.Tensor("y"))
//		})
//		scaleAdd.RegisterFake(func(a library.Args) any { return a.Tensor("x").EmptyLike() })
//	}
//
//	y := library.CallAs[*tensor.Tensor](scaleAdd, x, y, library.Kw{"alpha": 2.0})
//
// # Registration
//
// Registration is init-time code, as in phase 1: Go's package
// initialisation is the counterpart of the static initialisers that
// PyTorch's macros expand to (seed 003). New, NewFragment and NewImpl
// create the blocks (TORCH_LIBRARY, TORCH_LIBRARY_FRAGMENT,
// TORCH_LIBRARY_IMPL); the package-level Define, Impl, RegisterFake and
// RegisterAutograd register through a fragment of the name's namespace,
// and the methods of Op register for one op. Misuse panics with a
// *tensor.Error whose message is PyTorch's: a schema that does not parse
// (pointing at the column), a second definition of a name, a second
// TORCH_LIBRARY block for a namespace, a kernel for an op that does not
// exist, a second kernel for the same key.
//
// # Kernels
//
// A Kernel reads the call's arguments by name from Args (defaults filled
// in) and returns what the schema declares (a tuple mixing tensors with
// other values comes back as a []any; such ops run eagerly, but graphs
// track only tensor, tensor-list and tensor-tuple results). Kernels of devices run below
// autograd; their results are checked against the schema's returns. A
// device kernel gets the call's tensors on its device: on the CPU, strided
// tensors; on a device without views or in-place ops (the gonum example),
// the functionalization layer's inner values, contiguous, on which the
// kernel may call ops or read raw data.
//
// # Fake kernels and tracing
//
// compile.Trace in fake mode and compile.Compile run every op on meta
// tensors: a custom op needs a fake kernel (RegisterFake, or Impl for
// "Meta") unless it is CompositeImplicitAutograd or mutates its inputs and
// returns nothing (PyTorch's trivial fake impl). Without one, tracing fails
// with PyTorch 2's "There was no fake impl registered for ..." naming
// library.RegisterFake. Every run of a fake kernel is checked against the
// schema (number and kinds of returns, aliasing), beyond what PyTorch
// checks; OpCheck compares fake and real kernels on samples.
//
// # Autograd
//
// RegisterAutograd is torch.library.register_autograd: the op runs below
// autograd, a SetupContext saves what the Backward needs, and the Backward
// returns one gradient per argument. OpCheck verifies it against finite
// differences (autograd.Gradcheck, in float64).
//
// # Functionalization
//
// CanAutoFunctionalize is PyTorch's predicate for ops a functionalized
// graph can hold as auto_functionalized nodes; the HOP itself belongs to
// the compiler's HOP work. Eagerly, a mutating custom op on a device
// without in-place ops runs on clones of the tensors it writes, whose new
// values then become the arguments' (functional's generic rule).
package library

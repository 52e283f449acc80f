// Package fx is goaten's graph IR, after torch.fx: a Graph is an ordered
// list of Nodes whose opcodes are placeholder (an input), get_attr (an
// attribute of the GraphModule: a constant tensor, a subgraph), call_function
// (a call of an ATen op, *tensor.Op, or of a Target: getitem, a Python
// operator, a higher-order op) and output. Nodes refer to earlier nodes in
// their arguments; each node knows its users.
//
// A GraphModule's Code prints the graph exactly as PyTorch's gm.code does,
// so PyTorch's expected strings are goaten's goldens:
//
//   - node names follow FX's namespace: a call is named after its op ("add",
//     "_softmax"), repeats get "_1", "_2", names Python cannot take get a
//     number ("sum_1"), and an erased node's name is never reused;
//   - arguments print as Python's repr (0.7071067811865476, 1e-05, [-1],
//     torch.float32, device(type='cpu'), kwargs as "dtype = torch.float32");
//   - each line frees the values it used last ("add = ...;  mul = None"), in
//     FX's order; CodeOptions.FreeUnused adds PyTorch 2.x's freeing of
//     unused results.
//
// Editing follows FX too: InsertingBefore/InsertingAfter move the insertion
// point, ReplaceAllUsesWith rewires users, EraseNode refuses a node that is
// still used with FX's message, and Lint checks that the graph is well formed
// (topological order, users in step with arguments, unique names, one
// output, existing attributes), naming the node at fault.
//
// An Interpreter runs a GraphModule through the dispatcher on whatever device
// its inputs are on, freeing each value after its last use, as
// torch.fx.Interpreter; a type embedding *Interpreter overrides its
// per-opcode methods (Placeholder, GetAttr, CallFunction, Output, RunNode)
// and runs with Run. Failures, kernel panics included, come back as a
// *RunError naming the node. ShapeProp is an Interpreter on the meta device
// that records each node's value in its Meta.
//
// The package imports only package tensor, for ops, dtypes, devices and
// tensors.
package fx

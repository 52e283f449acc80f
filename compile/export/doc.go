// Package export is torch.export for goaten: Export traces a module's
// Forward into an ExportedProgram, a functional graph of ATen ops with a
// signature and the state it needs, which prints, runs on any device, and
// saves to one self-contained file that Load reads back.
//
// # The program
//
// Export runs Forward on fake stand-ins of the example inputs (metadata
// only, nothing is computed), functionalized, and lifts the module's state
// to graph inputs in PyTorch's order and with PyTorch's names:
//
//	inputs:  parameters (p_fc1_weight), buffers (b_bn_running_mean),
//	         constant tensors (c_scale, c_lifted_tensor_0), user inputs (x)
//	outputs: buffer mutations, user input mutations, user outputs
//
// A buffer Forward writes in place (batch norm's running statistics) is a
// BUFFER_MUTATION output holding its new value; an input it writes, a
// USER_INPUT_MUTATION output. Constant tensors are tensors Forward reads
// that are neither parameters nor buffers: a module's *tensor.Tensor field
// is named after the field in snake case (or its `export:"name"` tag),
// other tensors lifted_tensor_0, 1, ...
//
// # TorchBind objects and effect tokens
//
// ExportArgs also takes script objects (package torchbind's objects, seed
// 001's TensorQueue) as inputs; an object Forward reads from a module field
// is lifted to a CUSTOM_OBJ input (obj_attr for a field Attr) after the
// constants, and kept in CustomObjs. Forward runs on the objects' fakes.
// Calls that may change an object's state are effectful: a custom op taking
// an object becomes with_effects(token, op, *args), the token a TOKEN input
// (the first placeholder) and a TOKEN output (the first returned value), so
// the calls keep their order:
//
//	def forward(self, token, tq, a):
//	    with_effects = torch._higher_order_ops.effects.with_effects(token, torch.ops.MyCustomClass.for_each_add_.default, tq, a);  token = a = None
//	    getitem = with_effects[0];  with_effects = None
//	    return (getitem, tq)
//
// That is seed 001's spelling, which also leaves method calls as plain
// call_torchbind(obj, 'method', *args) nodes; Options.NewerEffects gives
// newer PyTorch's torch.ops.higher_order.with_effects, around method calls
// too. Module().ForwardArgs runs the program on real objects, which it
// mutates as eager code would, with a fresh token.
//
// ExportedProgram.Module returns an nn.Module whose Forward runs the graph
// with an fx.Interpreter on the device of its inputs and state, and writes
// the buffer mutations back into the buffers. RunDecompositions replaces
// the ops of a decomposition table by what they decompose into, call by
// call, in any program: tokens, objects, mutations, higher-order ops' sub-
// graphs and dynamic sizes are kept, effectful calls are not decomposed.
//
// # Joint graphs
//
// ExportJoint exports Forward and the backward of its scalar loss as one
// graph, as aot_export_module(mod, args, trace_joint=True,
// output_loss_index=i) traces it and _export_forward_backward labels it:
// the inputs are Export's; the outputs are the buffer mutations, the user
// outputs (the loss a LOSS_OUTPUT), then the gradients of the parameters
// (GRADIENT_TO_PARAMETER) and of the user inputs that require grad
// (GRADIENT_TO_USER_INPUT). The backward starts from ones_like(loss)
// (traced as its decomposition, full_like(loss, 1)), so the graph has no
// tangent inputs. GraphSignature.BackwardSignature() names the gradient
// outputs; RunJoint runs the program and returns the loss and the
// gradients by name. Save and Load keep the loss and gradient specs.
//
// # Dynamic dimensions
//
// Dimensions declared with Dim are recorded as symbols (s0, s1, ...) with
// their ranges, printed in the program's placeholders and range
// constraints, and checked at call time in PyTorch's words ("Expected input
// at *args[0].shape[0] to be <= 1024, but got 2000"). Export traces
// Forward a second time with the dynamic sizes at sentinel values
// (compile.Symbolize): every int of the graph that depends on them is
// computed from sym_size.int nodes of the user inputs and operator nodes
// (sym_size_int = torch.ops.aten.sym_size.int(x, 0); mul = sym_size_int *
// 3), so the graph holds for every size in range. A graph that depends on
// a size in another way (Forward branches on it, batch norm's n/(n-1) in
// training mode, a constant of that size) is refused as PyTorch's
// "Constraints violated". The sentinels are large (1009, 1013, ...); a
// Forward that cannot run at them (a slice of a fixed-size table by the
// sequence length, as the GPT's positions) is traced again with the Dims
// past their Max probed within their ranges (compile.SymbolizeWithin).
// The sizes of the values the graph computes print in the symbols, as
// print_readable shows them ("f32[s0*s1, 64]", and "Sym(4*s0)" for the
// sizes themselves), and are saved as expressions (as_expr, with the size
// at export as the hint; strides are saved as their values at export).
//
// # The archive
//
// Save writes a zip file laid out as PyTorch's PT2 archive:
//
//	archive/archive_format                    "goaten-export"
//	archive/archive_version                   "1"
//	archive/models/model.json                 graph, signature, range constraints
//	archive/data/weights/model.safetensors    parameters and persistent buffers
//	archive/data/constants/model.safetensors  constants and non-persistent buffers
//	archive/data/custom_objs/model.safetensors the lifted objects' pickle state
//
// model.json follows PyTorch's export serialization schema (version 8.6,
// torch/_export/serde/schema.py) where it fits: nodes with their target
// ("torch.ops.aten.add.Tensor"), inputs as named arguments, outputs, and
// the metadata of every tensor value. A higher-order op (package hop: cond,
// while_loop, map_impl, scan) is a node whose target is
// "torch.ops.higher_order.cond", its positional arguments unnamed, each
// sub-program an as_graph argument holding the sub-GraphModule's whole
// graph (its own inputs, nodes, outputs and tensor values) under its
// attribute name, its results the getitem values that read them; sub-programs
// nest at most 16 deep. A lifted TorchBind object is saved as its pickle
// state (__getstate__), keyed "<name>/<state name>", and Load rebuilds it
// with its registered class's __setstate__; a class that is not
// registered is an error ("Tried to instantiate class 'ns.Name', but it
// does not exist!"). Load needs goaten and the registered
// ops and devices the program names; it returns an error, never panics, on
// a malformed archive, and checks sizes before allocating for them.
package export

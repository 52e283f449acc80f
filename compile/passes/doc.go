// Package passes holds graph passes over compile/fx GraphModules, after
// torch.fx's and Inductor's: DeadCode (FX's eliminate_dead_code), CSE
// (functorch's fx_graph_cse) and FoldConstants (Inductor's constant_fold).
//
// A pass is a Pass, func(*fx.GraphModule) error: it edits the module in
// place, lints it first and returns an *Error naming the node at fault
// rather than leaving a malformed graph. Run applies passes in order and
// lints after each.
//
// All passes share one purity rule, fx's Node.IsImpure: placeholders and
// outputs, calls of ops whose schema writes an argument (Tensor(a!): add_,
// copy_, out= variants, mutable ops of any namespace) or draws random
// numbers (tensor.Schema.IsRandom, PyTorch's nondeterministic_seeded tag),
// and Targets implementing fx.Impure that say so are impure: DeadCode keeps
// them although unused, CSE never merges them, FoldConstants never
// evaluates them. A call with no schema is refused with an error, since
// nothing is known of its effects.
//
// Graphs that still mutate (before functionalization) are handled
// conservatively: CSE forgets every expression seen before a node that may
// write memory (a mutating op, an impure Target), and neither CSE nor
// FoldConstants touches a value that some node writes: an argument the
// schema marks Tensor(a!), an input of an impure Target, or a value such an
// argument aliases through view ops (schema returns Tensor(a)) and getitem.
package passes

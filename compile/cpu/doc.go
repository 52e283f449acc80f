// Package cpu is the CPU compiler backend (the counterpart of Inductor for
// goaten's CPU device) and compile.Compile's default for graphs of CPU
// tensors: it registers Backend with compile.RegisterCPUBackend when it is
// initialized, and package goaten imports it. Pass New(opts) as
// compile.Options.Backend for other options, compile.Eager for the
// dispatcher's calls alone.
//
// Go cannot generate machine code at run time, so the backend interprets,
// but in tiles (numexpr's virtual machine, MonetDB/X100's vectors, Halide's
// compute_at): chains of pointwise ops over one iteration space — with
// scalars, broadcast operands, where and masked_fill, clones into a
// contiguous result (a strided input's gather: attention heads laid out
// for a bmm), the pointwise
// gradients threshold_backward (ReLU's), sigmoid_backward and
// tanh_backward, conversions from and to float16, bfloat16 and float64 at
// the edges, and reductions (sum, mean, amax, amin) or row ops (softmax,
// log_softmax, layer_norm) over the innermost dims, or a sum over outer
// and innermost dims (NCHW over (0, 2, 3), batch norm's backward: each
// row's sum kept in float64, the blocks added once the last tile has run)
// — form fusion groups,
// and each group runs as a flat list of package asm kernel calls over
// tile-sized registers, tile after tile, the tiles shared among the cores.
// A tile is one 4 KiB page of each operand for a group whose kernels take
// about as long as moving its bytes or longer (a sigmoid, gelu, exp or
// softmax chain), a quarter of the L2 cache per operand for one that
// mostly moves bytes (tilesize.go; Options.TileElems fixes one tile for
// every group).
// A chain thus reads its inputs and writes its results once, at the
// memory's speed, where eager mode writes and reads one full-size tensor
// per op, and no op goes through the dispatcher or a meta function.
// Nodes that are not pointwise (matrix products, convolutions, views,
// gathers, random ops) run through the dispatcher as the Eager backend
// runs them.
//
// Results equal the Eager backend's bit for bit (NaN payloads aside): a
// node fuses only when the kernel the tile program calls is the one
// device/cpu calls for it, on the same values in the same order — for a
// reduction, the same per-row kernel on rows of at most 65536 elements
// (float32 only: other dtypes, non-contiguous inputs of reductions, and
// longer rows, whose eager kernels sum in pieces, run through the
// dispatcher), and for a sum over outer and inner dims the row sums added
// in device/cpu's order (outer blocks of at least 2, rows of at least 16
// elements: its other layouts run through the dispatcher).
//
// Where a group runs: a group closes when a node outside it reads one of
// its values (or at a node that mutates an argument) and runs where its
// last member was, so every other node keeps its place in the graph's
// order. Autograd needs the dispatcher's calls: with grad mode on and an
// input that requires grad, the graph runs as the Eager backend runs it
// (training graphs from AOT autograd run fused: their inputs are detached).
//
// Memory: inside a group, registers are assigned by liveness; across the
// graph, the storages of dead intermediates are kept in an arena and
// handed to later results (tensor.WithAllocator), so that a warm call
// allocates new memory only for the tensors it returns. The headers of
// values no caller sees (views, lists of views, group outputs) are the
// arena's too, from call to call. An op outside the groups with an out
// kernel (tensor.OutKernel, which device/cpu registers for the ops the
// compiled models call) runs it into results laid out when the plan was
// made, without the dispatcher (outstep.go). Calls made from factories alone (a causal mask of full and
// triu) run once, when the plan is made: their values are the plan's
// constants (foldConstants).
//
// Describe prints the plan of a graph: its folded constants, its
// dispatcher calls and each group's tile program.
package cpu

// Package compile is goaten's torch.compile and make_fx: Trace records a Go
// function of tensors as an FX graph (package compile/fx) on fake or real
// tensors; Compile wraps a function so that each call checks the guards of
// the graphs it has traced (dtypes, sizes, strides, devices, grad mode,
// custom objects' state), runs the matching graph or traces a new one, and
// makes dims that change dynamic; TraceJoint and the training path of
// Compile are AOT autograd (a forward and a backward graph run as one
// autograd function); RunDecompositions rewrites a graph through a
// decomposition table.
//
// A Backend turns a traced graph into a Runnable. Eager runs the graph's
// calls through the dispatcher, so every registered device runs compiled
// code. Options.Backend's default, DefaultBackend, gives graphs whose
// inputs are CPU tensors to the CPU compiler backend of package
// compile/cpu — pointwise chains and their reductions fused into tile
// programs over package asm's kernels, intermediates recycled by a memory
// plan, results equal to Eager's — and the others to Eager. compile/cpu
// imports this package, so it registers itself (RegisterCPUBackend) when a
// program links it; package goaten imports it, so a program that uses
// goaten's ops has it, and one built on package tensor alone compiles with
// Eager.
package compile

package cpu

import (
	"slices"
	"strings"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/compile/passes"
	"github.com/goaten/goaten/tensor"
)

// foldConstants evaluates, once, when the plan is made, the calls whose
// value is the same at every call: pure aten calls all of whose node
// inputs are such calls — factories (full, arange, zeros, scalar_tensor)
// and what the graph derives from them alone, as the causal mask an
// attention block makes with full and triu. Their values become the plan's
// constants: a warm call neither runs nor allocates them.
//
// Not folded: calls that read a graph input or an attribute (a parameter
// changes between calls: an optimizer updates it in place), values the
// graph returns or that alias one (each call returns new memory), values
// some node writes, impure calls (random ops), calls of other namespaces,
// results of more than passes.FactoryFoldLimit elements (cheaper to
// recompute than to keep), and results not laid out as planned. A call
// that fails is left to fail at run time, with the node named.
//
// It returns the folded nodes' values and removes those nodes from calls.
func (pp *planner) foldConstants(nodes []*fx.Node, pos map[*fx.Node]int, calls map[*fx.Node]*compile.BoundCall, results map[*fx.Node]bool) map[*fx.Node]*tensor.Tensor {
	keep := fx.Written(pp.gm.Graph) // written, or aliasing what the graph returns
	for r := range results {
		fx.Aliases(r, keep)
	}
	folded := map[*fx.Node]*tensor.Tensor{}
	var slots []any
	for _, n := range nodes {
		c := calls[n]
		if c == nil || c.Op() == nil || keep[n] || n.IsImpure() || !strings.HasPrefix(c.Op().Name, "aten::") {
			continue
		}
		want, ok := pp.vals[n].(*tensor.Tensor)
		if !ok || want == nil || want.Numel() > passes.FactoryFoldLimit {
			continue
		}
		constant := true
		for _, in := range n.InputNodes() {
			if folded[in] == nil {
				constant = false
				break
			}
		}
		if !constant {
			continue
		}
		if slots == nil {
			slots = make([]any, len(nodes))
		}
		var v any
		if passes.Isolated(func() { v = c.Invoke(slots) }) != nil {
			continue
		}
		t, ok := v.(*tensor.Tensor)
		if !ok || t == nil || t.Device() != tensor.CPU || t.DType() != want.DType() || t.StorageOffset() != want.StorageOffset() ||
			!slices.Equal(t.Sizes(), want.Sizes()) || !slices.Equal(t.Strides(), want.Strides()) {
			continue
		}
		folded[n] = t
		slots[pos[n]] = t
	}
	for n := range folded {
		delete(calls, n)
	}
	return folded
}

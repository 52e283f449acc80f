package compile

import (
	"fmt"
	"strconv"

	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// Unbacked sizes. A size that depends on data (a cond whose branches return
// tensors of different sizes) has no value while tracing: PyTorch gives it
// an unbacked symbol, u0, u1, ... A fake trace here gives such a dim the
// hint of its symbol, a size no program uses (unbackedHints[k] for uk), so
// that the ops after it trace with their metadata; printers show the hint
// as the symbol (UnbackedName). The graph computes the real size when it
// runs. An int of the graph equal to a hint would bake the size in: the
// trace refuses it as data-dependent (Compile without Fullgraph then runs
// the function in segments).
var unbackedHints = []int{1000003, 1000033, 1000037, 1000039, 1000081, 1000099, 1000117, 1000121}

// UnbackedName returns the unbacked symbol a fake size stands for ("u0"),
// if it is one.
func UnbackedName(size int) (string, bool) {
	for k, h := range unbackedHints {
		if h == size {
			return "u" + strconv.Itoa(k), true
		}
	}
	return "", false
}

// UnbackedSymbols is how many unbacked symbols exist (u0 ... u<n-1>).
func UnbackedSymbols() int { return len(unbackedHints) }

// NewUnbacked makes the trace's next unbacked symbol and returns the size
// fake tensors take for it.
func (h *HOPTracer) NewUnbacked() int {
	root := h.tr
	for root.outer != nil {
		root = root.outer
	}
	if root.unbacked == len(unbackedHints) {
		tensor.Panicf("compile: more than %d data-dependent sizes in one trace", len(unbackedHints))
	}
	root.unbacked++
	return unbackedHints[root.unbacked-1]
}

// checkUnbacked refuses a graph (or one of its sub-graphs) that has an int
// argument equal to an unbacked hint, or within maxCoef of one: the size
// was read while tracing.
func checkUnbacked(gm *fx.GraphModule, n int) error {
	if n == 0 {
		return nil
	}
	var bad string
	var visit func(v any)
	visit = func(v any) {
		switch x := v.(type) {
		case int:
			for k, h := range unbackedHints[:n] {
				if x >= h-maxCoef && x <= h+maxCoef && bad == "" {
					bad = fmt.Sprintf("u%d", k)
					if x != h {
						bad = fmt.Sprintf("u%d %+d", k, x-h)
					}
				}
			}
		case []any:
			for _, e := range x {
				visit(e)
			}
		case fx.Tuple:
			for _, e := range x {
				visit(e)
			}
		}
	}
	for _, node := range gm.Graph.Nodes() {
		if node.Op != fx.OpCallFunction {
			continue
		}
		visit(node.Args())
		for _, kw := range node.Kwargs() {
			visit(kw.Value)
		}
		if bad != "" {
			return &tensor.Error{Kind: tensor.RuntimeError, Msg: fmt.Sprintf(
				"Could not guard on data-dependent expression %s: node %s uses the size as an int\n(goaten: a size that %s; compiled without Fullgraph, the function runs in segments)",
				bad, node.Name, tensor.DataDependentMsg)}
		}
	}
	for _, name := range gm.AttrNames() {
		if v, _ := gm.Attr(name); v != nil {
			if sub, ok := v.(*fx.GraphModule); ok {
				if err := checkUnbacked(sub, n); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// UnbackedHint returns the size fake tensors take for the unbacked symbol
// name ("u0").
func UnbackedHint(name string) (int, bool) {
	if len(name) < 2 || name[0] != 'u' {
		return 0, false
	}
	k, err := strconv.Atoi(name[1:])
	if err != nil || k < 0 || k >= len(unbackedHints) || "u"+strconv.Itoa(k) != name {
		return 0, false
	}
	return unbackedHints[k], true
}

package compile

import (
	"fmt"
	"strings"

	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// RunDecompositions returns gm with the ops of table replaced by their
// decompositions (ExportedProgram.run_decompositions, make_fx over an
// Interpreter of the graph): the graph is run by the Interpreter under a
// fake trace with the table, on its placeholders' example values.
func RunDecompositions(gm *fx.GraphModule, table Decompositions) (*fx.GraphModule, error) {
	var inputs []*tensor.Tensor
	var names []string
	for _, p := range gm.Graph.Placeholders() {
		v, ok := p.Meta[fx.MetaVal].(*tensor.Tensor)
		if !ok {
			return nil, fmt.Errorf("compile.RunDecompositions: placeholder %s has no example value (meta %q)", p.Name, fx.MetaVal)
		}
		inputs = append(inputs, v)
		names = append(names, strings.TrimSuffix(p.Name, "_1"))
	}
	run := func(in ...*tensor.Tensor) any {
		args := make([]any, len(in))
		for i, x := range in {
			args[i] = x
		}
		res, err := fx.NewInterpreter(gm).Run(args...)
		if err != nil {
			panic(asTensorError(err))
		}
		return res
	}
	return Trace(run, inputs, TraceOptions{Mode: Fake, Decompositions: table, ArgNames: names})
}

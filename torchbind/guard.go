package torchbind

import (
	"fmt"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/tensor"
)

// StateLeaves is the object's flattened state (__obj_flatten__) as the
// leaves compile.Compile guards on (compile.StatefulObject): each tensor,
// in the order ToFake fakifies them, the length of each list, and every
// other value. Paths name them from the state's names: "queue[3]",
// "init_tensor_"; a list's length is a Len leaf at the list's path.
func (o *Object) StateLeaves() []compile.StateLeaf {
	var out []compile.StateLeaf
	for _, a := range o.Flatten() {
		out = appendLeaves(out, a.Name, a.Value)
	}
	return out
}

// appendLeaves walks a value of the flattened state as fakifyValue does.
func appendLeaves(out []compile.StateLeaf, path string, v any) []compile.StateLeaf {
	switch x := v.(type) {
	case *tensor.Tensor:
		if x == nil {
			return append(out, compile.StateLeaf{Path: path, Value: nil})
		}
		return append(out, compile.StateLeaf{Path: path, Value: x})
	case []*tensor.Tensor:
		out = append(out, compile.StateLeaf{Path: path, Len: true, Value: len(x)})
		for i, t := range x {
			out = appendLeaves(out, fmt.Sprintf("%s[%d]", path, i), t)
		}
		return out
	case Flat:
		out = append(out, compile.StateLeaf{Path: path, Len: true, Value: len(x)})
		for _, a := range x {
			out = appendLeaves(out, path+"."+a.Name, a.Value)
		}
		return out
	case []any:
		out = append(out, compile.StateLeaf{Path: path, Len: true, Value: len(x)})
		for i, e := range x {
			out = appendLeaves(out, fmt.Sprintf("%s[%d]", path, i), e)
		}
		return out
	}
	return append(out, compile.StateLeaf{Path: path, Value: v})
}

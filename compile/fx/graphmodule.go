package fx

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/goaten/goaten/tensor"
)

// GraphModule is a graph with the attributes its get_attr nodes read:
// constant tensors ("_tensor_constant0"), subgraphs of higher-order ops
// ("true_graph_0", themselves GraphModules) and, later, custom objects.
type GraphModule struct {
	Graph *Graph
	attrs map[string]any
	order []string // attribute names in the order they were set
}

// NewGraphModule makes g the graph of a new module. A graph belongs to at
// most one module.
func NewGraphModule(g *Graph) *GraphModule {
	if g.owner != nil {
		tensor.Panicf("fx: the graph already belongs to a GraphModule")
	}
	gm := &GraphModule{Graph: g, attrs: map[string]any{}}
	g.owner = gm
	return gm
}

// SetAttr sets the attribute name (a plain name, or a dotted path through
// sub-GraphModules, "sub.weight").
func (gm *GraphModule) SetAttr(name string, v any) {
	if name == "" {
		tensor.Panicf("fx: empty attribute name")
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		parent, ok := gm.Attr(name[:i])
		sub, isGM := parent.(*GraphModule)
		if !ok || !isGM {
			tensor.Panicf("fx: SetAttr %q: %q is not a GraphModule attribute", name, name[:i])
		}
		sub.SetAttr(name[i+1:], v)
		return
	}
	if _, ok := gm.attrs[name]; !ok {
		gm.order = append(gm.order, name)
	}
	gm.attrs[name] = v
}

// DelAttr removes the attribute at the qualified name ("c", "sub.weight")
// and reports whether it was there, as Python's delattr on the module.
func (gm *GraphModule) DelAttr(qualname string) bool {
	owner, name := gm, qualname
	if i := strings.LastIndexByte(qualname, '.'); i >= 0 {
		parent, ok := gm.Attr(qualname[:i])
		sub, isGM := parent.(*GraphModule)
		if !ok || !isGM {
			return false
		}
		owner, name = sub, qualname[i+1:]
	}
	if _, ok := owner.attrs[name]; !ok {
		return false
	}
	delete(owner.attrs, name)
	for i, x := range owner.order {
		if x == name {
			owner.order = append(owner.order[:i], owner.order[i+1:]...)
			break
		}
	}
	return true
}

// Attr returns the attribute at the qualified name.
func (gm *GraphModule) Attr(qualname string) (any, bool) {
	cur := gm
	parts := strings.Split(qualname, ".")
	for i, p := range parts {
		v, ok := cur.attrs[p]
		if !ok {
			return nil, false
		}
		if i == len(parts)-1 {
			return v, true
		}
		if cur, ok = v.(*GraphModule); !ok {
			return nil, false
		}
	}
	return nil, false
}

// AttrNames lists the module's own attributes in the order they were first
// set.
func (gm *GraphModule) AttrNames() []string { return append([]string(nil), gm.order...) }

// FreshAttrName returns prefix followed by the smallest number >= 0 that is
// not an attribute yet, as FX's tracers name constants and subgraphs
// ("_tensor_constant" -> "_tensor_constant0", "true_graph_" ->
// "true_graph_0").
func (gm *GraphModule) FreshAttrName(prefix string) string {
	for i := 0; ; i++ {
		name := prefix + strconv.Itoa(i)
		if _, ok := gm.attrs[name]; !ok {
			return name
		}
	}
}

// AddConstant stores t as a fresh "_tensor_constantN" attribute and returns
// a get_attr node reading it, inserted at the graph's insertion point.
func (gm *GraphModule) AddConstant(t *tensor.Tensor) *Node {
	name := gm.FreshAttrName("_tensor_constant")
	gm.SetAttr(name, t)
	return gm.Graph.GetAttr(name)
}

// Code returns the source of the module's forward exactly as PyTorch 1.13's
// gm.code: "\n\n\ndef forward(self, x_1):\n    mul = ...\n    return mul_1\n    ".
func (gm *GraphModule) Code() string { return gm.Graph.PythonCode(CodeOptions{}) }

// CodeWith is Code printed under other options (PyTorch 2.x's liveness).
func (gm *GraphModule) CodeWith(opts CodeOptions) string { return gm.Graph.PythonCode(opts) }

// checkAttrPath reports FX's lint error when a get_attr target does not name
// an attribute.
func (gm *GraphModule) checkAttrPath(n *Node, target string) error {
	cur := gm
	atoms := strings.Split(target, ".")
	for i, atom := range atoms {
		v, ok := cur.attrs[atom]
		if !ok || v == nil {
			return &Error{Node: n, Kind: tensor.RuntimeError, Msg: fmt.Sprintf(
				"Node %s target %s references nonexistent attribute %s of %s",
				n.Name, target, atom, strings.Join(atoms[:i], "."))}
		}
		if i < len(atoms)-1 {
			sub, isGM := v.(*GraphModule)
			if !isGM {
				return &Error{Node: n, Kind: tensor.RuntimeError, Msg: fmt.Sprintf(
					"Node %s target %s references nonexistent attribute %s of %s",
					n.Name, target, atoms[i+1], strings.Join(atoms[:i+1], "."))}
			}
			cur = sub
		}
	}
	return nil
}

// Lint lints the graph and, recursively, every sub-GraphModule.
func (gm *GraphModule) Lint() error {
	if err := gm.Graph.Lint(); err != nil {
		return err
	}
	for _, name := range gm.order {
		if sub, ok := gm.attrs[name].(*GraphModule); ok {
			if err := sub.Lint(); err != nil {
				return err
			}
		}
	}
	return nil
}

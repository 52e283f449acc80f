package autograd

import (
	"sync/atomic"

	"github.com/goaten/goaten/tensor"
)

// Node is a function of the backward graph (PyTorch's grad_fn): it takes
// the gradients of the outputs of one recorded forward call and returns
// the gradients of its inputs, which flow along its edges.
type Node struct {
	name string
	fn   backwardFn
	next []Edge
	outs []varMeta // metadata of the forward outputs (this node's inputs)
	seq  uint64
	// hooks registered on tensors that are outputs of this node, by output.
	hooks map[int][]*hookEntry
}

// Edge points at one input of a Node: the gradient of a tensor flows to
// input Input of Node. The zero Edge leads nowhere.
type Edge struct {
	Node  *Node
	Input int
}

// Name is PyTorch's name for the node ("MulBackward0", "AccumulateGrad").
func (n *Node) Name() string { return n.name }

// Next lists the edges the node's gradients flow along, one per input.
func (n *Node) Next() []Edge { return n.next }

// varMeta is the metadata a gradient must have.
type varMeta struct {
	sizes  []int
	dtype  tensor.DType
	device tensor.Device
}

func metaOf(t *T) varMeta {
	return varMeta{sizes: t.Shape(), dtype: t.DType(), device: t.Device()}
}

// backwardFn is what a node computes.
type backwardFn interface {
	// apply maps the output gradients (nil where undefined) to one
	// gradient per next edge (nil where none).
	apply(n *Node, grads []*T, create bool) []*T
	// release drops what the function saved (after a backward pass that
	// does not retain the graph).
	release()
}

var seqCounter atomic.Uint64

func newNode(name string, fn backwardFn, next []Edge, outs []varMeta) *Node {
	return &Node{name: name, fn: fn, next: next, outs: outs, seq: seqCounter.Add(1)}
}

// GradFn returns the node that produced t, or nil for a leaf.
func GradFn(t *T) *Node {
	m := getMeta(t)
	if m == nil {
		return nil
	}
	if m.view != nil {
		refresh(t, m)
	}
	return m.gradFn
}

// GradientEdge returns where t's gradient flows: its GradFn output, or
// the AccumulateGrad node of a leaf that requires grad.
func GradientEdge(t *T) Edge { return gradEdge(t) }

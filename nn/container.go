package nn

import (
	"strconv"

	"github.com/goaten/goaten/tensor"
)

// Layer is a module whose Forward maps one tensor to one tensor: what
// Sequential chains. Most layers are Layers; Bilinear, EmbeddingBag and the
// losses take more inputs and are not.
type Layer interface {
	Module
	Forward(x *T) *T
}

// absIndex is a list index that may count from the end, checked as
// PyTorch's containers check it.
func absIndex(i, n int) int {
	if i < -n || i >= n {
		tensor.IndexPanicf("index %d is out of range", i)
	}
	if i < 0 {
		i += n
	}
	return i
}

// renumber names the children "0", "1", ... in order.
func (b *Base) renumber() {
	for i := range b.children {
		b.children[i].name = strconv.Itoa(i)
	}
}

// insertChild puts m at position i of the children and renumbers them.
func (b *Base) insertChild(i int, m Module) {
	b.children = append(b.children, entry[Module]{})
	copy(b.children[i+1:], b.children[i:])
	b.children[i] = entry[Module]{v: m}
	b.renumber()
}

// Sequential chains layers: its Forward feeds each layer's output to the
// next (nn.Sequential). The layers are its sub-modules "0", "1", ..., so
// its state dict has PyTorch's keys ("0.weight", "2.bias").
type Sequential struct{ Base }

// NewSequential makes nn.Sequential(layers...).
func NewSequential(layers ...Layer) *Sequential {
	s := &Sequential{}
	s.SetName("Sequential")
	for _, l := range layers {
		s.Append(l)
	}
	return s
}

// Append adds l at the end, named by its position (append).
func (s *Sequential) Append(l Layer) *Sequential {
	s.RegisterModule(strconv.Itoa(len(s.children)), l)
	return s
}

// AddModule adds l at the end under a name of its own (add_module, or the
// keys of the OrderedDict PyTorch's Sequential also takes).
func (s *Sequential) AddModule(name string, l Layer) *Sequential {
	s.RegisterModule(name, l)
	return s
}

// Insert puts l before position i (a negative i counts from the end) and
// renumbers the layers (insert).
func (s *Sequential) Insert(i int, l Layer) *Sequential {
	n := len(s.children)
	if i < -n || i > n {
		tensor.IndexPanicf("Index out of range: %d", i)
	}
	if i < 0 {
		i += n
	}
	s.insertChild(i, l)
	return s
}

// At is s[i]; a negative i counts from the end.
func (s *Sequential) At(i int) Layer { return s.children[absIndex(i, len(s.children))].v.(Layer) }

// Len is the number of layers.
func (s *Sequential) Len() int { return len(s.children) }

// Layers lists the layers in order.
func (s *Sequential) Layers() []Layer {
	out := make([]Layer, len(s.children))
	for i, c := range s.children {
		out[i] = c.v.(Layer)
	}
	return out
}

// Forward runs the layers in order.
func (s *Sequential) Forward(x *T) *T {
	for _, c := range s.children {
		x = c.v.(Layer).Forward(x)
	}
	return x
}

func (s *Sequential) String() string { return Repr(s) }

// ModuleList holds sub-modules in a list, registered as "0", "1", ...
// (nn.ModuleList). It has no Forward: the module that owns it calls its
// elements.
type ModuleList struct{ Base }

// NewModuleList makes nn.ModuleList(modules).
func NewModuleList(modules ...Module) *ModuleList {
	l := &ModuleList{}
	l.SetName("ModuleList")
	return l.Extend(modules...)
}

// Append adds m at the end.
func (l *ModuleList) Append(m Module) *ModuleList {
	l.RegisterModule(strconv.Itoa(len(l.children)), m)
	return l
}

// Extend appends the modules in order.
func (l *ModuleList) Extend(modules ...Module) *ModuleList {
	for _, m := range modules {
		l.Append(m)
	}
	return l
}

// Insert puts m before position i (0 <= i <= Len) and renumbers.
func (l *ModuleList) Insert(i int, m Module) {
	if i < 0 || i > len(l.children) {
		tensor.IndexPanicf("index %d is out of range", i)
	}
	l.insertChild(i, m)
}

// At is l[i]; a negative i counts from the end.
func (l *ModuleList) At(i int) Module { return l.children[absIndex(i, len(l.children))].v }

// Pop removes l[i], renumbers the rest and returns it.
func (l *ModuleList) Pop(i int) Module {
	i = absIndex(i, len(l.children))
	m := l.children[i].v
	l.children = append(l.children[:i], l.children[i+1:]...)
	l.renumber()
	return m
}

// Len is the number of modules.
func (l *ModuleList) Len() int { return len(l.children) }

// Modules lists the modules in order.
func (l *ModuleList) Modules() []Module {
	out := make([]Module, len(l.children))
	for i, c := range l.children {
		out[i] = c.v
	}
	return out
}

func (l *ModuleList) String() string { return Repr(l) }

// ModuleDict holds sub-modules by name, in insertion order (nn.ModuleDict).
type ModuleDict struct{ Base }

// NewModuleDict makes an empty nn.ModuleDict().
func NewModuleDict() *ModuleDict {
	d := &ModuleDict{}
	d.SetName("ModuleDict")
	return d
}

// Set is d[key] = m: a new key goes at the end, an existing one keeps its
// place.
func (d *ModuleDict) Set(key string, m Module) *ModuleDict {
	for i, c := range d.children {
		if c.name == key {
			d.children[i].v = m
			return d
		}
	}
	d.RegisterModule(key, m)
	return d
}

// Get is d[key].
func (d *ModuleDict) Get(key string) (Module, bool) {
	for _, c := range d.children {
		if c.name == key {
			return c.v, true
		}
	}
	return nil, false
}

// Pop removes key and returns its module; a missing key panics with
// PyTorch's KeyError text (as an IndexError).
func (d *ModuleDict) Pop(key string) Module {
	for i, c := range d.children {
		if c.name == key {
			d.children = append(d.children[:i], d.children[i+1:]...)
			return c.v
		}
	}
	tensor.IndexPanicf("'%s'", key)
	return nil
}

// Keys lists the keys in order.
func (d *ModuleDict) Keys() []string {
	out := make([]string, len(d.children))
	for i, c := range d.children {
		out[i] = c.name
	}
	return out
}

// Len is the number of modules.
func (d *ModuleDict) Len() int { return len(d.children) }

func (d *ModuleDict) String() string { return Repr(d) }

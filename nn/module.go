// Package nn is torch.nn for Go: modules with named parameters, buffers and
// sub-modules, PyTorch's layers with their constructors, defaults and
// initialisation, and state dicts that load what PyTorch saved.
//
// # Layers
//
// Each layer is a struct made by New<Class>, PyTorch's class name:
// NewLinear, NewConv2d, NewBatchNorm2d, NewEmbedding, NewReLU,
// NewCrossEntropyLoss, NewSequential... The constructor's parameters are
// PyTorch's arguments that have no default, in order; every argument with
// a default is a trailing functional option named after PyTorch's keyword,
// in Go casing:
//
//	nn.NewConv2d(3, 16, 3, nn.Stride(2), nn.Padding(1), nn.Bias(false)) // nn.Conv2d(3, 16, 3, stride=2, padding=1, bias=False)
//	nn.NewBatchNorm1d(64, nn.Momentum(0.01), nn.Eps(1e-3))             // nn.BatchNorm1d(64, momentum=0.01, eps=1e-3)
//	nn.NewDropout(nn.P(0.1))                                            // nn.Dropout(p=0.1)
//	nn.NewCrossEntropyLoss(nn.Reduction("sum"), nn.LabelSmoothing(0.1)) // nn.CrossEntropyLoss(reduction='sum', label_smoothing=0.1)
//
// Int-or-tuple arguments are an int or a []int (kernel sizes, through the
// Size constraint) or variadic ints (nn.Stride(2), nn.Stride(2, 1));
// Optional[...] arguments PyTorch defaults to None are options that are
// simply left out (nn.PaddingIdx, nn.MaxNorm), with a named option where
// None means something (nn.MomentumNone); strings that PyTorch takes
// are strings (nn.PaddingMode("reflect"), nn.Reduction("none"), never the
// aten ops' integer enums). nn.DType and nn.Device are the factory
// keywords; Kw passes any keyword by name. An option the class does not
// take panics with PyTorch's TypeError, a bad value with its ValueError,
// and Forward checks its input as PyTorch does, with PyTorch's messages.
// Where a keyword's name is taken by a layer the option says whose it is
// (nn.SoftplusThreshold, Softplus's threshold=).
//
// Differences from PyTorch, all deliberate: Softmax, Softmin and LogSoftmax
// require their dim (PyTorch's implicit dim is deprecated); a loss's
// reduction is checked when the loss is made, not at its first call;
// PyTorch's AssertionErrors (an out-of-range padding_idx, Hardtanh's
// bounds, Softmax2d's input, a recurrent cell's input dims) are
// ValueErrors; RNN, LSTM and GRU do not print PyTorch's warning for dropout
// with one layer, nor take packed sequences; sparse embedding gradients
// and the None entries of adaptive pooling sizes are not supported.
//
// Parameters and buffers are registered in PyTorch's order under PyTorch's
// names, so a layer's state dict has PyTorch's keys, and after
// goaten.ManualSeed(s) a layer's initial parameters are, bit for bit, the
// ones torch.manual_seed(s) and the same PyTorch constructor give
// (testdata/nn, recorded by scripts/record_nn.py, holds the evidence).
// Layers export their parameters (Weight, Bias, RunningMean, ...) and
// settings as fields. Forward is each layer's method; a module whose
// Forward maps one tensor to one is a Layer, what Sequential chains.
// Variants PyTorch selects with a flag or an extra forward argument are
// methods: MaxPool2d.ForwardWithIndices (return_indices=True),
// ConvTranspose2d.ForwardOutputSize, EmbeddingBag.ForwardWeighted
// (per_sample_weights). Repr prints a module as PyTorch's repr does.
//
// The recurrent layers NewRNN, NewLSTM and NewGRU (multi-layer,
// bidirectional, batch-first, dropout between layers, LSTM's proj_size)
// and the cells NewRNNCell, NewLSTMCell and NewGRUCell take an optional
// initial state, nil for zeros, and return every tensor PyTorch returns:
//
//	lstm := nn.NewLSTM(10, 20, nn.NumLayers(2), nn.BatchFirst(true), nn.Bidirectional(true))
//	out, h, c := lstm.Forward(x, nil, nil) // out, (h, c) = lstm(x)
//	out, h, c = lstm.Forward(x2, h, c)     // out, (h, c) = lstm(x2, (h, c))
//
// Their parameters have PyTorch's names (weight_ih_l0, bias_hh_l1_reverse,
// weight_hr_l0) and are drawn in PyTorch's order; the layers' Weights hold
// them per layer and direction.
//
// NewTransformer is nn.Transformer (every argument an option with PyTorch's
// default: nn.DModel, nn.NHead, nn.NumEncoderLayers, ...), built of
// TransformerEncoder and TransformerDecoder over copies of one encoder and
// one decoder layer; masks are structs of optional tensors, and
// GenerateSquareSubsequentMask is its causal mask:
//
//	m := nn.NewTransformer(nn.DModel(64), nn.NHead(4), nn.BatchFirst(true))
//	y := m.ForwardMasked(src, tgt, nn.TransformerMasks{TgtMask: nn.GenerateSquareSubsequentMask(tgt.Size(1))})
//
// RMSNorm follows PyTorch 2.4 (PyTorch 1.13, the reference elsewhere, has
// none).
//
// # Modules of your own
//
// A module is a struct that embeds Base and registers its state in its
// constructor, in PyTorch's order:
//
//	type MLP struct {
//		nn.Base
//		FC1, FC2 *nn.Linear
//	}
//
//	func NewMLP() *MLP {
//		m := &MLP{}
//		m.FC1 = nn.Register(m, "fc1", nn.NewLinear(784, 128))
//		m.FC2 = nn.Register(m, "fc2", nn.NewLinear(128, 10))
//		return m
//	}
//
//	func (m *MLP) Forward(x *goaten.Tensor) *goaten.Tensor {
//		return m.FC2.Forward(m.FC1.Forward(x).Relu())
//	}
//
// Base's methods then walk the whole tree with PyTorch's dotted names
// ("fc1.weight", "layers.0.attn.in_proj_weight"): NamedParameters,
// Parameters (registration order, as optimizers take them), NamedBuffers,
// StateDict, LoadStateDict, Train/Eval, ZeroGrad, To. Forward is each
// module's own method with its own signature; export and compile find it by
// reflection.
package nn

import (
	"fmt"
	"sort"
	"strings"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/tensor"
)

// T is the tensor type.
type T = tensor.Tensor

// Module is anything that embeds Base.
type Module interface {
	base() *Base
}

// Base holds a module's parameters, buffers and sub-modules in registration
// order, and its training flag. Embed it in every module.
type Base struct {
	params   []entry[*T]
	buffers  []entry[*T]
	children []entry[Module]
	nonPers  map[string]bool // buffers left out of the state dict
	eval     bool            // false: training (PyTorch's default)
	typeName string          // the class name messages use
}

type entry[V any] struct {
	name string
	v    V
}

func (b *Base) base() *Base { return b }

// RegisterParameter adds a parameter (a leaf that requires grad; nil
// registers the name with no tensor, as PyTorch's register_parameter(name,
// None)) and returns it.
func (b *Base) RegisterParameter(name string, p *T) *T {
	b.checkName(name, "parameter")
	if p != nil && !p.RequiresGrad() && p.DType().IsFloat() {
		autograd.SetRequiresGrad(p, true)
	}
	b.params = append(b.params, entry[*T]{name, p})
	return p
}

// RegisterBuffer adds a buffer (state that is not a parameter, such as
// BatchNorm's running mean); persistent buffers are part of the state dict.
func (b *Base) RegisterBuffer(name string, t *T, persistent bool) *T {
	b.checkName(name, "buffer")
	b.buffers = append(b.buffers, entry[*T]{name, t})
	if !persistent {
		if b.nonPers == nil {
			b.nonPers = map[string]bool{}
		}
		b.nonPers[name] = true
	}
	return t
}

// RegisterModule adds a sub-module.
func (b *Base) RegisterModule(name string, m Module) {
	b.checkName(name, "module")
	b.children = append(b.children, entry[Module]{name, m})
}

// Register adds sub-module m to parent under name and returns m, so a
// constructor can write m.FC1 = nn.Register(m, "fc1", nn.NewLinear(4, 2)).
func Register[M Module](parent Module, name string, m M) M {
	parent.base().RegisterModule(name, m)
	return m
}

func (b *Base) checkName(name, kind string) {
	switch {
	case name == "":
		tensor.Panicf("%s name can't be empty string \"\"", kind)
	case strings.Contains(name, "."):
		tensor.Panicf("%s name can't contain \".\", got: %s", kind, name)
	}
	for _, e := range b.params {
		if e.name == name {
			tensor.Panicf("attribute '%s' already exists", name)
		}
	}
	for _, e := range b.buffers {
		if e.name == name {
			tensor.Panicf("attribute '%s' already exists", name)
		}
	}
	for _, e := range b.children {
		if e.name == name {
			tensor.Panicf("attribute '%s' already exists", name)
		}
	}
}

// Named is a tensor with its dotted name.
type Named struct {
	Name   string
	Tensor *T
}

// NamedModule is a module with its dotted name ("" for the root).
type NamedModule struct {
	Name   string
	Module Module
}

// NamedModules lists the module and all its descendants, depth first in
// registration order, each once (named_modules).
func (b *Base) NamedModules() []NamedModule {
	var out []NamedModule
	b.walk(true, func(prefix string, _ *Base, mod Module) { out = append(out, NamedModule{prefix, mod}) })
	return out
}

// walk calls f on the module and all its descendants, depth first in
// registration order, each once, with its dotted name when named is set
// ("" otherwise: the names cost a string each).
func (b *Base) walk(named bool, f func(prefix string, m *Base, mod Module)) {
	seen := map[*Base]bool{}
	var rec func(prefix string, m *Base, mod Module)
	rec = func(prefix string, m *Base, mod Module) {
		if seen[m] {
			return
		}
		seen[m] = true
		f(prefix, m, mod)
		for _, c := range m.children {
			name := ""
			if named {
				name = join(prefix, c.name)
			}
			rec(name, c.v.base(), c.v)
		}
	}
	rec("", b, b)
}

// Children lists the direct sub-modules with their names.
func (b *Base) Children() []NamedModule {
	out := make([]NamedModule, len(b.children))
	for i, c := range b.children {
		out[i] = NamedModule{c.name, c.v}
	}
	return out
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// NamedParameters lists every parameter of the tree with its dotted name,
// in registration order, each tensor once (named_parameters).
func (b *Base) NamedParameters() []Named {
	var out []Named
	b.eachParam(true, func(name string, p *T) { out = append(out, Named{name, p}) })
	return out
}

// Parameters lists the parameters in registration order (what optimizers
// take), without making their names (a training loop's ZeroGrad calls it
// every step).
func (b *Base) Parameters() []*T {
	var out []*T
	b.eachParam(false, func(_ string, p *T) { out = append(out, p) })
	return out
}

// eachParam calls f on every parameter of the tree in registration order,
// each tensor once, with its dotted name when named is set.
func (b *Base) eachParam(named bool, f func(name string, p *T)) {
	seen := map[*T]bool{}
	b.walk(named, func(prefix string, m *Base, _ Module) {
		for _, e := range m.params {
			if e.v == nil || seen[e.v] {
				continue
			}
			seen[e.v] = true
			name := ""
			if named {
				name = join(prefix, e.name)
			}
			f(name, e.v)
		}
	})
}

// NamedBuffers lists every buffer of the tree with its dotted name.
func (b *Base) NamedBuffers() []Named {
	var out []Named
	for _, nm := range b.NamedModules() {
		for _, e := range nm.Module.base().buffers {
			if e.v != nil {
				out = append(out, Named{join(nm.Name, e.name), e.v})
			}
		}
	}
	return out
}

// IsPersistent reports whether the buffer at the dotted name is part of the
// state dict.
func (b *Base) IsPersistent(name string) bool {
	prefix, leaf := "", name
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		prefix, leaf = name[:i], name[i+1:]
	}
	for _, nm := range b.NamedModules() {
		if nm.Name == prefix {
			return !nm.Module.base().nonPers[leaf]
		}
	}
	return false
}

// StateDict is the module's state, parameters then persistent buffers per
// module, in PyTorch's order (state_dict). The tensors are the module's own
// (not copies), detached.
type StateDict struct {
	Keys    []string
	Tensors map[string]*T
}

// StateDict returns the state dict.
func (b *Base) StateDict() *StateDict {
	sd := &StateDict{Tensors: map[string]*T{}}
	for _, nm := range b.NamedModules() {
		m := nm.Module.base()
		add := func(name string, t *T) {
			k := join(nm.Name, name)
			sd.Keys = append(sd.Keys, k)
			sd.Tensors[k] = t.Detach()
		}
		for _, e := range m.params {
			if e.v != nil {
				add(e.name, e.v)
			}
		}
		for _, e := range m.buffers {
			if e.v != nil && !m.nonPers[e.name] {
				add(e.name, e.v)
			}
		}
	}
	return sd
}

// LoadStateDict copies the tensors of sd into the module's parameters and
// persistent buffers, by name. With strict, missing and unexpected keys are
// an error in PyTorch's words; a shape mismatch is always one. Nothing is
// copied when an error is returned.
func (b *Base) LoadStateDict(sd map[string]*T, strict bool) error {
	own := b.StateDict()
	var missing, unexpected, mism []string
	for _, k := range own.Keys {
		v, ok := sd[k]
		if !ok {
			missing = append(missing, k)
			continue
		}
		if !sameSizes(v.Sizes(), own.Tensors[k].Sizes()) {
			mism = append(mism, fmt.Sprintf("size mismatch for %s: copying a param with shape %s from checkpoint, the shape in current model is %s.",
				k, sizeRepr(v.Sizes()), sizeRepr(own.Tensors[k].Sizes())))
		}
	}
	for k := range sd {
		if _, ok := own.Tensors[k]; !ok {
			unexpected = append(unexpected, k)
		}
	}
	sort.Strings(unexpected)
	// PyTorch's order: missing, unexpected, then the size mismatches.
	var msgs []string
	if strict {
		if len(missing) > 0 {
			msgs = append(msgs, "Missing key(s) in state_dict: "+quoteJoin(missing)+". ")
		}
		if len(unexpected) > 0 {
			msgs = append(msgs, "Unexpected key(s) in state_dict: "+quoteJoin(unexpected)+". ")
		}
	}
	msgs = append(msgs, mism...)
	if len(msgs) > 0 {
		return fmt.Errorf("Error(s) in loading state_dict for %s:\n\t%s", b.name(), strings.Join(msgs, "\n\t"))
	}
	err := tensor.Try(func() {
		autograd.NoGrad(func() {
			for _, k := range own.Keys {
				if v, ok := sd[k]; ok {
					own.Tensors[k].Copy_(v)
				}
			}
		})
	})
	return err
}

func sameSizes(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// sizeRepr prints sizes as torch.Size does.
func sizeRepr(s []int) string {
	parts := make([]string, len(s))
	for i, n := range s {
		parts[i] = fmt.Sprint(n)
	}
	return "torch.Size([" + strings.Join(parts, ", ") + "])"
}

func quoteJoin(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = `"` + k + `"`
	}
	return strings.Join(q, ", ")
}

// SetName sets the name error messages give the module (its PyTorch class
// name: "Linear", "Sequential"); layers set it in their constructors.
func (b *Base) SetName(name string) { b.typeName = name }

func (b *Base) name() string {
	if b.typeName == "" {
		return "Module"
	}
	return b.typeName
}

// Train sets training mode on the module and all its descendants (train()).
func (b *Base) Train() {
	for _, nm := range b.NamedModules() {
		nm.Module.base().eval = false
	}
}

// Eval sets evaluation mode (eval()): dropout off, batch norm on running
// statistics.
func (b *Base) Eval() {
	for _, nm := range b.NamedModules() {
		nm.Module.base().eval = true
	}
}

// Training reports whether the module is in training mode.
func (b *Base) Training() bool { return !b.eval }

// SetToNone is zero_grad's set_to_none=: true (ZeroGrad's default, PyTorch
// 2's) drops the gradients; false (PyTorch 1.13's default) keeps each
// gradient tensor and fills it with zeros.
func SetToNone(b bool) Option { return Option{"set_to_none", b} }

// ZeroGrad resets the gradients of all parameters (zero_grad). By default
// it drops them (set_to_none=True, PyTorch 2's default: the next backward
// pass starts from nothing and p.Grad() is nil until then);
// ZeroGrad(nn.SetToNone(false)) is PyTorch 1.13's default: each gradient
// keeps its tensor, detached from any graph a create_graph backward built
// (a detached tensor sharing its data, where PyTorch's detach_ keeps the
// object), and is filled with zeros, and the next backward adds into it.
func (b *Base) ZeroGrad(opts ...Option) {
	toNone := true
	for _, o := range opts {
		if o.name != "set_to_none" {
			tensor.TypePanicf("Module.zero_grad() got an unexpected keyword argument '%s'", o.name)
		}
		v, ok := o.value.(bool)
		if !ok {
			tensor.TypePanicf("Module.zero_grad(): argument 'set_to_none' must be bool, not %T", o.value)
		}
		toNone = v
	}
	autograd.ZeroGrads(b.Parameters(), toNone)
}

// To moves every parameter and buffer to device dev in place, as PyTorch's
// module.to: each tensor keeps its identity (so a layer's fields and an
// optimizer's parameter list still hold it) and takes the moved data.
func (b *Base) To(dev tensor.Device) {
	for _, nm := range b.NamedModules() {
		m := nm.Module.base()
		for _, e := range append(append([]entry[*T](nil), m.params...), m.buffers...) {
			if e.v != nil && e.v.Device() != dev {
				e.v.SetData(e.v.Detach().ToDevice(dev))
			}
		}
	}
}

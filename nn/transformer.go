package nn

import (
	"math"

	gt "github.com/goaten/goaten"
	nninit "github.com/goaten/goaten/nn/init"
	"github.com/goaten/goaten/tensor"
)

// DropoutP is the dropout= keyword of MultiheadAttention (on the attention
// weights), of the Transformer layers (everywhere they drop) and of RNN,
// LSTM and GRU (on the outputs of every layer but the last): 0 for
// MultiheadAttention and the recurrent layers and 0.1 for the Transformer
// layers by default. (nn.P is the dropout layers' p=.)
func DropoutP(p float64) Option { return Option{"dropout", p} }

// AddBiasKV appends the learnable bias_k and bias_v to the keys and values
// (MultiheadAttention; false by default).
func AddBiasKV(b bool) Option { return Option{"add_bias_kv", b} }

// AddZeroAttn appends a zero key and value (MultiheadAttention).
func AddZeroAttn(b bool) Option { return Option{"add_zero_attn", b} }

// KDim and VDim are the widths of MultiheadAttention's keys and values
// (embed_dim by default); either other than embed_dim gives separate
// q_proj_weight, k_proj_weight and v_proj_weight instead of in_proj_weight.
func KDim(d int) Option { return Option{"kdim", d} }

// VDim is the width of MultiheadAttention's values.
func VDim(d int) Option { return Option{"vdim", d} }

// BatchFirst makes inputs and outputs (batch, seq, feature) instead of
// (seq, batch, feature); false by default.
func BatchFirst(b bool) Option { return Option{"batch_first", b} }

// DimFeedforward is the width of a Transformer layer's feed-forward
// network (2048 by default).
func DimFeedforward(d int) Option { return Option{"dim_feedforward", d} }

// Activation is a Transformer layer's feed-forward activation, "relu" (the
// default) or "gelu".
func Activation(a string) Option { return Option{"activation", a} }

// LayerNormEps is the eps of a Transformer layer's LayerNorms (1e-5).
func LayerNormEps(eps float64) Option { return Option{"layer_norm_eps", eps} }

// NormFirst puts the LayerNorms before attention and the feed-forward
// network (pre-norm) instead of after (false by default).
func NormFirst(b bool) Option { return Option{"norm_first", b} }

// Norm is TransformerEncoder's final normalization (none by default).
func Norm(m Layer) Option { return Option{"norm", m} }

// factory keeps only a constructor's dtype and device keywords, what
// PyTorch passes on to the sub-modules as factory_kwargs.
func factory(k kwargs) kwargs {
	f := kwargs{cls: k.cls, m: map[string]any{}}
	for _, n := range []string{"dtype", "device"} {
		if v, ok := k.m[n]; ok {
			f.m[n] = v
		}
	}
	return f
}

// MultiheadAttention is nn.MultiheadAttention: attention over num_heads
// heads of embed_dim/num_heads, with the q/k/v projections packed in
// in_proj_weight (3·E, E) and in_proj_bias (3·E) as PyTorch stores them
// (or q_proj_weight, k_proj_weight, v_proj_weight when KDim or VDim differ
// from embed_dim), and out_proj. Options: DropoutP, Bias, AddBiasKV,
// AddZeroAttn, KDim, VDim, BatchFirst, DType, Device.
type MultiheadAttention struct {
	Base
	EmbedDim, NumHeads, HeadDim, KDim, VDim int
	Dropout                                 float64
	BatchFirst, AddZeroAttn                 bool
	InProjWeight, InProjBias                *T // InProjWeight is nil with separate projections
	QProjWeight, KProjWeight, VProjWeight   *T // nil when packed
	BiasK, BiasV                            *T // nil without AddBiasKV
	OutProj                                 *Linear
	sameEmbed                               bool
}

// NewMultiheadAttention makes nn.MultiheadAttention(embed_dim, num_heads).
func NewMultiheadAttention(embedDim, numHeads int, opts ...Option) *MultiheadAttention {
	k := parse("MultiheadAttention", opts, "dropout", "bias", "add_bias_kv", "add_zero_attn", "kdim", "vdim", "batch_first", "device", "dtype")
	return newMultiheadAttention(embedDim, numHeads, k, true)
}

func newMultiheadAttention(embedDim, numHeads int, k kwargs, init bool) *MultiheadAttention {
	m := &MultiheadAttention{EmbedDim: embedDim, NumHeads: numHeads}
	m.SetName("MultiheadAttention")
	m.KDim = k.int("kdim", embedDim)
	m.VDim = k.int("vdim", embedDim)
	m.sameEmbed = m.KDim == embedDim && m.VDim == embedDim
	m.Dropout = k.float("dropout", 0)
	m.BatchFirst = k.bool("batch_first", false)
	m.AddZeroAttn = k.bool("add_zero_attn", false)
	if numHeads <= 0 || embedDim%numHeads != 0 {
		tensor.Panicf("embed_dim must be divisible by num_heads")
	}
	m.HeadDim = embedDim / numHeads
	if !m.sameEmbed {
		m.QProjWeight = m.RegisterParameter("q_proj_weight", empty(k, embedDim, embedDim))
		m.KProjWeight = m.RegisterParameter("k_proj_weight", empty(k, embedDim, m.KDim))
		m.VProjWeight = m.RegisterParameter("v_proj_weight", empty(k, embedDim, m.VDim))
		m.RegisterParameter("in_proj_weight", nil)
	} else {
		m.InProjWeight = m.RegisterParameter("in_proj_weight", empty(k, 3*embedDim, embedDim))
		m.RegisterParameter("q_proj_weight", nil)
		m.RegisterParameter("k_proj_weight", nil)
		m.RegisterParameter("v_proj_weight", nil)
	}
	if k.bool("bias", true) {
		m.InProjBias = m.RegisterParameter("in_proj_bias", empty(k, 3*embedDim))
	} else {
		m.RegisterParameter("in_proj_bias", nil)
	}
	fk := factory(k)
	fk.m["bias"] = k.bool("bias", true)
	m.OutProj = Register(m, "out_proj", newLinear("NonDynamicallyQuantizableLinear", embedDim, embedDim, fk, init))
	if k.bool("add_bias_kv", false) {
		m.BiasK = m.RegisterParameter("bias_k", empty(k, 1, 1, embedDim))
		m.BiasV = m.RegisterParameter("bias_v", empty(k, 1, 1, embedDim))
	}
	if init {
		m.resetParameters()
	}
	k.place(m.InProjWeight, m.QProjWeight, m.KProjWeight, m.VProjWeight, m.InProjBias, m.BiasK, m.BiasV)
	return m
}

// resetParameters is MultiheadAttention's _reset_parameters.
func (m *MultiheadAttention) resetParameters() {
	if m.sameEmbed {
		nninit.XavierUniform_(m.InProjWeight, 1)
	} else {
		nninit.XavierUniform_(m.QProjWeight, 1)
		nninit.XavierUniform_(m.KProjWeight, 1)
		nninit.XavierUniform_(m.VProjWeight, 1)
	}
	if m.InProjBias != nil {
		nninit.Constant_(m.InProjBias, 0)
		nninit.Constant_(m.OutProj.Bias, 0)
	}
	if m.BiasK != nil {
		nninit.XavierNormal_(m.BiasK, 1)
	}
	if m.BiasV != nil {
		nninit.XavierNormal_(m.BiasV, 1)
	}
}

// AttentionOptions are MultiheadAttention.forward's keyword arguments; the
// zero value is PyTorch's defaults (no masks, need_weights=True,
// average_attn_weights=True).
type AttentionOptions struct {
	// KeyPaddingMask (N, S) or (S): true (bool) keys are ignored; a float
	// mask is added to the scores.
	KeyPaddingMask *T
	// AttnMask (L, S) or (N·num_heads, L, S): true (bool) positions may
	// not be attended; a float mask is added to the scores.
	AttnMask *T
	// NoWeights is need_weights=False: no attention weights are returned.
	NoWeights bool
	// PerHead is average_attn_weights=False: the weights are returned per
	// head, (N, num_heads, L, S), not averaged over the heads.
	PerHead bool
}

// Forward is self(query, key, value): the attention output and the
// attention weights averaged over the heads. With BatchFirst the inputs are
// (N, L, E), else (L, N, E); unbatched inputs are (L, E).
func (m *MultiheadAttention) Forward(query, key, value *T) (out, weights *T) {
	return m.ForwardOptions(query, key, value, AttentionOptions{})
}

// ForwardOptions is Forward with masks and need_weights and
// average_attn_weights as PyTorch's keywords give them.
func (m *MultiheadAttention) ForwardOptions(query, key, value *T, o AttentionOptions) (out, weights *T) {
	isBatched := query.Dim() == 3
	if kpm := o.KeyPaddingMask; kpm != nil && kpm.DType() != gt.Bool && !kpm.DType().IsFloat() {
		tensor.Panicf("only bool and floating types of key_padding_mask are supported")
	}
	if m.BatchFirst && isBatched {
		// Keep which of query, key and value are the same tensor.
		switch {
		case key == value && query == key:
			query = query.Transpose(1, 0)
			key, value = query, query
		case key == value:
			query, key = query.Transpose(1, 0), key.Transpose(1, 0)
			value = key
		default:
			query, key, value = query.Transpose(1, 0), key.Transpose(1, 0), value.Transpose(1, 0)
		}
	}
	out, weights = m.attention(query, key, value, o)
	if m.BatchFirst && isBatched {
		out = out.Transpose(1, 0)
	}
	return out, weights
}

// inProjectionPacked is F._in_projection_packed.
func inProjectionPacked(q, k, v, w, b *T) (*T, *T, *T) {
	e := q.Size(-1)
	bias := func(b *T) []gt.Option {
		if b == nil {
			return nil
		}
		return []gt.Option{gt.WithBias(b)}
	}
	if k == v {
		if q == k {
			proj := gt.Linear(q, w, bias(b)...)
			proj = proj.Unflatten(-1, []int{3, e}).Unsqueeze(0).Transpose(0, -2).Squeeze(-2).Contiguous()
			return proj.Select(0, 0), proj.Select(0, 1), proj.Select(0, 2)
		}
		ws := w.SplitWithSizes([]int{e, 2 * e})
		var bq, bkv *T
		if b != nil {
			bs := b.SplitWithSizes([]int{e, 2 * e})
			bq, bkv = bs[0], bs[1]
		}
		qp := gt.Linear(q, ws[0], bias(bq)...)
		kv := gt.Linear(k, ws[1], bias(bkv)...)
		kv = kv.Unflatten(-1, []int{2, e}).Unsqueeze(0).Transpose(0, -2).Squeeze(-2).Contiguous()
		return qp, kv.Select(0, 0), kv.Select(0, 1)
	}
	ws := w.Chunk(3)
	bs := []*T{nil, nil, nil}
	if b != nil {
		bs = b.Chunk(3)
	}
	return gt.Linear(q, ws[0], bias(bs[0])...), gt.Linear(k, ws[1], bias(bs[1])...), gt.Linear(v, ws[2], bias(bs[2])...)
}

// attention is F.multi_head_attention_forward on (L, N, E) inputs.
func (m *MultiheadAttention) attention(query, key, value *T, o AttentionOptions) (*T, *T) {
	kpm, mask := o.KeyPaddingMask, o.AttnMask
	isBatched := query.Dim() == 3
	if !isBatched {
		query, key, value = query.Unsqueeze(1), key.Unsqueeze(1), value.Unsqueeze(1)
		if kpm != nil {
			kpm = kpm.Unsqueeze(0)
		}
	}
	tgtLen, bsz, embed := query.Size(0), query.Size(1), query.Size(2)
	if embed != m.EmbedDim {
		tensor.Panicf("was expecting embedding dimension of %d, but got %d", m.EmbedDim, embed)
	}
	h, hd := m.NumHeads, m.HeadDim
	var q, k, v *T
	if m.sameEmbed {
		q, k, v = inProjectionPacked(query, key, value, m.InProjWeight, m.InProjBias)
	} else {
		bs := []*T{nil, nil, nil}
		if m.InProjBias != nil {
			bs = m.InProjBias.Chunk(3)
		}
		lin := func(x, w, b *T) *T {
			if b == nil {
				return gt.Linear(x, w)
			}
			return gt.Linear(x, w, gt.WithBias(b))
		}
		q, k, v = lin(query, m.QProjWeight, bs[0]), lin(key, m.KProjWeight, bs[1]), lin(value, m.VProjWeight, bs[2])
	}
	if mask != nil {
		if mask.DType() != gt.Bool && !mask.DType().IsFloat() {
			tensor.Panicf("Only float, byte, and bool types are supported for attn_mask, not %s", mask.DType())
		}
		srcLen := key.Size(0)
		switch mask.Dim() {
		case 2:
			if mask.Size(0) != tgtLen || mask.Size(1) != srcLen {
				tensor.Panicf("The shape of the 2D attn_mask is %s, but should be (%d, %d).", sizeRepr(mask.Sizes()), tgtLen, srcLen)
			}
			mask = mask.Unsqueeze(0)
		case 3:
			if mask.Size(0) != bsz*h || mask.Size(1) != tgtLen || mask.Size(2) != srcLen {
				tensor.Panicf("The shape of the 3D attn_mask is %s, but should be (%d, %d, %d).", sizeRepr(mask.Sizes()), bsz*h, tgtLen, srcLen)
			}
		default:
			tensor.Panicf("attn_mask's dimension %d is not supported", mask.Dim())
		}
	}
	pad1 := func(t *T) *T { return t.ConstantPadNd([]int{0, 1}) }
	if m.BiasK != nil {
		k = gt.Cat([]*T{k, m.BiasK.Repeat([]int{1, bsz, 1})})
		v = gt.Cat([]*T{v, m.BiasV.Repeat([]int{1, bsz, 1})})
		if mask != nil {
			mask = pad1(mask)
		}
		if kpm != nil {
			kpm = pad1(kpm)
		}
	}
	q = q.Contiguous().View([]int{tgtLen, bsz * h, hd}).Transpose(0, 1)
	k = k.Contiguous().View([]int{k.Size(0), bsz * h, hd}).Transpose(0, 1)
	v = v.Contiguous().View([]int{v.Size(0), bsz * h, hd}).Transpose(0, 1)
	if m.AddZeroAttn {
		z := tensor.FullOf(k.DType(), 0, bsz*h, 1, hd)
		k = gt.Cat([]*T{k, z}, gt.WithDim(1))
		v = gt.Cat([]*T{v, z}, gt.WithDim(1))
		if mask != nil {
			mask = pad1(mask)
		}
		if kpm != nil {
			kpm = pad1(kpm)
		}
	}
	srcLen := k.Size(1)
	if kpm != nil {
		if kpm.Dim() != 2 || kpm.Size(0) != bsz || kpm.Size(1) != srcLen {
			tensor.Panicf("expecting key_padding_mask shape of (%d, %d), but got %s", bsz, srcLen, sizeRepr(kpm.Sizes()))
		}
		kpm = kpm.View([]int{bsz, 1, 1, srcLen}).Expand([]int{-1, h, -1, -1}).Reshape([]int{bsz * h, 1, srcLen})
		switch {
		case mask == nil:
			mask = kpm
		case mask.DType() == gt.Bool:
			mask = mask.LogicalOr(kpm)
		default:
			mask = mask.MaskedFillScalar(kpm, math.Inf(-1))
		}
	}
	if mask != nil && mask.DType() == gt.Bool {
		mask = tensor.FullOf(q.DType(), 0, mask.Sizes()...).MaskedFillScalar(mask, math.Inf(-1))
	}
	qs := q.DivScalar(math.Sqrt(float64(q.Size(2))))
	var w *T
	if mask != nil {
		w = mask.Baddbmm(qs, k.Transpose(-2, -1))
	} else {
		w = qs.Bmm(k.Transpose(-2, -1))
	}
	w = w.Softmax(-1)
	if m.Dropout > 0 && m.Training() {
		w = gt.Dropout(w, m.Dropout, true)
	}
	out := w.Bmm(v)
	out = out.Transpose(0, 1).Contiguous().View([]int{tgtLen * bsz, embed})
	out = m.OutProj.Forward(out)
	out = out.View([]int{tgtLen, bsz, out.Size(1)})
	if o.NoWeights {
		if !isBatched {
			out = out.Squeeze(1)
		}
		return out, nil
	}
	w = w.View([]int{bsz, h, tgtLen, srcLen})
	if !o.PerHead {
		w = w.Sum([]int{1}).DivScalar(float64(h))
	}
	if !isBatched {
		out = out.Squeeze(1)
		w = w.Squeeze(0)
	}
	return out, w
}

func (m *MultiheadAttention) String() string { return Repr(m) }

// feedForward is what the Transformer layers share: the activation, their
// options and the feed-forward block.
type transformerOpts struct {
	dModel, nhead, ff int
	dropout, eps      float64
	activation        string
	batchFirst        bool
	normFirst         bool
	k                 kwargs
}

// layerKeywords are the keywords the Transformer layers take after d_model
// and nhead.
var layerKeywords = []string{"dim_feedforward", "dropout", "activation", "layer_norm_eps", "batch_first", "norm_first", "device", "dtype"}

func parseTransformer(cls string, dModel, nhead int, opts []Option) transformerOpts {
	return transformerOptsOf(parse(cls, opts, layerKeywords...), dModel, nhead)
}

// transformerOptsOf reads the layer keywords of k.
func transformerOptsOf(k kwargs, dModel, nhead int) transformerOpts {
	o := transformerOpts{
		dModel: dModel, nhead: nhead,
		ff:         k.int("dim_feedforward", 2048),
		dropout:    k.float("dropout", 0.1),
		eps:        k.float("layer_norm_eps", 1e-5),
		activation: k.str("activation", "relu"),
		batchFirst: k.bool("batch_first", false),
		normFirst:  k.bool("norm_first", false),
		k:          k,
	}
	if o.activation != "relu" && o.activation != "gelu" {
		tensor.Panicf("activation should be relu/gelu, not %s", o.activation)
	}
	return o
}

func (o transformerOpts) mha(init bool) *MultiheadAttention {
	k := factory(o.k)
	k.cls = "MultiheadAttention"
	k.m["dropout"] = o.dropout
	k.m["batch_first"] = o.batchFirst
	return newMultiheadAttention(o.dModel, o.nhead, k, init)
}

func (o transformerOpts) linear(in, out int, init bool) *Linear {
	return newLinear("Linear", in, out, factory(o.k), init)
}

func (o transformerOpts) norm() *LayerNorm {
	return NewLayerNorm(o.dModel, Eps(o.eps), Kw("dtype", o.k.dtype()))
}

func (o transformerOpts) activate(x *T) *T {
	if o.activation == "gelu" {
		return x.Gelu()
	}
	return x.Relu()
}

// TransformerEncoderLayer is nn.TransformerEncoderLayer: self-attention
// and a feed-forward network, each with dropout, a residual connection and
// a LayerNorm (after, or before with NormFirst). Options: DimFeedforward
// (2048), DropoutP (0.1), Activation ("relu"), LayerNormEps (1e-5),
// BatchFirst, NormFirst, DType, Device.
type TransformerEncoderLayer struct {
	Base
	SelfAttn           *MultiheadAttention
	Linear1, Linear2   *Linear
	Dropout            *Dropout
	Norm1, Norm2       *LayerNorm
	Dropout1, Dropout2 *Dropout
	NormFirst          bool
	opts               transformerOpts
}

// NewTransformerEncoderLayer makes nn.TransformerEncoderLayer(d_model, nhead).
func NewTransformerEncoderLayer(dModel, nhead int, opts ...Option) *TransformerEncoderLayer {
	return newTransformerEncoderLayer(parseTransformer("TransformerEncoderLayer", dModel, nhead, opts), true)
}

func newTransformerEncoderLayer(o transformerOpts, init bool) *TransformerEncoderLayer {
	m := &TransformerEncoderLayer{NormFirst: o.normFirst, opts: o}
	m.SetName("TransformerEncoderLayer")
	m.SelfAttn = Register(m, "self_attn", o.mha(init))
	m.Linear1 = Register(m, "linear1", o.linear(o.dModel, o.ff, init))
	m.Dropout = Register(m, "dropout", NewDropout(P(o.dropout)))
	m.Linear2 = Register(m, "linear2", o.linear(o.ff, o.dModel, init))
	m.Norm1 = Register(m, "norm1", o.norm())
	m.Norm2 = Register(m, "norm2", o.norm())
	m.Dropout1 = Register(m, "dropout1", NewDropout(P(o.dropout)))
	m.Dropout2 = Register(m, "dropout2", NewDropout(P(o.dropout)))
	o.k.place(m.Norm1.Weight, m.Norm1.Bias, m.Norm2.Weight, m.Norm2.Bias)
	return m
}

// clone is copy.deepcopy(m): the same settings, state and mode, drawing
// nothing from the random generator.
func (m *TransformerEncoderLayer) clone() *TransformerEncoderLayer {
	c := newTransformerEncoderLayer(m.opts, false)
	copyState(c, m)
	return c
}

// copyState copies src's parameters and buffers and training flags into
// dst, a module of the same structure.
func copyState(dst, src Module) {
	sd := src.base().StateDict()
	if err := dst.base().LoadStateDict(sd.Tensors, true); err != nil {
		panic(err)
	}
	if !src.base().Training() {
		dst.base().Eval()
	}
}

// Forward is self(src): (N, S, E) with BatchFirst, else (S, N, E), or
// unbatched (S, E).
func (m *TransformerEncoderLayer) Forward(src *T) *T { return m.ForwardMasked(src, nil, nil) }

// ForwardMasked is self(src, src_mask, src_key_padding_mask); nil masks are
// None.
func (m *TransformerEncoderLayer) ForwardMasked(src, srcMask, srcKeyPaddingMask *T) *T {
	x := src
	if m.NormFirst {
		x = x.Add(m.saBlock(m.Norm1.Forward(x), srcMask, srcKeyPaddingMask))
		x = x.Add(m.ffBlock(m.Norm2.Forward(x)))
	} else {
		x = m.Norm1.Forward(x.Add(m.saBlock(x, srcMask, srcKeyPaddingMask)))
		x = m.Norm2.Forward(x.Add(m.ffBlock(x)))
	}
	return x
}

func (m *TransformerEncoderLayer) saBlock(x, mask, kpm *T) *T {
	y, _ := m.SelfAttn.ForwardOptions(x, x, x, AttentionOptions{AttnMask: mask, KeyPaddingMask: kpm, NoWeights: true})
	return m.Dropout1.Forward(y)
}

func (m *TransformerEncoderLayer) ffBlock(x *T) *T {
	return m.Dropout2.Forward(m.Linear2.Forward(m.Dropout.Forward(m.opts.activate(m.Linear1.Forward(x)))))
}

func (m *TransformerEncoderLayer) String() string { return Repr(m) }

// TransformerEncoder is nn.TransformerEncoder: num_layers copies of an
// encoder layer (same initial weights, as PyTorch's deepcopy makes them)
// and an optional final Norm. Options: Norm.
type TransformerEncoder struct {
	Base
	Layers    *ModuleList
	NumLayers int
	Norm      Layer // nil without the Norm option
}

// NewTransformerEncoder makes nn.TransformerEncoder(encoder_layer, num_layers).
func NewTransformerEncoder(layer *TransformerEncoderLayer, numLayers int, opts ...Option) *TransformerEncoder {
	k := parse("TransformerEncoder", opts, "norm", "enable_nested_tensor", "mask_check")
	m := &TransformerEncoder{NumLayers: numLayers}
	m.SetName("TransformerEncoder")
	m.Layers, m.Norm = stackLayers(m, k, numLayers, func() Module { return layer.clone() })
	return m
}

// stackLayers registers numLayers clones of a layer as m's "layers" and
// the norm option as its "norm" (nil without it): nn.TransformerEncoder's
// and nn.TransformerDecoder's set-up.
func stackLayers(m Module, k kwargs, numLayers int, clone func() Module) (*ModuleList, Layer) {
	layers := NewModuleList()
	for range numLayers {
		layers.Append(clone())
	}
	m.base().RegisterModule("layers", layers)
	v, ok := k.m["norm"]
	if !ok || v == nil {
		return layers, nil
	}
	n, ok := v.(Layer)
	if !ok {
		k.typeErr("norm", "Module")
	}
	return layers, Register(m, "norm", n)
}

// Forward is self(src).
func (m *TransformerEncoder) Forward(src *T) *T { return m.ForwardMasked(src, nil, nil) }

// ForwardMasked is self(src, mask, src_key_padding_mask).
func (m *TransformerEncoder) ForwardMasked(src, mask, srcKeyPaddingMask *T) *T {
	out := src
	for _, l := range m.Layers.Modules() {
		out = l.(*TransformerEncoderLayer).ForwardMasked(out, mask, srcKeyPaddingMask)
	}
	if m.Norm != nil {
		out = m.Norm.Forward(out)
	}
	return out
}

func (m *TransformerEncoder) String() string { return Repr(m) }

// TransformerDecoderLayer is nn.TransformerDecoderLayer: self-attention,
// attention over the encoder's memory and a feed-forward network, each
// with dropout, a residual connection and a LayerNorm. Options as
// TransformerEncoderLayer's.
type TransformerDecoderLayer struct {
	Base
	SelfAttn, MultiheadAttn      *MultiheadAttention
	Linear1, Linear2             *Linear
	Dropout                      *Dropout
	Norm1, Norm2, Norm3          *LayerNorm
	Dropout1, Dropout2, Dropout3 *Dropout
	NormFirst                    bool
	opts                         transformerOpts
}

// NewTransformerDecoderLayer makes nn.TransformerDecoderLayer(d_model, nhead).
func NewTransformerDecoderLayer(dModel, nhead int, opts ...Option) *TransformerDecoderLayer {
	return newTransformerDecoderLayer(parseTransformer("TransformerDecoderLayer", dModel, nhead, opts), true)
}

func newTransformerDecoderLayer(o transformerOpts, init bool) *TransformerDecoderLayer {
	m := &TransformerDecoderLayer{NormFirst: o.normFirst, opts: o}
	m.SetName("TransformerDecoderLayer")
	m.SelfAttn = Register(m, "self_attn", o.mha(init))
	m.MultiheadAttn = Register(m, "multihead_attn", o.mha(init))
	m.Linear1 = Register(m, "linear1", o.linear(o.dModel, o.ff, init))
	m.Dropout = Register(m, "dropout", NewDropout(P(o.dropout)))
	m.Linear2 = Register(m, "linear2", o.linear(o.ff, o.dModel, init))
	m.Norm1 = Register(m, "norm1", o.norm())
	m.Norm2 = Register(m, "norm2", o.norm())
	m.Norm3 = Register(m, "norm3", o.norm())
	m.Dropout1 = Register(m, "dropout1", NewDropout(P(o.dropout)))
	m.Dropout2 = Register(m, "dropout2", NewDropout(P(o.dropout)))
	m.Dropout3 = Register(m, "dropout3", NewDropout(P(o.dropout)))
	o.k.place(m.Norm1.Weight, m.Norm1.Bias, m.Norm2.Weight, m.Norm2.Bias, m.Norm3.Weight, m.Norm3.Bias)
	return m
}

// clone is copy.deepcopy(m), as TransformerEncoderLayer's.
func (m *TransformerDecoderLayer) clone() *TransformerDecoderLayer {
	c := newTransformerDecoderLayer(m.opts, false)
	copyState(c, m)
	return c
}

// DecoderMasks are TransformerDecoderLayer.forward's masks; nil is None.
type DecoderMasks struct {
	TgtMask, MemoryMask                     *T
	TgtKeyPaddingMask, MemoryKeyPaddingMask *T
}

// Forward is self(tgt, memory).
func (m *TransformerDecoderLayer) Forward(tgt, memory *T) *T {
	return m.ForwardMasked(tgt, memory, DecoderMasks{})
}

// ForwardMasked is self(tgt, memory, tgt_mask, memory_mask,
// tgt_key_padding_mask, memory_key_padding_mask).
func (m *TransformerDecoderLayer) ForwardMasked(tgt, memory *T, k DecoderMasks) *T {
	x := tgt
	if m.NormFirst {
		x = x.Add(m.saBlock(m.Norm1.Forward(x), k.TgtMask, k.TgtKeyPaddingMask))
		x = x.Add(m.mhaBlock(m.Norm2.Forward(x), memory, k.MemoryMask, k.MemoryKeyPaddingMask))
		x = x.Add(m.ffBlock(m.Norm3.Forward(x)))
	} else {
		x = m.Norm1.Forward(x.Add(m.saBlock(x, k.TgtMask, k.TgtKeyPaddingMask)))
		x = m.Norm2.Forward(x.Add(m.mhaBlock(x, memory, k.MemoryMask, k.MemoryKeyPaddingMask)))
		x = m.Norm3.Forward(x.Add(m.ffBlock(x)))
	}
	return x
}

func (m *TransformerDecoderLayer) saBlock(x, mask, kpm *T) *T {
	y, _ := m.SelfAttn.ForwardOptions(x, x, x, AttentionOptions{AttnMask: mask, KeyPaddingMask: kpm, NoWeights: true})
	return m.Dropout1.Forward(y)
}

func (m *TransformerDecoderLayer) mhaBlock(x, mem, mask, kpm *T) *T {
	y, _ := m.MultiheadAttn.ForwardOptions(x, mem, mem, AttentionOptions{AttnMask: mask, KeyPaddingMask: kpm, NoWeights: true})
	return m.Dropout2.Forward(y)
}

func (m *TransformerDecoderLayer) ffBlock(x *T) *T {
	return m.Dropout3.Forward(m.Linear2.Forward(m.Dropout.Forward(m.opts.activate(m.Linear1.Forward(x)))))
}

func (m *TransformerDecoderLayer) String() string { return Repr(m) }

// TransformerDecoder is nn.TransformerDecoder: num_layers copies of a
// decoder layer (same initial weights, as PyTorch's deepcopy makes them)
// and an optional final Norm. Options: Norm.
type TransformerDecoder struct {
	Base
	Layers    *ModuleList
	NumLayers int
	Norm      Layer // nil without the Norm option
}

// NewTransformerDecoder makes nn.TransformerDecoder(decoder_layer, num_layers).
func NewTransformerDecoder(layer *TransformerDecoderLayer, numLayers int, opts ...Option) *TransformerDecoder {
	k := parse("TransformerDecoder", opts, "norm")
	m := &TransformerDecoder{NumLayers: numLayers}
	m.SetName("TransformerDecoder")
	m.Layers, m.Norm = stackLayers(m, k, numLayers, func() Module { return layer.clone() })
	return m
}

// Forward is self(tgt, memory).
func (m *TransformerDecoder) Forward(tgt, memory *T) *T {
	return m.ForwardMasked(tgt, memory, DecoderMasks{})
}

// ForwardMasked is self(tgt, memory, tgt_mask, memory_mask,
// tgt_key_padding_mask, memory_key_padding_mask): each layer in turn, then
// the final norm.
func (m *TransformerDecoder) ForwardMasked(tgt, memory *T, k DecoderMasks) *T {
	out := tgt
	for _, l := range m.Layers.Modules() {
		out = l.(*TransformerDecoderLayer).ForwardMasked(out, memory, k)
	}
	if m.Norm != nil {
		out = m.Norm.Forward(out)
	}
	return out
}

func (m *TransformerDecoder) String() string { return Repr(m) }

// EncoderModule is what a Transformer encodes with: a TransformerEncoder,
// or a module of its own given by CustomEncoder.
type EncoderModule interface {
	Module
	// ForwardMasked is forward(src, mask=, src_key_padding_mask=).
	ForwardMasked(src, mask, srcKeyPaddingMask *T) *T
}

// DecoderModule is what a Transformer decodes with: a TransformerDecoder,
// or a module of its own given by CustomDecoder.
type DecoderModule interface {
	Module
	// ForwardMasked is forward(tgt, memory, tgt_mask=, memory_mask=,
	// tgt_key_padding_mask=, memory_key_padding_mask=).
	ForwardMasked(tgt, memory *T, masks DecoderMasks) *T
}

// DModel is nn.Transformer's d_model, the width of its inputs (512).
func DModel(d int) Option { return Option{"d_model", d} }

// NHead is nn.Transformer's number of attention heads (8).
func NHead(n int) Option { return Option{"nhead", n} }

// NumEncoderLayers is nn.Transformer's number of encoder layers (6).
func NumEncoderLayers(n int) Option { return Option{"num_encoder_layers", n} }

// NumDecoderLayers is nn.Transformer's number of decoder layers (6).
func NumDecoderLayers(n int) Option { return Option{"num_decoder_layers", n} }

// CustomEncoder replaces nn.Transformer's encoder (custom_encoder).
func CustomEncoder(m EncoderModule) Option { return Option{"custom_encoder", m} }

// CustomDecoder replaces nn.Transformer's decoder (custom_decoder).
func CustomDecoder(m DecoderModule) Option { return Option{"custom_decoder", m} }

// Transformer is nn.Transformer: a TransformerEncoder of NumEncoderLayers
// layers and a TransformerDecoder of NumDecoderLayers layers, each ending
// in a LayerNorm. Every option has PyTorch's default: DModel (512), NHead
// (8), NumEncoderLayers (6), NumDecoderLayers (6), DimFeedforward (2048),
// DropoutP (0.1), Activation ("relu"), CustomEncoder, CustomDecoder,
// LayerNormEps (1e-5), BatchFirst, NormFirst, DType, Device.
//
// Its parameters are initialised as PyTorch's: the encoder layer, its
// norm, the decoder layer and its norm are made in that order (drawing
// their own initial values), then every parameter of more than one
// dimension, in the order of Parameters, is redrawn by xavier_uniform_
// (_reset_parameters), so that after ManualSeed the state dict is
// PyTorch's bit for bit.
type Transformer struct {
	Base
	Encoder       EncoderModule
	Decoder       DecoderModule
	DModel, NHead int
	BatchFirst    bool
}

// NewTransformer makes nn.Transformer(...).
func NewTransformer(opts ...Option) *Transformer {
	k := parse("Transformer", opts, append([]string{"d_model", "nhead", "num_encoder_layers", "num_decoder_layers",
		"custom_encoder", "custom_decoder"}, layerKeywords...)...)
	// Everything is made and initialised on the CPU, then moved.
	dev, onDevice := k.m["device"]
	delete(k.m, "device")
	o := transformerOptsOf(k, k.int("d_model", 512), k.int("nhead", 8))
	m := &Transformer{DModel: o.dModel, NHead: o.nhead, BatchFirst: o.batchFirst}
	m.SetName("Transformer")
	if v, ok := k.m["custom_encoder"]; ok && v != nil {
		e, ok := v.(EncoderModule)
		if !ok {
			k.typeErr("custom_encoder", "Module")
		}
		m.Encoder = e
	} else {
		layer := newTransformerEncoderLayer(o, true)
		norm := o.norm()
		m.Encoder = NewTransformerEncoder(layer, k.int("num_encoder_layers", 6), Norm(norm))
	}
	m.RegisterModule("encoder", m.Encoder)
	if v, ok := k.m["custom_decoder"]; ok && v != nil {
		d, ok := v.(DecoderModule)
		if !ok {
			k.typeErr("custom_decoder", "Module")
		}
		m.Decoder = d
	} else {
		layer := newTransformerDecoderLayer(o, true)
		norm := o.norm()
		m.Decoder = NewTransformerDecoder(layer, k.int("num_decoder_layers", 6), Norm(norm))
	}
	m.RegisterModule("decoder", m.Decoder)
	for _, p := range m.Parameters() {
		if p.Dim() > 1 {
			nninit.XavierUniform_(p, 1)
		}
	}
	if onDevice && dev != nil {
		d, ok := dev.(tensor.Device)
		if !ok {
			k.typeErr("device", "torch.device")
		}
		m.To(d)
	}
	return m
}

// TransformerMasks are Transformer.forward's masks; nil is None.
type TransformerMasks struct {
	SrcMask, TgtMask, MemoryMask                               *T
	SrcKeyPaddingMask, TgtKeyPaddingMask, MemoryKeyPaddingMask *T
}

// Forward is self(src, tgt): src (S, N, E) and tgt (T, N, E), or (N, S, E)
// and (N, T, E) with BatchFirst, or unbatched (S, E) and (T, E); the
// output has tgt's shape.
func (m *Transformer) Forward(src, tgt *T) *T { return m.ForwardMasked(src, tgt, TransformerMasks{}) }

// ForwardMasked is self(src, tgt, src_mask, tgt_mask, memory_mask,
// src_key_padding_mask, tgt_key_padding_mask, memory_key_padding_mask):
// the encoder's output is the decoder's memory.
func (m *Transformer) ForwardMasked(src, tgt *T, k TransformerMasks) *T {
	if src.Dim() == 3 {
		b := 1
		if m.BatchFirst {
			b = 0
		}
		if tgt.Dim() <= b || src.Size(b) != tgt.Size(b) {
			tensor.Panicf("the batch number of src and tgt must be equal")
		}
	}
	if src.Size(-1) != m.DModel || tgt.Size(-1) != m.DModel {
		tensor.Panicf("the feature number of src and tgt must be equal to d_model")
	}
	memory := m.Encoder.ForwardMasked(src, k.SrcMask, k.SrcKeyPaddingMask)
	return m.Decoder.ForwardMasked(tgt, memory, DecoderMasks{
		TgtMask: k.TgtMask, MemoryMask: k.MemoryMask,
		TgtKeyPaddingMask: k.TgtKeyPaddingMask, MemoryKeyPaddingMask: k.MemoryKeyPaddingMask,
	})
}

func (m *Transformer) String() string { return Repr(m) }

// GenerateSquareSubsequentMask is nn.Transformer.generate_square_subsequent_mask(sz):
// an (sz, sz) float32 mask, -inf above the diagonal (the later positions a
// position may not attend) and 0 elsewhere.
func GenerateSquareSubsequentMask(sz int) *T {
	return gt.Full(math.Inf(-1), sz, sz).Triu(gt.WithDiagonal(1))
}

package nn

import (
	"fmt"
	"sort"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/autograd"
	nninit "github.com/goaten/goaten/nn/init"
	"github.com/goaten/goaten/tensor"
)

// embeddingOpts is what Embedding and EmbeddingBag share.
type embeddingOpts struct {
	NumEmbeddings, EmbeddingDim int
	PaddingIdx                  *int     // nil: none; else in [0, NumEmbeddings)
	MaxNorm                     *float64 // nil: no renormalisation
	NormType                    float64
	ScaleGradByFreq             bool
}

func (e *embeddingOpts) read(k kwargs, msg string) {
	if p := k.optInt("padding_idx"); p != nil {
		i := *p
		if i > 0 && i >= e.NumEmbeddings || i < 0 && i < -e.NumEmbeddings {
			panic(&tensor.Error{Kind: tensor.ValueError, Msg: msg})
		}
		if i < 0 {
			i += e.NumEmbeddings
		}
		e.PaddingIdx = &i
	}
	e.MaxNorm = k.optFloat("max_norm")
	e.NormType = k.float("norm_type", 2)
	e.ScaleGradByFreq = k.bool("scale_grad_by_freq", false)
	if k.bool("sparse", false) {
		panic(&tensor.Error{Kind: tensor.NotImplementedError, Msg: k.cls + ": sparse gradients are not supported"})
	}
}

// initWeight is reset_parameters: N(0, 1), then the padding row zeroed.
func (e *embeddingOpts) initWeight(w *T) {
	nninit.Normal_(w, 0, 1)
	e.zeroPadding(w)
}

func (e *embeddingOpts) zeroPadding(w *T) {
	if e.PaddingIdx != nil {
		w.Detach().Select(0, *e.PaddingIdx).Fill_(0)
	}
}

// renorm is torch.embedding_renorm_ under no_grad: each distinct row that
// indices look up, with a p-norm above maxNorm, is scaled by
// maxNorm/(norm+1e-7) in place.
func renorm(w, indices *T, maxNorm, p float64) {
	ids := indices.Contiguous().To(gt.Int64).Int64s()
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	autograd.NoGrad(func() {
		wd := w.Detach()
		for i, id := range ids {
			if i > 0 && id == ids[i-1] {
				continue
			}
			row := wd.Select(0, int(id))
			norm := row.LinalgVectorNorm(gt.WithOrd(p)).Item().Float64()
			if norm > maxNorm {
				row.MulScalar_(maxNorm / (norm + 1e-7))
			}
		}
	})
}

func (e *embeddingOpts) reprTail() string {
	s := ""
	if e.MaxNorm != nil {
		s += ", max_norm=" + pyFloat(*e.MaxNorm)
	}
	if e.NormType != 2 {
		s += ", norm_type=" + pyFloat(e.NormType)
	}
	if e.ScaleGradByFreq {
		s += ", scale_grad_by_freq=True"
	}
	return s
}

// Embedding is a lookup table of NumEmbeddings vectors of size
// EmbeddingDim (nn.Embedding), initialised from N(0, 1) with the PaddingIdx
// row zeroed. Options: PaddingIdx, MaxNorm, NormType, ScaleGradByFreq,
// DType, Device. Sparse gradients (sparse=True) are not supported.
type Embedding struct {
	Base
	embeddingOpts
	Weight *T
}

// NewEmbedding makes nn.Embedding(numEmbeddings, embeddingDim).
func NewEmbedding(numEmbeddings, embeddingDim int, opts ...Option) *Embedding {
	k := parse("Embedding", opts, "padding_idx", "max_norm", "norm_type", "scale_grad_by_freq", "sparse", "device", "dtype")
	m := &Embedding{embeddingOpts: embeddingOpts{NumEmbeddings: numEmbeddings, EmbeddingDim: embeddingDim}}
	m.SetName("Embedding")
	m.read(k, "Padding_idx must be within num_embeddings")
	m.Weight = m.RegisterParameter("weight", empty(k, numEmbeddings, embeddingDim))
	m.ResetParameters()
	k.place(m.Weight)
	return m
}

// NewEmbeddingFromPretrained is nn.Embedding.from_pretrained(weight): the
// table is weight itself (2-d), frozen (no gradient) unless freeze is false.
// It takes NewEmbedding's options but DType and Device.
func NewEmbeddingFromPretrained(weight *T, freeze bool, opts ...Option) *Embedding {
	if weight.Dim() != 2 {
		valueError("Embeddings parameter is expected to be 2-dimensional")
	}
	k := parse("Embedding", opts, "padding_idx", "max_norm", "norm_type", "scale_grad_by_freq", "sparse")
	m := &Embedding{embeddingOpts: embeddingOpts{NumEmbeddings: weight.Size(0), EmbeddingDim: weight.Size(1)}}
	m.SetName("Embedding")
	m.read(k, "Padding_idx must be within num_embeddings")
	m.Weight = m.RegisterParameter("weight", weight.Detach())
	if freeze { // requires_grad=False, as Parameter(weight, requires_grad=not freeze)
		autograd.SetRequiresGrad(m.Weight, false)
	}
	return m
}

// ResetParameters draws the weight again from N(0, 1) and zeroes the
// padding row.
func (m *Embedding) ResetParameters() { m.initWeight(m.Weight) }

// Forward looks up the rows of the integer indices x: the result has
// shape (*x.shape, EmbeddingDim). With MaxNorm the rows looked up are
// first renormalised in place, as PyTorch does.
func (m *Embedding) Forward(x *T) *T {
	pad := -1
	if m.PaddingIdx != nil {
		pad = *m.PaddingIdx
	}
	if m.MaxNorm != nil {
		renorm(m.Weight, x, *m.MaxNorm, m.NormType)
	}
	return gt.Embedding(m.Weight, x, gt.WithPaddingIdx(pad), gt.WithScaleGradByFreq(m.ScaleGradByFreq))
}

// ExtraRepr is "10, 3, padding_idx=0".
func (m *Embedding) ExtraRepr() string {
	s := fmt.Sprintf("%d, %d", m.NumEmbeddings, m.EmbeddingDim)
	if m.PaddingIdx != nil {
		s += fmt.Sprintf(", padding_idx=%d", *m.PaddingIdx)
	}
	return s + m.reprTail()
}

func (m *Embedding) String() string { return Repr(m) }

// EmbeddingBag sums, averages or takes the max of bags of embeddings
// without materialising them (nn.EmbeddingBag). Options: Mode ("mean"),
// PaddingIdx, MaxNorm, NormType, ScaleGradByFreq, IncludeLastOffset, DType,
// Device.
type EmbeddingBag struct {
	Base
	embeddingOpts
	Mode              string
	IncludeLastOffset bool
	Weight            *T
}

// NewEmbeddingBag makes nn.EmbeddingBag(numEmbeddings, embeddingDim).
func NewEmbeddingBag(numEmbeddings, embeddingDim int, opts ...Option) *EmbeddingBag {
	k := parse("EmbeddingBag", opts, "max_norm", "norm_type", "scale_grad_by_freq", "mode", "sparse", "include_last_offset", "padding_idx", "device", "dtype")
	m := &EmbeddingBag{embeddingOpts: embeddingOpts{NumEmbeddings: numEmbeddings, EmbeddingDim: embeddingDim}}
	m.SetName("EmbeddingBag")
	m.read(k, "padding_idx must be within num_embeddings")
	m.Mode = k.str("mode", "mean")
	m.IncludeLastOffset = k.bool("include_last_offset", false)
	m.Weight = m.RegisterParameter("weight", empty(k, numEmbeddings, embeddingDim))
	m.ResetParameters()
	k.place(m.Weight)
	return m
}

// ResetParameters draws the weight again from N(0, 1) and zeroes the
// padding row.
func (m *EmbeddingBag) ResetParameters() { m.initWeight(m.Weight) }

// Forward is forward(input, offsets): a 2-d input (B, N) is B bags of N
// indices and offsets must be nil; a 1-d input is the bags concatenated,
// offsets giving where each starts. The result is (B, EmbeddingDim).
func (m *EmbeddingBag) Forward(input, offsets *T) *T { return m.ForwardWeighted(input, offsets, nil) }

// ForwardWeighted is forward(input, offsets, per_sample_weights): each
// looked-up row is scaled by its weight (mode "sum" only).
func (m *EmbeddingBag) ForwardWeighted(input, offsets, perSampleWeights *T) *T {
	if perSampleWeights != nil && !sameSizes(input.Sizes(), perSampleWeights.Sizes()) {
		valueError("embedding_bag: If per_sample_weights (%s) is not None, then it must have the same shape as the input (%s)",
			sizeRepr(perSampleWeights.Sizes()), sizeRepr(input.Sizes()))
	}
	switch input.Dim() {
	case 2:
		if offsets != nil {
			valueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length sequences. However, found offsets of type <class 'torch.Tensor'>")
		}
		offsets = gt.Arange(0, input.Numel(), gt.WithStep(input.Size(1)), gt.WithDtype(input.DType()))
		input = input.Reshape([]int{-1})
		if perSampleWeights != nil {
			perSampleWeights = perSampleWeights.Reshape([]int{-1})
		}
	case 1:
		if offsets == nil {
			valueError("offsets has to be a 1D Tensor but got None")
		}
		if offsets.Dim() != 1 {
			valueError("offsets has to be a 1D Tensor")
		}
	default:
		valueError("input has to be 1D or 2D Tensor, but got Tensor of dimension %d", input.Dim())
	}
	var mode int
	switch m.Mode {
	case "sum":
		mode = 0
	case "mean":
		mode = 1
	case "max":
		mode = 2
		if m.ScaleGradByFreq {
			valueError("max mode does not support scaling the gradient by the frequency")
		}
	default:
		valueError("mode has to be one of sum, mean or max")
	}
	if m.MaxNorm != nil {
		renorm(m.Weight, input, *m.MaxNorm, m.NormType)
	}
	if perSampleWeights != nil && m.Mode != "sum" {
		panic(&tensor.Error{Kind: tensor.NotImplementedError, Msg: fmt.Sprintf("embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' (got mode='%s'). Please open a feature request on GitHub.", m.Mode)})
	}
	var pad any
	if m.PaddingIdx != nil {
		pad = *m.PaddingIdx
	}
	out, _, _, _ := gt.EmbeddingBagPaddingIdx(m.Weight, input, offsets, m.ScaleGradByFreq, mode, false, perSampleWeights, m.IncludeLastOffset, pad)
	return out
}

// ExtraRepr is "10, 3, mode=mean".
func (m *EmbeddingBag) ExtraRepr() string {
	s := fmt.Sprintf("%d, %d", m.NumEmbeddings, m.EmbeddingDim) + m.reprTail() + ", mode=" + m.Mode
	if m.PaddingIdx != nil {
		s += fmt.Sprintf(", padding_idx=%d", *m.PaddingIdx)
	}
	return s
}

func (m *EmbeddingBag) String() string { return Repr(m) }

package nn

import (
	"fmt"
	"math"

	gt "github.com/goaten/goaten"
	nninit "github.com/goaten/goaten/nn/init"
	"github.com/goaten/goaten/tensor"
)

// NumLayers is the number of recurrent layers RNN, LSTM and GRU stack (1
// by default): each layer after the first reads the outputs of the one
// before it.
func NumLayers(n int) Option { return Option{"num_layers", n} }

// Nonlinearity is the non-linearity of RNN and RNNCell: "tanh" (the
// default) or "relu".
func Nonlinearity(s string) Option { return Option{"nonlinearity", s} }

// Bidirectional makes RNN, LSTM and GRU run each layer over the sequence
// in both directions and concatenate the two outputs (false by default).
func Bidirectional(b bool) Option { return Option{"bidirectional", b} }

// ProjSize gives an LSTM a learnable projection (weight_hr_l{k}, proj_size
// by hidden_size) of its hidden state to proj_size features; 0, the
// default, is none. Only LSTM takes it.
func ProjSize(n int) Option { return Option{"proj_size", n} }

// RNNWeights are the parameters of one layer in one direction of an RNN,
// LSTM or GRU: weight_ih_l{k} (gates·hidden_size, input), weight_hh_l{k}
// (gates·hidden_size, H_out), bias_ih_l{k} and bias_hh_l{k}
// (gates·hidden_size; nil with Bias(false)) and, for an LSTM with a
// ProjSize, weight_hr_l{k} (proj_size, hidden_size); the reverse
// direction's names end in "_reverse". The gates are stacked in PyTorch's
// order: LSTM's input, forget, cell, output (i|f|g|o); GRU's reset, update,
// new (r|z|n).
type RNNWeights struct {
	WeightIH, WeightHH, BiasIH, BiasHH, WeightHR *T
}

// rnnBase is what RNN, LSTM and GRU share (PyTorch's RNNBase).
type rnnBase struct {
	Base
	// Mode is PyTorch's mode: "RNN_TANH", "RNN_RELU", "LSTM" or "GRU".
	Mode                            string
	InputSize, HiddenSize           int
	NumLayers, ProjSize             int
	Bias, BatchFirst, Bidirectional bool
	// Dropout is the probability of the dropout applied, in training, to
	// the outputs of every layer but the last.
	Dropout float64
	// Weights holds the parameters of layer l in direction d (0 forward,
	// 1 reverse) at index l·num_directions + d.
	Weights []RNNWeights
}

// rnnKeywords are the keywords RNNBase.__init__ takes.
var rnnKeywords = []string{"num_layers", "bias", "batch_first", "dropout", "bidirectional", "proj_size", "device", "dtype"}

func newRNNBase(m *rnnBase, cls, mode string, inputSize, hiddenSize int, opts []Option, allowed ...string) kwargs {
	if mode != "LSTM" {
		for _, o := range opts {
			if o.name == "proj_size" {
				valueError("proj_size argument is only supported for LSTM, not RNN or GRU")
			}
		}
	}
	k := parse("RNNBase", opts, append(allowed, rnnKeywords...)...)
	if mode == "RNN" {
		switch nl := k.str("nonlinearity", "tanh"); nl {
		case "tanh":
			mode = "RNN_TANH"
		case "relu":
			mode = "RNN_RELU"
		default:
			valueError("Unknown nonlinearity '%s'", nl)
		}
	}
	m.SetName(cls)
	m.Mode = mode
	m.InputSize, m.HiddenSize = inputSize, hiddenSize
	m.NumLayers = k.int("num_layers", 1)
	m.Bias = k.bool("bias", true)
	m.BatchFirst = k.bool("batch_first", false)
	m.Dropout = k.float("dropout", 0)
	m.Bidirectional = k.bool("bidirectional", false)
	m.ProjSize = k.int("proj_size", 0)
	if !(m.Dropout >= 0 && m.Dropout <= 1) {
		valueError("dropout should be a number in range [0, 1] representing the probability of an element being zeroed")
	}
	// PyTorch warns here when dropout > 0 with one layer (the dropout is
	// then never applied); goaten prints no warnings. PyTorch 1.13 takes a
	// hidden_size or num_layers below 1 and fails later (on proj_size, or
	// with an IndexError); these are PyTorch 2's checks.
	if hiddenSize <= 0 {
		valueError("hidden_size must be greater than zero")
	}
	if m.NumLayers <= 0 {
		valueError("num_layers must be greater than zero")
	}
	if m.ProjSize < 0 {
		valueError("proj_size should be a positive integer or zero to disable projections")
	}
	if m.ProjSize >= hiddenSize {
		valueError("proj_size has to be smaller than hidden_size")
	}
	gates := map[string]int{"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}[mode]
	gateSize := gates * hiddenSize
	dirs := m.numDirections()
	realHidden := m.realHiddenSize()
	var all []*T
	for layer := 0; layer < m.NumLayers; layer++ {
		for dir := 0; dir < dirs; dir++ {
			in := inputSize
			if layer > 0 {
				in = realHidden * dirs
			}
			suffix := ""
			if dir == 1 {
				suffix = "_reverse"
			}
			name := func(s string) string { return fmt.Sprintf("%s_l%d%s", s, layer, suffix) }
			var w RNNWeights
			w.WeightIH = m.RegisterParameter(name("weight_ih"), empty(k, gateSize, in))
			w.WeightHH = m.RegisterParameter(name("weight_hh"), empty(k, gateSize, realHidden))
			all = append(all, w.WeightIH, w.WeightHH)
			if m.Bias {
				w.BiasIH = m.RegisterParameter(name("bias_ih"), empty(k, gateSize))
				w.BiasHH = m.RegisterParameter(name("bias_hh"), empty(k, gateSize))
				all = append(all, w.BiasIH, w.BiasHH)
			}
			if m.ProjSize > 0 {
				w.WeightHR = m.RegisterParameter(name("weight_hr"), empty(k, m.ProjSize, hiddenSize))
				all = append(all, w.WeightHR)
			}
			m.Weights = append(m.Weights, w)
		}
	}
	m.ResetParameters()
	k.place(all...)
	return k
}

func (m *rnnBase) numDirections() int {
	if m.Bidirectional {
		return 2
	}
	return 1
}

// realHiddenSize is H_out: proj_size when there is a projection, else
// hidden_size.
func (m *rnnBase) realHiddenSize() int {
	if m.ProjSize > 0 {
		return m.ProjSize
	}
	return m.HiddenSize
}

// ResetParameters draws every parameter again from U(-1/√hidden_size,
// 1/√hidden_size), in registration order (reset_parameters).
func (m *rnnBase) ResetParameters() { uniformInit(m.Base.Parameters(), m.HiddenSize) }

// uniformInit is the recurrent layers' reset_parameters.
func uniformInit(params []*T, hiddenSize int) {
	stdv := 0.0
	if hiddenSize > 0 {
		stdv = 1 / math.Sqrt(float64(hiddenSize))
	}
	for _, p := range params {
		nninit.Uniform_(p, -stdv, stdv)
	}
}

// FlattenParameters does nothing: PyTorch's flatten_parameters packs the
// weights for cuDNN and is a no-op elsewhere.
func (m *rnnBase) FlattenParameters() {}

// AllWeights lists the parameters of each layer and direction, in
// PyTorch's order (all_weights).
func (m *rnnBase) AllWeights() [][]*T {
	out := make([][]*T, len(m.Weights))
	for i, w := range m.Weights {
		for _, p := range []*T{w.WeightIH, w.WeightHH, w.BiasIH, w.BiasHH, w.WeightHR} {
			if p != nil {
				out[i] = append(out[i], p)
			}
		}
	}
	return out
}

// ExtraRepr is "10, 20, num_layers=2, batch_first=True, bidirectional=True":
// the sizes, then the options that differ from their defaults. As in
// PyTorch, RNN's nonlinearity is not shown.
func (m *rnnBase) ExtraRepr() string {
	s := fmt.Sprintf("%d, %d", m.InputSize, m.HiddenSize)
	if m.ProjSize != 0 {
		s += fmt.Sprintf(", proj_size=%d", m.ProjSize)
	}
	if m.NumLayers != 1 {
		s += fmt.Sprintf(", num_layers=%d", m.NumLayers)
	}
	if !m.Bias {
		s += ", bias=False"
	}
	if m.BatchFirst {
		s += ", batch_first=True"
	}
	if m.Dropout != 0 {
		s += ", dropout=" + pyFloat(m.Dropout)
	}
	if m.Bidirectional {
		s += ", bidirectional=True"
	}
	return s
}

// batchInput is the part of forward PyTorch's RNN, LSTM and GRU share
// before their states: an unbatched (L, H_in) input gets its batch dim.
func (m *rnnBase) batchInput(input *T) (x *T, batched bool, batchDim, maxBatch int) {
	batched = input.Dim() == 3
	batchDim = 1
	if m.BatchFirst {
		batchDim = 0
	}
	x = input
	if !batched {
		x = input.Unsqueeze(batchDim)
	}
	return x, batched, batchDim, x.Size(batchDim)
}

// checkInput is check_input.
func (m *rnnBase) checkInput(x *T) {
	if x.Dim() != 3 {
		tensor.Panicf("input must have 3 dimensions, got %d", x.Dim())
	}
	if got := x.Size(-1); got != m.InputSize {
		tensor.Panicf("input.size(-1) must be equal to input_size. Expected %d, got %d", m.InputSize, got)
	}
}

// checkHiddenSize is check_hidden_size: the state must be
// (num_layers·num_directions, batch, size).
func (m *rnnBase) checkHiddenSize(h *T, batch, size int, what string) {
	want := []int{m.NumLayers * m.numDirections(), batch, size}
	if !sameSizes(h.Sizes(), want) {
		tensor.Panicf("Expected %s size %s, got %s", what, tupleRepr(want), listRepr(h.Sizes()))
	}
}

func (m *rnnBase) zeros(x *T, batch, size int) *T {
	return gt.Zeros(m.NumLayers*m.numDirections(), batch, size, gt.WithDtype(x.DType()), gt.WithDevice(x.Device()))
}

// run is ATen's _rnn_impl over a batched input with the states checked:
// the layers one after another (each direction over the whole sequence,
// the reverse one from its end, their outputs concatenated), dropout
// between layers in training, the final states stacked. c is nil but for
// an LSTM.
func (m *rnnBase) run(x, h, c *T) (out, hn, cn *T) {
	if m.BatchFirst {
		x = x.Transpose(0, 1)
	}
	hs := h.Unbind()
	var cs []*T
	if c != nil {
		cs = c.Unbind()
	}
	dirs := m.numDirections()
	var finalH, finalC []*T
	for layer := 0; layer < m.NumLayers; layer++ {
		outs := make([]*T, dirs)
		for dir := 0; dir < dirs; dir++ {
			i := layer*dirs + dir
			var ci *T
			if cs != nil {
				ci = cs[i]
			}
			o, hT, cT := m.direction(x, &m.Weights[i], hs[i], ci, dir == 1)
			outs[dir] = o
			finalH = append(finalH, hT)
			finalC = append(finalC, cT)
		}
		x = outs[0]
		if dirs == 2 {
			x = gt.Cat(outs, gt.WithDim(x.Dim()-1))
		}
		if m.Dropout != 0 && m.Training() && layer < m.NumLayers-1 {
			x = gt.Dropout(x, m.Dropout, true)
		}
	}
	if m.BatchFirst {
		x = x.Transpose(0, 1)
	}
	hn = gt.Stack(finalH)
	if c != nil {
		cn = gt.Stack(finalC)
	}
	return x, hn, cn
}

// direction runs one layer in one direction over the (L, N, in) input x,
// as ATen's CPU path does: the input projection of the whole sequence in
// one linear, then a cell per step.
func (m *rnnBase) direction(x *T, w *RNNWeights, h, c *T, reverse bool) (out, hT, cT *T) {
	steps := gt.Linear(x, w.WeightIH, optBias(w.BiasIH)...).Unbind()
	if len(steps) == 0 {
		tensor.Panicf("Expected sequence length to be larger than 0 in RNN")
	}
	outs := make([]*T, len(steps))
	for i := range steps {
		t := i
		if reverse {
			t = len(steps) - 1 - i
		}
		h, c = cellStep(m.Mode, steps[t], h, c, w)
		outs[t] = h
	}
	return gt.Stack(outs), h, c
}

// cellStep is one step of a cell given its input projection xw =
// x·W_ihᵀ + b_ih (ATen's SimpleCell, LSTMCell and GRUCell with
// pre_compute_input), in ATen's order of operations.
func cellStep(mode string, xw, h, c *T, w *RNNWeights) (*T, *T) {
	hw := gt.Linear(h, w.WeightHH, optBias(w.BiasHH)...)
	switch mode {
	case "RNN_TANH":
		return hw.Add(xw).Tanh(), nil
	case "RNN_RELU":
		return hw.Add(xw).Relu(), nil
	case "LSTM":
		g := hw.Add(xw).Chunk(4, gt.WithDim(1))
		in, forget, cell, out := g[0].Sigmoid(), g[1].Sigmoid(), g[2].Tanh(), g[3].Sigmoid()
		cy := forget.Mul(c).Add(in.Mul(cell))
		hy := out.Mul(cy.Tanh())
		if w.WeightHR != nil {
			hy = hy.Matmul(w.WeightHR.T())
		}
		return hy, cy
	case "GRU":
		ig, hg := xw.Chunk(3, gt.WithDim(1)), hw.Chunk(3, gt.WithDim(1))
		reset := hg[0].Add(ig[0]).Sigmoid()
		update := hg[1].Add(ig[1]).Sigmoid()
		n := ig[2].Add(hg[2].Mul(reset)).Tanh()
		return h.Sub(n).Mul(update).Add(n), nil
	}
	tensor.Panicf("Unknown nonlinearity: %s", mode)
	return nil, nil
}

// RNN is a multi-layer Elman RNN (nn.RNN): each layer computes
// h_t = tanh(x_t·W_ihᵀ + b_ih + h_{t-1}·W_hhᵀ + b_hh), or relu with
// Nonlinearity("relu"). Its parameters are weight_ih_l{k}, weight_hh_l{k},
// bias_ih_l{k}, bias_hh_l{k} (and their _reverse twins when
// bidirectional), all drawn from U(-1/√hidden_size, 1/√hidden_size) in that
// order. Options: NumLayers, Nonlinearity, Bias, BatchFirst, DropoutP
// (between layers), Bidirectional, DType, Device.
type RNN struct {
	rnnBase
	Nonlinearity string // "tanh" or "relu"
}

// NewRNN makes nn.RNN(input_size, hidden_size).
func NewRNN(inputSize, hiddenSize int, opts ...Option) *RNN {
	m := &RNN{}
	k := newRNNBase(&m.rnnBase, "RNN", "RNN", inputSize, hiddenSize, opts, "nonlinearity")
	m.Nonlinearity = k.str("nonlinearity", "tanh")
	return m
}

// Forward is rnn(input, hx): input is (L, N, H_in), (N, L, H_in) with
// BatchFirst, or unbatched (L, H_in); hx is the initial hidden state
// (num_layers·num_directions, N, hidden_size), or (…, hidden_size)
// unbatched, zeros when nil. It returns the last layer's hidden state at
// every step, output (L, N, num_directions·hidden_size) (batch first with
// BatchFirst), and every layer's final hidden state hn, shaped as hx.
func (m *RNN) Forward(input, hx *T) (output, hn *T) { return m.forwardH(input, hx) }

func (m *RNN) String() string { return Repr(m) }

// forwardH is RNN's and GRU's forward.
func (m *rnnBase) forwardH(input, hx *T) (output, hn *T) {
	batched := input.Dim() == 3
	if hx != nil {
		switch {
		case !batched && hx.Dim() != 2:
			tensor.Panicf("For unbatched 2-D input, hx should also be 2-D but got %d-D tensor", hx.Dim())
		case batched && hx.Dim() != 3:
			tensor.Panicf("For batched 3-D input, hx should also be 3-D but got %d-D tensor", hx.Dim())
		}
	}
	x, batched, batchDim, maxBatch := m.batchInput(input)
	if hx == nil {
		hx = m.zeros(x, maxBatch, m.HiddenSize)
	} else if !batched {
		hx = hx.Unsqueeze(1)
	}
	m.checkInput(x)
	m.checkHiddenSize(hx, maxBatch, m.HiddenSize, "hidden")
	output, hn, _ = m.run(x, hx, nil)
	if !batched {
		output, hn = output.Squeeze(batchDim), hn.Squeeze(1)
	}
	return output, hn
}

// LSTM is a multi-layer long short-term memory RNN (nn.LSTM): each layer
// computes the gates i, f, g, o from x_t·W_ihᵀ + b_ih + h_{t-1}·W_hhᵀ +
// b_hh, then c_t = f⊙c_{t-1} + i⊙g and h_t = o⊙tanh(c_t), projected by
// weight_hr_l{k} with a ProjSize. Parameters are named and drawn as RNN's.
// Options: NumLayers, Bias, BatchFirst, DropoutP (between layers),
// Bidirectional, ProjSize, DType, Device.
type LSTM struct{ rnnBase }

// NewLSTM makes nn.LSTM(input_size, hidden_size).
func NewLSTM(inputSize, hiddenSize int, opts ...Option) *LSTM {
	m := &LSTM{}
	newRNNBase(&m.rnnBase, "LSTM", "LSTM", inputSize, hiddenSize, opts)
	return m
}

// Forward is lstm(input, (h0, c0)): input as RNN's; h0
// (num_layers·num_directions, N, H_out) and c0 (…, N, hidden_size), or
// both unbatched without N, are the initial hidden and cell states, zeros
// when both are nil (H_out is proj_size with a ProjSize, else
// hidden_size). It returns output (L, N, num_directions·H_out) and the
// final states hn and cn, shaped as h0 and c0.
func (m *LSTM) Forward(input, h0, c0 *T) (output, hn, cn *T) {
	if (h0 == nil) != (c0 == nil) {
		tensor.TypePanicf("LSTM: h0 and c0 must both be given or both be nil")
	}
	x, batched, batchDim, maxBatch := m.batchInput(input)
	if h0 == nil {
		h0 = m.zeros(x, maxBatch, m.realHiddenSize())
		c0 = m.zeros(x, maxBatch, m.HiddenSize)
	} else if batched {
		if h0.Dim() != 3 || c0.Dim() != 3 {
			tensor.Panicf("For batched 3-D input, hx and cx should also be 3-D but got (%d-D, %d-D) tensors", h0.Dim(), c0.Dim())
		}
	} else {
		if h0.Dim() != 2 || c0.Dim() != 2 {
			tensor.Panicf("For unbatched 2-D input, hx and cx should also be 2-D but got (%d-D, %d-D) tensors", h0.Dim(), c0.Dim())
		}
		h0, c0 = h0.Unsqueeze(1), c0.Unsqueeze(1)
	}
	m.checkInput(x)
	m.checkHiddenSize(h0, maxBatch, m.realHiddenSize(), "hidden[0]")
	m.checkHiddenSize(c0, maxBatch, m.HiddenSize, "hidden[1]")
	output, hn, cn = m.run(x, h0, c0)
	if !batched {
		output, hn, cn = output.Squeeze(batchDim), hn.Squeeze(1), cn.Squeeze(1)
	}
	return output, hn, cn
}

func (m *LSTM) String() string { return Repr(m) }

// GRU is a multi-layer gated recurrent unit RNN (nn.GRU): each layer
// computes the reset and update gates r and z and the new gate
// n = tanh(x_t·W_inᵀ + b_in + r⊙(h_{t-1}·W_hnᵀ + b_hn)), then
// h_t = (1-z)⊙n + z⊙h_{t-1}. Parameters are named and drawn as RNN's.
// Options: NumLayers, Bias, BatchFirst, DropoutP (between layers),
// Bidirectional, DType, Device.
type GRU struct{ rnnBase }

// NewGRU makes nn.GRU(input_size, hidden_size).
func NewGRU(inputSize, hiddenSize int, opts ...Option) *GRU {
	m := &GRU{}
	newRNNBase(&m.rnnBase, "GRU", "GRU", inputSize, hiddenSize, opts)
	return m
}

// Forward is gru(input, hx), with RNN's shapes.
func (m *GRU) Forward(input, hx *T) (output, hn *T) { return m.forwardH(input, hx) }

func (m *GRU) String() string { return Repr(m) }

// rnnCellBase is what the cells share (PyTorch's RNNCellBase): weight_ih
// (gates·hidden_size, input_size), weight_hh (gates·hidden_size,
// hidden_size), bias_ih and bias_hh (gates·hidden_size; nil with
// Bias(false)), drawn from U(-1/√hidden_size, 1/√hidden_size) in that
// order.
type rnnCellBase struct {
	Base
	InputSize, HiddenSize              int
	Bias                               bool
	WeightIH, WeightHH, BiasIH, BiasHH *T
}

func newRNNCellBase(m *rnnCellBase, cls string, inputSize, hiddenSize, gates int, k kwargs) {
	m.SetName(cls)
	m.InputSize, m.HiddenSize = inputSize, hiddenSize
	m.Bias = k.bool("bias", true)
	m.WeightIH = m.RegisterParameter("weight_ih", empty(k, gates*hiddenSize, inputSize))
	m.WeightHH = m.RegisterParameter("weight_hh", empty(k, gates*hiddenSize, hiddenSize))
	if m.Bias {
		m.BiasIH = m.RegisterParameter("bias_ih", empty(k, gates*hiddenSize))
		m.BiasHH = m.RegisterParameter("bias_hh", empty(k, gates*hiddenSize))
	} else {
		m.RegisterParameter("bias_ih", nil)
		m.RegisterParameter("bias_hh", nil)
	}
	m.ResetParameters()
	k.place(m.WeightIH, m.WeightHH, m.BiasIH, m.BiasHH)
}

// ResetParameters draws the parameters again (reset_parameters).
func (m *rnnCellBase) ResetParameters() { uniformInit(m.Base.Parameters(), m.HiddenSize) }

// ExtraRepr is "10, 20" and ", bias=False" without a bias.
func (m *rnnCellBase) ExtraRepr() string {
	s := fmt.Sprintf("%d, %d", m.InputSize, m.HiddenSize)
	if !m.Bias {
		s += ", bias=False"
	}
	return s
}

func (m *rnnCellBase) weights() *RNNWeights {
	return &RNNWeights{WeightIH: m.WeightIH, WeightHH: m.WeightHH, BiasIH: m.BiasIH, BiasHH: m.BiasHH}
}

// batchInput checks the input's dims (PyTorch asserts them: an
// AssertionError there, a ValueError here) and gives an unbatched one its
// batch dim.
func (m *rnnCellBase) batchInput(input *T) (x *T, batched bool) {
	if d := input.Dim(); d != 1 && d != 2 {
		valueError("%s: Expected input to be 1-D or 2-D but received %d-D tensor", m.name(), d)
	}
	if input.Dim() == 2 {
		return input, true
	}
	return input.Unsqueeze(0), false
}

func (m *rnnCellBase) zeros(x *T) *T {
	return gt.Zeros(x.Size(0), m.HiddenSize, gt.WithDtype(x.DType()), gt.WithDevice(x.Device()))
}

// step checks the sizes as ATen's cell ops do and runs one step. PyTorch
// 1.13 labels both of LSTMCell's states "hidden0" in its messages.
func (m *rnnCellBase) step(mode string, x, h, c *T) (*T, *T) {
	if got := x.Size(1); got != m.InputSize {
		tensor.Panicf("input has inconsistent input_size: got %d expected %d", got, m.InputSize)
	}
	for _, s := range []*T{h, c} {
		if s == nil {
			continue
		}
		if x.Size(0) != s.Size(0) {
			tensor.Panicf("Input batch size %d doesn't match hidden0 batch size %d", x.Size(0), s.Size(0))
		}
		if s.Size(1) != m.HiddenSize {
			tensor.Panicf("hidden0 has inconsistent hidden_size: got %d, expected %d", s.Size(1), m.HiddenSize)
		}
	}
	w := m.weights()
	return cellStep(mode, gt.Linear(x, w.WeightIH, optBias(w.BiasIH)...), h, c, w)
}

// RNNCell is one step of an Elman RNN (nn.RNNCell):
// h' = tanh(x·W_ihᵀ + b_ih + h·W_hhᵀ + b_hh), or relu with
// Nonlinearity("relu"). Options: Bias, Nonlinearity, DType, Device.
type RNNCell struct {
	rnnCellBase
	Nonlinearity string
}

// NewRNNCell makes nn.RNNCell(input_size, hidden_size). As in PyTorch, the
// nonlinearity is checked at the first Forward.
func NewRNNCell(inputSize, hiddenSize int, opts ...Option) *RNNCell {
	k := parse("RNNCell", opts, "bias", "nonlinearity", "device", "dtype")
	m := &RNNCell{}
	newRNNCellBase(&m.rnnCellBase, "RNNCell", inputSize, hiddenSize, 1, k)
	m.Nonlinearity = k.str("nonlinearity", "tanh")
	return m
}

// Forward is cell(input, hx): input (N, input_size) or (input_size), hx
// (N, hidden_size) or (hidden_size), zeros when nil; it returns the next
// hidden state, shaped as hx.
func (m *RNNCell) Forward(input, hx *T) *T {
	x, batched := m.batchInput(input)
	if hx == nil {
		hx = m.zeros(x)
	} else if !batched {
		hx = hx.Unsqueeze(0)
	}
	var mode string
	switch m.Nonlinearity {
	case "tanh":
		mode = "RNN_TANH"
	case "relu":
		mode = "RNN_RELU"
	default:
		tensor.Panicf("Unknown nonlinearity: %s", m.Nonlinearity)
	}
	h, _ := m.step(mode, x, hx, nil)
	if !batched {
		h = h.Squeeze(0)
	}
	return h
}

// ExtraRepr adds ", nonlinearity=relu" when it is not tanh.
func (m *RNNCell) ExtraRepr() string {
	s := m.rnnCellBase.ExtraRepr()
	if m.Nonlinearity != "tanh" {
		s += ", nonlinearity=" + m.Nonlinearity
	}
	return s
}

func (m *RNNCell) String() string { return Repr(m) }

// LSTMCell is one step of an LSTM (nn.LSTMCell), with weight_ih
// (4·hidden_size, input_size) and weight_hh (4·hidden_size, hidden_size).
// Options: Bias, DType, Device.
type LSTMCell struct{ rnnCellBase }

// NewLSTMCell makes nn.LSTMCell(input_size, hidden_size).
func NewLSTMCell(inputSize, hiddenSize int, opts ...Option) *LSTMCell {
	k := parse("LSTMCell", opts, "bias", "device", "dtype")
	m := &LSTMCell{}
	newRNNCellBase(&m.rnnCellBase, "LSTMCell", inputSize, hiddenSize, 4, k)
	return m
}

// Forward is cell(input, (hx, cx)): the next hidden and cell states from
// input (N, input_size) or (input_size) and the states hx and cx (N,
// hidden_size) or (hidden_size), zeros when both are nil.
func (m *LSTMCell) Forward(input, hx, cx *T) (h1, c1 *T) {
	if (hx == nil) != (cx == nil) {
		tensor.TypePanicf("LSTMCell: hx and cx must both be given or both be nil")
	}
	x, batched := m.batchInput(input)
	if hx == nil {
		hx = m.zeros(x)
		cx = hx
	} else if !batched {
		hx, cx = hx.Unsqueeze(0), cx.Unsqueeze(0)
	}
	h1, c1 = m.step("LSTM", x, hx, cx)
	if !batched {
		h1, c1 = h1.Squeeze(0), c1.Squeeze(0)
	}
	return h1, c1
}

func (m *LSTMCell) String() string { return Repr(m) }

// GRUCell is one step of a GRU (nn.GRUCell), with weight_ih
// (3·hidden_size, input_size) and weight_hh (3·hidden_size, hidden_size).
// Options: Bias, DType, Device.
type GRUCell struct{ rnnCellBase }

// NewGRUCell makes nn.GRUCell(input_size, hidden_size).
func NewGRUCell(inputSize, hiddenSize int, opts ...Option) *GRUCell {
	k := parse("GRUCell", opts, "bias", "device", "dtype")
	m := &GRUCell{}
	newRNNCellBase(&m.rnnCellBase, "GRUCell", inputSize, hiddenSize, 3, k)
	return m
}

// Forward is cell(input, hx), with RNNCell's shapes.
func (m *GRUCell) Forward(input, hx *T) *T {
	x, batched := m.batchInput(input)
	if hx == nil {
		hx = m.zeros(x)
	} else if !batched {
		hx = hx.Unsqueeze(0)
	}
	h, _ := m.step("GRU", x, hx, nil)
	if !batched {
		h = h.Squeeze(0)
	}
	return h
}

func (m *GRUCell) String() string { return Repr(m) }

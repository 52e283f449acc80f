package nn_test

import (
	"math"
	"strings"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/tensor"
)

// TestTransformerDefaults checks nn.Transformer's defaults past d_model and
// nhead (six encoder and six decoder layers, dim_feedforward 2048, dropout
// 0.1, relu, eps 1e-5, post-norm, sequence first, final LayerNorms), with
// the parameter count and names of PyTorch's nn.Transformer(8, 2).
func TestTransformerDefaults(t *testing.T) {
	m := nn.NewTransformer(nn.DModel(8), nn.NHead(2))
	enc, ok := m.Encoder.(*nn.TransformerEncoder)
	if !ok {
		t.Fatalf("encoder is %T", m.Encoder)
	}
	dec, ok := m.Decoder.(*nn.TransformerDecoder)
	if !ok {
		t.Fatalf("decoder is %T", m.Decoder)
	}
	if enc.NumLayers != 6 || len(enc.Layers.Modules()) != 6 || dec.NumLayers != 6 || len(dec.Layers.Modules()) != 6 {
		t.Fatalf("layers: encoder %d, decoder %d", enc.NumLayers, dec.NumLayers)
	}
	if m.DModel != 8 || m.NHead != 2 || m.BatchFirst {
		t.Errorf("d_model %d, nhead %d, batch_first %v", m.DModel, m.NHead, m.BatchFirst)
	}
	l := dec.Layers.Modules()[5].(*nn.TransformerDecoderLayer)
	if l.NormFirst || l.Dropout.P != 0.1 || l.Norm3.Eps != 1e-5 || l.Linear1.OutFeatures != 2048 || l.SelfAttn.Dropout != 0.1 {
		t.Errorf("decoder layer: norm_first %v, dropout %v, eps %v, dim_feedforward %d, attention dropout %v",
			l.NormFirst, l.Dropout.P, l.Norm3.Eps, l.Linear1.OutFeatures, l.SelfAttn.Dropout)
	}
	if enc.Norm == nil || dec.Norm == nil {
		t.Error("no final norms")
	}
	n := 0
	for _, p := range m.Parameters() {
		n += p.Numel()
	}
	np := m.NamedParameters()
	// PyTorch: sum(p.numel() for p in nn.Transformer(8, 2).parameters()) etc.
	if n != 423584 || len(np) != 184 || np[0].Name != "encoder.layers.0.self_attn.in_proj_weight" || np[len(np)-1].Name != "decoder.norm.bias" {
		t.Errorf("%d values in %d parameters, %s ... %s; PyTorch: 423584 in 184, encoder.layers.0.self_attn.in_proj_weight ... decoder.norm.bias",
			n, len(np), np[0].Name, np[len(np)-1].Name)
	}
	if r := nn.Repr(enc.Layers.Modules()[0]); !strings.Contains(r, "(linear1): Linear(in_features=8, out_features=2048, bias=True)") ||
		!strings.Contains(r, "(dropout): Dropout(p=0.1, inplace=False)") {
		t.Errorf("encoder layer repr:\n%s", r)
	}
}

// TestGenerateSquareSubsequentMask is generate_square_subsequent_mask: a
// float32 mask, -inf strictly above the diagonal.
func TestGenerateSquareSubsequentMask(t *testing.T) {
	m := nn.GenerateSquareSubsequentMask(4)
	if m.DType() != gt.Float32 || m.Dim() != 2 || m.Size(0) != 4 || m.Size(1) != 4 {
		t.Fatalf("%s %v", m.DType(), m.Sizes())
	}
	v := m.Float64s()
	for i := range 4 {
		for j := range 4 {
			want := 0.0
			if j > i {
				want = math.Inf(-1)
			}
			if v[i*4+j] != want || math.Signbit(v[i*4+j]) != math.Signbit(want) {
				t.Errorf("[%d, %d] = %v, want %v", i, j, v[i*4+j], want)
			}
		}
	}
	if e := nn.GenerateSquareSubsequentMask(0); e.Numel() != 0 || e.Dim() != 2 {
		t.Errorf("size 0: %v", e.Sizes())
	}
}

// TestTransformerDevice builds on the CPU with the CPU's random stream and
// moves to the Device option's device.
func TestTransformerDevice(t *testing.T) {
	dev, ok := tensor.LookupDevice("gonum")
	if !ok {
		t.Fatal("the gonum example device is not registered")
	}
	opts := []nn.Option{nn.DModel(4), nn.NHead(2), nn.NumEncoderLayers(1), nn.NumDecoderLayers(1), nn.DimFeedforward(8)}
	gt.ManualSeed(3)
	cpu := nn.NewTransformer(opts...)
	gt.ManualSeed(3)
	m := nn.NewTransformer(append(opts, nn.Device(dev))...)
	want := cpu.StateDict()
	got := m.StateDict()
	for _, k := range want.Keys {
		g := got.Tensors[k]
		if g.Device() != dev {
			t.Fatalf("%s on %s", k, g.Device())
		}
		if !tensor.AllClose(g.ToDevice(tensor.CPU), want.Tensors[k], 0, 0) {
			t.Errorf("%s differs from the CPU-built value", k)
		}
	}
}

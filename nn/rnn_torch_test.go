package nn_test

import (
	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/nn"
)

// The recurrent layers' cases of testdata/nn (record_nn.py's rnn_cases and
// rnn_errors), added to TestAgainstPyTorch's and TestErrorsAsPyTorch's
// tables.

// runRNN is record_nn.py's _rnn_run: the inputs after the first are the
// initial states (h0, or h0 and c0); a cell's output is returned as it is,
// a layer's outputs flattened and concatenated.
func runRNN(m nn.Module, xs []*gt.Tensor) *gt.Tensor {
	var h, c *gt.Tensor
	if len(xs) > 1 {
		h = xs[1]
	}
	if len(xs) > 2 {
		c = xs[2]
	}
	flat := func(ts ...*gt.Tensor) *gt.Tensor {
		for i, t := range ts {
			ts[i] = t.Reshape([]int{-1})
		}
		return gt.Cat(ts)
	}
	switch m := m.(type) {
	case *nn.RNN:
		return flat(m.Forward(xs[0], h))
	case *nn.GRU:
		return flat(m.Forward(xs[0], h))
	case *nn.LSTM:
		return flat(m.Forward(xs[0], h, c))
	case *nn.RNNCell:
		return m.Forward(xs[0], h)
	case *nn.GRUCell:
		return m.Forward(xs[0], h)
	case *nn.LSTMCell:
		return flat(m.Forward(xs[0], h, c))
	}
	panic("runRNN: not a recurrent module")
}

func init() {
	rnn := func(build func() nn.Module, tl tol) torchCase { return torchCase{build: build, run: runRNN, tol: tl} }
	dt64 := gt.Float64
	for name, c := range map[string]torchCase{
		"rnn_tanh": rnn(func() nn.Module { return nn.NewRNN(4, 5) }, f32),
		"rnn_relu_2l_bidir_bf_h0": rnn(func() nn.Module {
			return nn.NewRNN(4, 5, nn.NumLayers(2), nn.Nonlinearity("relu"), nn.BatchFirst(true), nn.Bidirectional(true))
		}, f32),
		"rnn_3l_nobias_dropout": rnn(func() nn.Module {
			return nn.NewRNN(3, 4, nn.NumLayers(3), nn.Bias(false), nn.DropoutP(0.4))
		}, f32),
		"rnn_unbatched_h0": rnn(func() nn.Module { return nn.NewRNN(3, 4, nn.NumLayers(2), nn.BatchFirst(true)) }, f32),
		"lstm":             rnn(func() nn.Module { return nn.NewLSTM(4, 5) }, f32),
		"lstm_2l_bidir_bf_h0": rnn(func() nn.Module {
			return nn.NewLSTM(4, 5, nn.NumLayers(2), nn.BatchFirst(true), nn.Bidirectional(true))
		}, f32),
		"lstm_2l_bidir_dropout": rnn(func() nn.Module {
			return nn.NewLSTM(3, 4, nn.NumLayers(2), nn.DropoutP(0.5), nn.Bidirectional(true))
		}, f32),
		"lstm_nobias_unbatched_h0": rnn(func() nn.Module { return nn.NewLSTM(3, 4, nn.Bias(false)) }, f32),
		"lstm_proj":                rnn(func() nn.Module { return nn.NewLSTM(4, 6, nn.ProjSize(3)) }, f32),
		"lstm_proj_2l_bidir_bf_h0_dropout": rnn(func() nn.Module {
			return nn.NewLSTM(4, 6, nn.NumLayers(2), nn.ProjSize(3), nn.BatchFirst(true), nn.Bidirectional(true), nn.DropoutP(0.3))
		}, f32),
		"lstm_f64": rnn(func() nn.Module { return nn.NewLSTM(3, 4, nn.NumLayers(2), nn.DType(dt64)) }, f64),
		"gru":      rnn(func() nn.Module { return nn.NewGRU(4, 5) }, f32),
		"gru_2l_bidir_bf_h0": rnn(func() nn.Module {
			return nn.NewGRU(4, 5, nn.NumLayers(2), nn.BatchFirst(true), nn.Bidirectional(true))
		}, f32),
		"gru_3l_dropout_h0": rnn(func() nn.Module { return nn.NewGRU(3, 4, nn.NumLayers(3), nn.DropoutP(0.25)) }, f32),
		"gru_bidir_nobias_f64": rnn(func() nn.Module {
			return nn.NewGRU(3, 4, nn.Bias(false), nn.Bidirectional(true), nn.DType(dt64))
		}, f64),
		"rnn_cell":                   rnn(func() nn.Module { return nn.NewRNNCell(4, 5) }, f32),
		"rnn_cell_relu_nobias":       rnn(func() nn.Module { return nn.NewRNNCell(4, 5, nn.Bias(false), nn.Nonlinearity("relu")) }, f32),
		"rnn_cell_unbatched":         rnn(func() nn.Module { return nn.NewRNNCell(4, 5) }, f32),
		"lstm_cell":                  rnn(func() nn.Module { return nn.NewLSTMCell(4, 5) }, f32),
		"lstm_cell_nobias_unbatched": rnn(func() nn.Module { return nn.NewLSTMCell(4, 5, nn.Bias(false)) }, f32),
		"gru_cell":                   rnn(func() nn.Module { return nn.NewGRUCell(4, 5) }, f32),
		"gru_cell_nobias_unbatched":  rnn(func() nn.Module { return nn.NewGRUCell(4, 5, nn.Bias(false)) }, f32),
		"gru_cell_f64":               rnn(func() nn.Module { return nn.NewGRUCell(3, 4, nn.DType(dt64)) }, f64),
	} {
		if _, dup := torchCases[name]; dup {
			panic("duplicate case " + name)
		}
		torchCases[name] = c
	}

	x := func(s ...int) *gt.Tensor { return gt.Randn(s) }
	for name, f := range map[string]func(){
		"rnn_input_size":     func() { nn.NewRNN(10, 20).Forward(x(3, 2, 5), nil) },
		"rnn_input_dims":     func() { nn.NewGRU(10, 20).Forward(x(3, 2, 10, 1), nil) },
		"rnn_empty_sequence": func() { nn.NewLSTM(10, 20).Forward(x(0, 2, 10), nil, nil) },
		"rnn_hidden_size":    func() { nn.NewRNN(10, 20).Forward(x(3, 2, 10), x(1, 3, 20)) },
		"rnn_batched_hx_dims": func() {
			nn.NewGRU(10, 20).Forward(x(3, 2, 10), x(2, 20))
		},
		"rnn_unbatched_hx_dims": func() { nn.NewRNN(10, 20).Forward(x(3, 10), x(1, 1, 20)) },
		"lstm_c0_size": func() {
			nn.NewLSTM(10, 20).Forward(x(3, 2, 10), x(1, 2, 20), x(1, 2, 21))
		},
		"lstm_proj_hidden_size": func() {
			nn.NewLSTM(10, 20, nn.ProjSize(5)).Forward(x(3, 2, 10), x(1, 2, 20), x(1, 2, 20))
		},
		"lstm_batched_hx_dims": func() {
			nn.NewLSTM(10, 20).Forward(x(3, 2, 10), x(2, 20), x(1, 2, 20))
		},
		"lstm_unbatched_hx_dims": func() {
			nn.NewLSTM(10, 20).Forward(x(3, 10), x(1, 20), x(1, 1, 20))
		},
		"rnn_proj_size":           func() { nn.NewRNN(10, 20, nn.ProjSize(2)) },
		"gru_proj_size":           func() { nn.NewGRU(10, 20, nn.ProjSize(2)) },
		"rnn_nonlinearity":        func() { nn.NewRNN(10, 20, nn.Nonlinearity("gelu")) },
		"rnn_dropout_range":       func() { nn.NewLSTM(10, 20, nn.DropoutP(1.5)) },
		"lstm_proj_size_negative": func() { nn.NewLSTM(10, 20, nn.ProjSize(-1)) },
		"lstm_proj_size_too_big":  func() { nn.NewLSTM(10, 20, nn.ProjSize(20)) },
		"rnn_bad_keyword":         func() { nn.NewLSTM(10, 20, nn.Nonlinearity("relu")) },
		"rnn_cell_input_size":     func() { nn.NewRNNCell(10, 20).Forward(x(3, 5), nil) },
		"rnn_cell_batch":          func() { nn.NewGRUCell(10, 20).Forward(x(3, 10), x(2, 20)) },
		"rnn_cell_hidden_size":    func() { nn.NewRNNCell(10, 20).Forward(x(3, 10), x(3, 21)) },
		"rnn_cell_unbatched_hidden": func() {
			nn.NewRNNCell(10, 20).Forward(x(10), x(3, 20))
		},
		"lstm_cell_hidden_size": func() {
			nn.NewLSTMCell(10, 20).Forward(x(3, 10), x(3, 20), x(3, 21))
		},
		"rnn_cell_nonlinearity": func() {
			nn.NewRNNCell(10, 20, nn.Nonlinearity("gelu")).Forward(x(3, 10), nil)
		},
		"rnn_cell_bad_keyword": func() { nn.NewLSTMCell(10, 20, nn.Nonlinearity("relu")) },
	} {
		if _, dup := torchErrors[name]; dup {
			panic("duplicate error case " + name)
		}
		torchErrors[name] = f
	}
}

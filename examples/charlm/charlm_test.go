package main

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestRun trains a tiny model for two short epochs, resumes for a third, and
// checks the loss falls, a sample of the asked length is drawn, the files
// are written and the eager training loss gives the compiled one's losses.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	c := Config{
		Root: filepath.Join(runtime.GOROOT(), "src"), Files: []string{"errors/wrap.go"},
		GPT:    GPTConfig{Block: 16, Layers: 1, Heads: 2, D: 16},
		Epochs: 2, Steps: 10, Batch: 8, LR: 1e-2, Sample: 20, Prompt: "func ", Out: dir, Log: io.Discard,
	}
	r, err := Run(c)
	if err != nil {
		t.Fatal(err)
	}
	if l := r.History.Loss; l[1] >= l[0] {
		t.Errorf("loss did not fall: %v", l)
	}
	if len(r.Sample) != len("func ")+20 {
		t.Errorf("sample %q: want %d bytes", r.Sample, len("func ")+20)
	}
	// The same run with the training loss eager: the compiled graphs
	// compute the same losses up to rounding.
	e := c
	e.Eager, e.Out = true, t.TempDir()
	re, err := Run(e)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range re.History.Loss {
		if d := math.Abs(l - r.History.Loss[i]); d > 1e-4*math.Abs(l) {
			t.Errorf("epoch %d: eager loss %v, compiled %v", i+1, l, r.History.Loss[i])
		}
	}
	c.Epochs, c.Resume = 1, true
	r, err = Run(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.History.Loss) != 3 || r.History.Loss[2] >= r.History.Loss[0] {
		t.Errorf("resumed history %v: want 3 epochs, the last below the first", r.History.Loss)
	}
	for _, f := range []string{"curves.png", "checkpoint/model.safetensors", "checkpoint/optim.safetensors"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
}

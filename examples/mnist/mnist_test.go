package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestRun trains two epochs, resumes for a third, and checks the loss falls,
// the accuracy is well above chance and the files are written.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	c := Config{Data: filepath.Join("..", "data", "mnist10k-images-idx3-ubyte.gz"), Epochs: 2, Train: 256, Batch: 32, LR: 0.05, Out: dir, Log: io.Discard}
	r, err := Run(c)
	if err != nil {
		t.Fatal(err)
	}
	if l := r.History.Loss; l[1] >= l[0] {
		t.Errorf("loss did not fall: %v", l)
	}
	c.Epochs, c.Resume = 1, true
	r, err = Run(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.History.Loss) != 3 || r.History.Loss[2] >= r.History.Loss[0] {
		t.Errorf("resumed history %v: want 3 epochs, the last below the first", r.History.Loss)
	}
	if acc := r.History.Accuracy[2]; acc < 0.3 {
		t.Errorf("test accuracy %.3f after 3 epochs", acc)
	}
	for _, f := range []string{"curves.png", "checkpoint/model.safetensors", "checkpoint/optim.safetensors"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
}

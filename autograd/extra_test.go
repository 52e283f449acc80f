package autograd_test

import (
	"fmt"
	"testing"

	"github.com/goaten/goaten/internal/golden"
	"github.com/goaten/goaten/tensor"
)

// TestExtraGradRecords replays testdata/extra_grad.jsonl.gz: PyTorch 1.13
// gradients for edge cases the public goldens do not cover (zeros,
// infinities, NaN, empty and 0-d tensors, degenerate reductions, piecewise
// boundaries, more double backward), written by
// scripts/autograd-extra-golden.py.
func TestExtraGradRecords(t *testing.T) {
	recs, err := golden.Load("testdata/extra_grad.jsonl.gz")
	if err != nil {
		t.Fatal(err)
	}
	pass := 0
	for _, r := range recs {
		res := golden.ReplayGrad(r, tensor.CPU)
		if res.Outcome == golden.Pass {
			pass++
			continue
		}
		// Every record must run and pass: an op goaten lacks fails too.
		t.Errorf("%s line %d (%s, order %d): %.400s", r.Op, r.Line, r.Source, r.Order, res.Detail)
	}
	fmt.Printf("extra grad records: %d of %d passed\n", pass, len(recs))
}

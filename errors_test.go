package goaten_test

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/tensor"
)

// A nil tensor is Python's None in PyTorch's messages.
func TestNilTensorMessage(t *testing.T) {
	a := gt.FromFloat32s([]float32{1, 2})
	err := gt.Try(func() { a.Add(nil) })
	want := "aten::add.Tensor() Expected a value of type 'Tensor' for argument 'other' but instead found type 'NoneType'."
	if err == nil || err.Error() != want {
		t.Errorf("a.Add(nil): %v, want %q", err, want)
	}
}

// A class index out of range fails in nll_loss's check, with PyTorch's
// IndexError, on every path that reaches it.
func TestNLLTargetOutOfBounds(t *testing.T) {
	logits := gt.FromFloat32s([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	for _, c := range []struct {
		name string
		f    func()
		want string
	}{
		{"cross_entropy", func() { logits.CrossEntropyLoss(gt.FromInt64s([]int64{0, 10})) }, "Target 10 is out of bounds."},
		{"cross_entropy negative", func() { logits.CrossEntropyLoss(gt.FromInt64s([]int64{-1, 0})) }, "Target -1 is out of bounds."},
		{"nll_loss none", func() { logits.NllLoss(gt.FromInt64s([]int64{3, 0}), gt.WithReduction(0)) }, "Target 3 is out of bounds."},
		{"nll_loss 1-d", func() { logits.Select(0, 0).NllLoss(gt.FromInt64s([]int64{5}).Squeeze(0)) }, "Target 5 is out of bounds."},
		{"nll_loss2d", func() {
			logits.Reshape([]int{1, 3, 1, 2}).NllLoss2d(gt.FromInt64s([]int64{0, 7}, 1, 1, 2))
		}, "Target 7 is out of bounds."},
	} {
		err := gt.Try(c.f)
		e, ok := tensor.AsError(err)
		if !ok || e.Msg != c.want || e.Kind != tensor.IndexError {
			t.Errorf("%s: %v, want IndexError %q", c.name, err, c.want)
		}
	}
	// ignore_index is not a class; the meta device has no targets to check.
	logits.CrossEntropyLoss(gt.FromInt64s([]int64{-100, 2}))
	logits.CrossEntropyLoss(gt.FromInt64s([]int64{7, 2}), gt.WithIgnoreIndex(7))
	logits.ToDevice(gt.Meta).CrossEntropyLoss(gt.FromInt64s([]int64{0, 10}).ToDevice(gt.Meta))
}

// A misuse error names the op and, while it escapes (a recover of the
// user's own), the user's line; Try gives PyTorch's message alone.
func TestErrorWhere(t *testing.T) {
	a := gt.FromFloat32s([]float32{1, 2})
	var r any
	_, _, line, _ := runtime.Caller(0)
	func() {
		defer func() { r = recover() }()
		a.Mm(a) // line+3
	}()
	e, ok := r.(*gt.Error)
	if !ok {
		t.Fatalf("recovered %v, want a *goaten.Error", r)
	}
	where := "errors_test.go:" + strconv.Itoa(line+3)
	if !strings.HasSuffix(e.Where(), where) {
		t.Errorf("Where() = %q, want …%s", e.Where(), where)
	}
	if msg := e.Error(); !strings.HasPrefix(msg, "aten::mm: self must be a matrix (at ") || !strings.HasSuffix(msg, where+")") {
		t.Errorf("escaping error says %q, want the op, the message and (at …%s)", msg, where)
	}
	if msg := tensor.Caught(e).Error(); msg != "aten::mm: self must be a matrix" {
		t.Errorf("caught error says %q", msg)
	}
	err := gt.Try(func() { a.Mm(a) })
	if err.Error() != "aten::mm: self must be a matrix" || !strings.Contains(err.(*gt.Error).Where(), "errors_test.go") {
		t.Errorf("Try: %q, where %q", err, err.(*gt.Error).Where())
	}
}

// An uncaught misuse panic prints the user's line on its first line, and
// its trace shows each frame once: the dispatcher names the op without
// recovering and re-panicking.
func TestUncaughtPanicOutput(t *testing.T) {
	if os.Getenv("GOATEN_UNCAUGHT_PANIC") == "1" {
		// On a goroutine of its own, out of reach of the testing package's
		// recover, as in a program's main.
		a := gt.FromFloat32s([]float32{1, 2}).SetRequiresGrad(true)
		go func() {
			a.Mm(a) // the line the panic names
		}()
		select {}
	}
	if testing.Short() {
		t.Skip("-short: this test runs the test binary again in a child process (go test ./... runs it)")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestUncaughtPanicOutput$")
	cmd.Env = append(os.Environ(), "GOATEN_UNCAUGHT_PANIC=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the child did not panic:\n%s", out)
	}
	s := string(out)
	first, _, _ := strings.Cut(s[strings.Index(s, "panic:"):], "\n")
	if !strings.HasPrefix(first, "panic: aten::mm: self must be a matrix (at ") || !strings.Contains(first, "errors_test.go:") {
		t.Errorf("first line %q, want the op, the message and the user's line", first)
	}
	if strings.Contains(s, "recovered") || strings.Count(s, "panic(") > 0 {
		t.Errorf("the trace shows a re-panic:\n%s", s)
	}
}

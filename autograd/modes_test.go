package autograd_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/tensor"
)

// The reproduction: goroutine A evaluates under NoGrad while
// goroutine B builds a loss and calls Backward. A's scope must not switch
// recording off for B (grad mode is per goroutine, as PyTorch's is per
// thread).
func TestNoGradInOtherGoroutine(t *testing.T) {
	w := tensor.FromSlice([]float64{1, 2, 3}).SetRequiresGrad(true)
	inScope := make(chan struct{})
	done := make(chan struct{})
	go func() { // A
		autograd.NoGrad(func() {
			close(inScope)
			<-done
		})
	}()
	<-inScope
	// B, while A's scope is open.
	if !autograd.IsGradEnabled() {
		t.Fatal("another goroutine's NoGrad switched this one's recording off")
	}
	loss := w.Mul(w).SumAll()
	if err := tensor.Try(func() { loss.Backward() }); err != nil {
		t.Fatalf("Backward while another goroutine is in NoGrad: %v", err)
	}
	close(done)
	wantVals(t, "grad", w.Grad(), 2, 4, 6)
}

// Eight goroutines alternate NoGrad and EnableGrad scopes with training
// steps on their own weights; each checks its own gradients and that its
// no-grad results record nothing.
func TestGradModeGoroutines(t *testing.T) {
	const n, steps = 8, 40
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for g := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := tensor.FromSlice([]float64{float64(g), 1}).SetRequiresGrad(true)
			for s := range steps {
				var y *T
				autograd.NoGrad(func() {
					y = w.Mul(w)
					if autograd.IsGradEnabled() || y.RequiresGrad() {
						errs <- fmt.Errorf("goroutine %d step %d: NoGrad recorded", g, s)
					}
					autograd.EnableGrad(func() {
						z := w.Mul(w)
						if !z.RequiresGrad() {
							errs <- fmt.Errorf("goroutine %d step %d: EnableGrad inside NoGrad did not record", g, s)
						}
					})
					if w.Mul(w).RequiresGrad() {
						errs <- fmt.Errorf("goroutine %d step %d: leaving EnableGrad did not restore NoGrad", g, s)
					}
				})
				autograd.SetGrad(w, nil)
				loss := w.Mul(w).Mul(tensor.FromSlice([]float64{float64(s), 1})).SumAll()
				loss.Backward()
				gw := w.Grad().Float64s()
				if want := 2 * float64(g) * float64(s); gw[0] != want || gw[1] != 2 {
					errs <- fmt.Errorf("goroutine %d step %d: grad %v, want [%v 2]", g, s, gw, want)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// Scopes nest as in PyTorch: the innermost decides, and leaving a scope
// restores the mode it found.
func TestGradModeNesting(t *testing.T) {
	x := tensor.FromSlice([]float64{1}).SetRequiresGrad(true)
	rec := func() bool { return x.Exp().RequiresGrad() }
	var trail []bool
	autograd.EnableGrad(func() {
		trail = append(trail, rec())
		autograd.NoGrad(func() {
			trail = append(trail, rec())
			autograd.EnableGrad(func() { trail = append(trail, rec()) })
			trail = append(trail, rec())
			restore := autograd.SetGradEnabled(true)
			trail = append(trail, rec())
			restore()
			restore() // a second call changes nothing
			trail = append(trail, rec())
		})
		trail = append(trail, rec())
	})
	trail = append(trail, rec(), autograd.IsGradEnabled())
	if got, want := fmt.Sprint(trail), "[true false true false true false true true true]"; got != want {
		t.Fatalf("recording by scope %s, want %s", got, want)
	}
}

// A panic inside a scope restores that goroutine's mode and no other's.
func TestGradModePanicRestores(t *testing.T) {
	x := tensor.FromSlice([]float64{1}).SetRequiresGrad(true)
	otherIn := make(chan struct{})
	release := make(chan struct{})
	otherOut := make(chan bool)
	go func() {
		autograd.NoGrad(func() {
			close(otherIn)
			<-release
			otherOut <- autograd.IsGradEnabled()
		})
	}()
	<-otherIn
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the panic did not propagate")
			}
		}()
		autograd.NoGrad(func() { panic("inside the scope") })
	}()
	if !autograd.IsGradEnabled() || !x.Exp().RequiresGrad() {
		t.Error("the panic left this goroutine in NoGrad")
	}
	close(release)
	if <-otherOut {
		t.Error("the panic in one goroutine ended another goroutine's NoGrad scope")
	}
}

// A new goroutine starts with recording on, whatever its parent's mode.
func TestGradModeNewGoroutineDefault(t *testing.T) {
	x := tensor.FromSlice([]float64{1}).SetRequiresGrad(true)
	autograd.NoGrad(func() {
		ch := make(chan bool)
		go func() { ch <- autograd.IsGradEnabled() && x.Exp().RequiresGrad() }()
		if !<-ch {
			t.Error("a goroutine started inside NoGrad inherited it")
		}
	})
}

package functional_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/goaten/goaten/functional"
	"github.com/goaten/goaten/tensor"
)

// errorPrograms must fail the same way on both devices.
var errorPrograms = []program{
	{"view of a transpose", func(dev tensor.Device) []*T {
		return list(seq(dev, 3, 4).T().View([]int{12}))
	}},
	{"in-place broadcast into a row", func(dev tensor.Device) []*T {
		x := seq(dev, 3, 4)
		x.Select(0, 0).Add_(seq(dev, 3, 4))
		return list(x)
	}},
	{"float into an int view", func(dev tensor.Device) []*T {
		x := ints(dev, []int64{1, 2, 3, 4}, 2, 2)
		x.T().Add_(seq(dev, 2, 2))
		return list(x)
	}},
	{"as_strided past the storage", func(dev tensor.Device) []*T {
		x := seq(dev, 4, 4)
		return list(x.Slice(tensor.WithStart(1), tensor.WithEnd(2)).AsStrided([]int{4, 4}, []int{4, 1}, tensor.WithStorageOffset(4)))
	}},
	{"select out of range on a view", func(dev tensor.Device) []*T {
		return list(seq(dev, 3, 4).T().Select(0, 4))
	}},
	{"resize_ to a negative size", func(dev tensor.Device) []*T {
		x := seq(dev, 3)
		x.Resize_([]int{-1})
		return list(x)
	}},
	{"copy_ with a bad shape into a slice", func(dev tensor.Device) []*T {
		x := seq(dev, 3, 4)
		x.Slice(tensor.WithDim(1), tensor.WithStart(0), tensor.WithEnd(2)).Copy_(seq(dev, 3))
		return list(x)
	}},
	{"unfold window too large", func(dev tensor.Device) []*T {
		return list(seq(dev, 3, 4).Unfold(1, 5, 1))
	}},
}

func TestErrorsMatchCPU(t *testing.T) {
	for _, p := range errorPrograms {
		t.Run(p.name, func(t *testing.T) {
			_, werr := runErr(p, tensor.CPU)
			_, gerr := runErr(p, fdev)
			if werr == nil || gerr == nil {
				t.Fatalf("want errors on both devices, got cpu %v, functest %v", werr, gerr)
			}
			if werr.Error() != gerr.Error() {
				t.Errorf("functest: %v\n     cpu: %v", gerr, werr)
			}
		})
	}
}

func TestAPI(t *testing.T) {
	x := seq(fdev, 2, 3)
	if !functional.IsFunctional(x) || functional.IsFunctional(seq(tensor.CPU, 2)) {
		t.Fatal("IsFunctional")
	}
	v := x.Select(0, 1)
	if !functional.SameStorage(x, v) || functional.SameStorage(x, x.Clone()) {
		t.Fatal("SameStorage")
	}
	if n := functional.Mutations(x); n != 0 {
		t.Fatalf("Mutations before = %d", n)
	}
	v.AddScalar_(1)
	if n := functional.Mutations(x); n != 1 {
		t.Fatalf("Mutations after = %d", n)
	}
	functional.Sync(x)
	in := functional.Unwrap(x)
	if functional.IsFunctional(in) || in.Device() != fdev {
		t.Fatalf("Unwrap gave a functional tensor or the wrong device")
	}
	want := seq(tensor.CPU, 2, 3)
	want.Select(0, 1).AddScalar_(1)
	if msg := compare(want, functional.Wrap(in)); msg != "" {
		t.Fatal(msg)
	}
	if got, w := x.String(), strings.TrimSuffix(want.String(), ")")+", device='functest')"; got != w {
		t.Fatalf("printing:\n%s\nwant\n%s", got, w)
	}
	if got, w := fmt.Sprint(functional.Unwrap(v).CPUView().Float64s()), fmt.Sprint(want.Select(0, 1).Float64s()); got != w {
		t.Fatalf("view value %s, want %s", got, w)
	}
	if functional.Unwrap(want) != want {
		t.Fatal("Unwrap of a CPU tensor")
	}
	// Commit writes through a view's chain.
	c := x.T().Select(0, 2)
	functional.Commit(c, functional.Unwrap(seq(fdev, 2).MulScalar(10)))
	want.T().Select(0, 2).Copy_(seq(tensor.CPU, 2).MulScalar(10))
	if msg := compare(want, x); msg != "" {
		t.Fatal(msg)
	}
}

// TestConstructorsOnDevice: tensors a constructor makes on the device carry
// KeyFunctionalize with the backend's data and become bases on first use.
func TestConstructorsOnDevice(t *testing.T) {
	p := program{"constructors", func(dev tensor.Device) []*T {
		x := tensor.CallKw("aten::full", []any{[]int{3, 4}, 1.5}, map[string]any{"device": dev}).(*T)
		a := tensor.CallKw("aten::arange.start_step", []any{0, 12, 1}, map[string]any{"device": dev, "dtype": tensor.Float32}).(*T)
		v := x.T()
		v.Select(0, 2).Copy_(a.Slice(tensor.WithStart(0), tensor.WithEnd(3)))
		a.View([]int{3, 4}).Select(1, 0).MulScalar_(-1)
		return list(x, v, a)
	}}
	checkProgram(t, p)
}

// TestConcurrent runs the programs from several goroutines at once, and
// reads one shared base (lifted lazily) and its views from all of them.
func TestConcurrent(t *testing.T) {
	shared := tensor.FromSlice(vals(24), 4, 6).ToDevice(fdev)
	want := tensor.FromSlice(vals(24), 4, 6)
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i, p := range programs {
				if (i+g)%3 != 0 {
					continue
				}
				w, err := runErr(p, tensor.CPU)
				if err != nil {
					errs <- p.name + ": " + err.Error()
					return
				}
				got, err := runErr(p, fdev)
				if err != nil {
					errs <- p.name + ": " + err.Error()
					return
				}
				for k := range w {
					if msg := compare(w[k], got[k]); msg != "" {
						errs <- p.name + ": " + msg
					}
				}
			}
			for r := 0; r < 4; r++ {
				v := shared.Select(0, r).Slice(tensor.WithStart(g%3), tensor.WithEnd(6), tensor.WithStep(2))
				if msg := compare(want.Select(0, r).Slice(tensor.WithStart(g%3), tensor.WithEnd(6), tensor.WithStep(2)).SumAll(), v.SumAll()); msg != "" {
					errs <- "shared: " + msg
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

package data_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/data"
)

// indexDataset's sample i is (a float32 [2] of i, int64 i); Get fails at
// failAt and panics at panicAt (-1: never), and blocks on gate if set.
type indexDataset struct {
	n, failAt, panicAt int
	gate, release      chan struct{}
	mu                 sync.Mutex
	gets               int
}

func (d *indexDataset) Len() int { return d.n }

func (d *indexDataset) Get(i int) ([]*gt.Tensor, error) {
	d.mu.Lock()
	d.gets++
	d.mu.Unlock()
	if d.gate != nil {
		select {
		case <-d.gate:
		case <-d.release:
		}
	}
	if i == d.failAt {
		return nil, fmt.Errorf("sample %d is broken", i)
	}
	if i == d.panicAt {
		panic("boom")
	}
	return []*gt.Tensor{gt.FromFloat32s([]float32{float32(i), float32(i)}, 2), gt.FromInt64s([]int64{int64(i)}, 1).Select(0, 0)}, nil
}

func newIndex(n int) *indexDataset { return &indexDataset{n: n, failAt: -1, panicAt: -1} }

// epoch reads one epoch, returning each batch's sample indices.
func epoch(t *testing.T, l *data.Loader) [][]int64 {
	t.Helper()
	var out [][]int64
	for b, err := range l.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b[1].Int64s())
	}
	return out
}

func TestLoaderBatches(t *testing.T) {
	ds := newIndex(10)
	for _, c := range []struct {
		bs       int
		dropLast bool
		sizes    []int
	}{
		{3, false, []int{3, 3, 3, 1}},
		{3, true, []int{3, 3, 3}},
		{5, true, []int{5, 5}},
		{20, false, []int{10}},
		{20, true, nil},
	} {
		for _, workers := range []int{0, 1, 3} {
			l, err := data.NewLoader(ds, c.bs, data.WithDropLast(c.dropLast), data.WithWorkers(workers))
			if err != nil {
				t.Fatal(err)
			}
			got := epoch(t, l)
			var sizes []int
			next := int64(0)
			for _, b := range got {
				sizes = append(sizes, len(b))
				for _, i := range b {
					if i != next {
						t.Fatalf("bs %d workers %d: batches %v out of order", c.bs, workers, got)
					}
					next++
				}
			}
			if !slices.Equal(sizes, c.sizes) || l.Len() != len(c.sizes) {
				t.Errorf("bs %d drop_last %v workers %d: batch sizes %v (Len %d), want %v", c.bs, c.dropLast, workers, sizes, l.Len(), c.sizes)
			}
		}
	}
	// The default collate stacks: features [B, 2] float32, labels [B] int64.
	l, _ := data.NewLoader(ds, 4)
	it := l.Iter(context.Background())
	defer it.Close()
	if !it.Next() {
		t.Fatal(it.Err())
	}
	b := it.Batch()
	if len(b) != 2 || fmt.Sprint(b[0].Sizes()) != "[4 2]" || b[0].DType() != gt.Float32 || fmt.Sprint(b[1].Sizes()) != "[4]" || b[1].DType() != gt.Int64 {
		t.Errorf("batch %v", b)
	}
}

func TestLoaderShuffle(t *testing.T) {
	ds := newIndex(50)
	mk := func(seed uint64, workers int) *data.Loader {
		l, err := data.NewLoader(ds, 8, data.WithShuffle(seed), data.WithWorkers(workers))
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	flat := func(bs [][]int64) []int64 { return slices.Concat(bs...) }
	a, b, c := mk(7, 0), mk(7, 4), mk(8, 2)
	a1, a2 := flat(epoch(t, a)), flat(epoch(t, a))
	b1, b2 := flat(epoch(t, b)), flat(epoch(t, b))
	c1 := flat(epoch(t, c))
	if !slices.Equal(a1, b1) || !slices.Equal(a2, b2) {
		t.Errorf("the same seed gave different orders:\n%v\n%v", a1, b1)
	}
	if slices.Equal(a1, a2) {
		t.Error("two epochs had the same order")
	}
	if slices.Equal(a1, c1) {
		t.Error("two seeds gave the same order")
	}
	sorted := slices.Clone(a1)
	slices.Sort(sorted)
	for i, v := range sorted {
		if v != int64(i) {
			t.Fatalf("epoch is not a permutation: %v", a1)
		}
	}
	if got := a.Indices(0); !slices.Equal(toInt64(got), a1) {
		t.Errorf("Indices(0) %v, epoch 0 read %v", got, a1)
	}
	// The order is fixed by (seed, epoch): it must not change across Go
	// releases or machines.
	if got := mk(7, 0).Indices(0)[:10]; fmt.Sprint(got) != fmt.Sprint(shuffleGolden) {
		t.Errorf("seed 7 epoch 0 starts %v, want %v", got, shuffleGolden)
	}
}

var shuffleGolden = []int{15, 38, 21, 26, 34, 16, 31, 46, 1, 30}

func toInt64(xs []int) []int64 {
	out := make([]int64, len(xs))
	for i, x := range xs {
		out[i] = int64(x)
	}
	return out
}

func TestLoaderErrors(t *testing.T) {
	if _, err := data.NewLoader(newIndex(3), 0); err == nil || !strings.Contains(err.Error(), "batch_size should be a positive integer value, but got batch_size=0") {
		t.Errorf("batch size 0: %v", err)
	}
	for name, opt := range map[string]data.LoaderOption{
		"workers":  data.WithWorkers(-1),
		"prefetch": data.WithPrefetch(0),
		"collate":  data.WithCollate(nil),
	} {
		if _, err := data.NewLoader(newIndex(3), 1, opt); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := data.NewLoader(nil, 1); err == nil {
		t.Error("nil dataset: no error")
	}

	for _, workers := range []int{0, 1, 3} {
		// A failing sample ends the epoch with its error, after the batches before it.
		ds := newIndex(20)
		ds.failAt = 9
		l, _ := data.NewLoader(ds, 4, data.WithWorkers(workers))
		n := 0
		var last error
		for b, err := range l.All(context.Background()) {
			if err != nil {
				last = err
				break
			}
			n += len(b[1].Int64s())
		}
		if n != 8 || last == nil || !strings.Contains(last.Error(), "batch 2: sample 9: sample 9 is broken") {
			t.Errorf("workers %d: read %d samples, error %v", workers, n, last)
		}
		// A panic in the dataset becomes an error too.
		ds = newIndex(20)
		ds.panicAt = 0
		l, _ = data.NewLoader(ds, 4, data.WithWorkers(workers))
		it := l.Iter(context.Background())
		if it.Next() || it.Err() == nil || !strings.Contains(it.Err().Error(), "panic: boom") {
			t.Errorf("workers %d: panic gave %v", workers, it.Err())
		}
		it.Close()
	}
	// Collate errors: samples that do not stack.
	ragged := data.WithCollate(func(s [][]*gt.Tensor) ([]*gt.Tensor, error) {
		s[1] = []*gt.Tensor{gt.Zeros(3), s[1][1]}
		return data.DefaultCollate(s)
	})
	l, _ := data.NewLoader(newIndex(4), 2, ragged)
	it := l.Iter(context.Background())
	if it.Next() || it.Err() == nil || !strings.Contains(it.Err().Error(), "collate: tensor 0") {
		t.Errorf("ragged batch: %v", it.Err())
	}
	if _, err := data.DefaultCollate([][]*gt.Tensor{{gt.Zeros(1)}, {}}); err == nil {
		t.Error("samples of different lengths: no error")
	}
}

// waitGoroutines waits until at most n goroutines run.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, want at most %d:\n%s", runtime.NumGoroutine(), n, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}

// Cancelling the context, closing the iterator or leaving a range loop
// early ends every goroutine the loader started; so does reading to the end.
func TestLoaderNoLeaks(t *testing.T) {
	base := runtime.NumGoroutine()
	ds := newIndex(200)
	l, _ := data.NewLoader(ds, 4, data.WithWorkers(4), data.WithPrefetch(3))

	// A context cancelled before the start: no batch, the context's error.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	it := l.Iter(ctx)
	if it.Next() || !errors.Is(it.Err(), context.Canceled) {
		t.Errorf("cancelled context: Next read a batch or Err is %v", it.Err())
	}
	it.Close()
	waitGoroutines(t, base)

	// Cancelled half-way, while workers are blocked in Get: Next returns at
	// once, Close waits for the Gets to return.
	ds.gate, ds.release = make(chan struct{}), make(chan struct{})
	ctx, cancel = context.WithCancel(context.Background())
	it = l.Iter(ctx)
	// Let 10 samples through, then hold the workers (the goroutine keeps
	// its own channels: the fields are reset below).
	gate, release := ds.gate, ds.release
	go func() {
		for i := 0; i < 10; i++ {
			select {
			case gate <- struct{}{}:
			case <-release:
				return
			}
		}
	}()
	time.AfterFunc(20*time.Millisecond, cancel)
	n := 0
	for it.Next() {
		n++
	}
	if !errors.Is(it.Err(), context.Canceled) || n > 2 {
		t.Errorf("cancelled mid-way: %d batches, Err %v", n, it.Err())
	}
	close(ds.release)
	it.Close()
	ds.gate, ds.release = nil, nil
	waitGoroutines(t, base)

	// Close after one batch.
	it = l.Iter(context.Background())
	it.Next()
	it.Close()
	it.Close()
	if it.Next() || it.Err() != nil {
		t.Errorf("after Close: Next true or Err %v", it.Err())
	}
	waitGoroutines(t, base)

	// Leaving a range loop early.
	for range l.All(context.Background()) {
		break
	}
	waitGoroutines(t, base)

	// Reading to the end.
	if got := len(epoch(t, l)); got != 50 {
		t.Errorf("%d batches", got)
	}
	waitGoroutines(t, base)

	// Prefetch is bounded: with the consumer stalled, at most prefetch+1
	// batches (of 4 samples) are made.
	ds2 := newIndex(400)
	l2, _ := data.NewLoader(ds2, 4, data.WithWorkers(4), data.WithPrefetch(3))
	it = l2.Iter(context.Background())
	time.Sleep(50 * time.Millisecond)
	ds2.mu.Lock()
	gets := ds2.gets
	ds2.mu.Unlock()
	it.Close()
	if gets > 4*(3+1) {
		t.Errorf("%d samples read ahead; the bound is %d", gets, 4*(3+1))
	}
	waitGoroutines(t, base)
}

// Several epochs of one loader at once, with several workers each (run
// with -race).
func TestLoaderConcurrentEpochs(t *testing.T) {
	ds, err := data.LoadMNIST("testdata/mnist100-images-idx3-ubyte.gz", "testdata/mnist100-labels-idx1-ubyte.gz")
	if err != nil {
		t.Fatal(err)
	}
	l, _ := data.NewLoader(ds, 16, data.WithShuffle(1), data.WithWorkers(3))
	var wg sync.WaitGroup
	sums := make([]int64, 4)
	for e := range sums {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b, err := range l.All(context.Background()) {
				if err != nil {
					t.Error(err)
					return
				}
				sums[e] += b[0].To(gt.Int64).SumAll().Item().Int64()
			}
		}()
	}
	wg.Wait()
	for e, s := range sums {
		if s != 2661810 {
			t.Errorf("epoch %d: pixels sum to %d", e, s)
		}
	}
}

// TestLoaderTensorDatasetRows checks the loader's batches of a
// TensorDataset (one index_select per tensor) against DefaultCollate's
// stack of the samples, given explicitly so that it takes the general path:
// the same shapes, dtypes and bits, contiguous, in memory of their own.
func TestLoaderTensorDatasetRows(t *testing.T) {
	gt.ManualSeed(3)
	x := gt.Randn(5, 3, 10).Transpose(0, 2) // [10 3 5], not contiguous
	y := gt.Randperm(10)
	z := gt.Rand(10).Gt(gt.FromFloat32s([]float32{0.5}, 1))
	ds, err := data.NewTensorDataset(x, y, z)
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{0, 2} {
		fast, err := data.NewLoader(ds, 4, data.WithShuffle(7), data.WithWorkers(workers))
		if err != nil {
			t.Fatal(err)
		}
		slow, err := data.NewLoader(ds, 4, data.WithShuffle(7), data.WithWorkers(workers), data.WithCollate(data.DefaultCollate))
		if err != nil {
			t.Fatal(err)
		}
		var want [][]*gt.Tensor
		for b, err := range slow.All(context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, b)
		}
		k := 0
		for b, err := range fast.All(context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			if k >= len(want) {
				t.Fatalf("workers %d: more than %d batches", workers, len(want))
			}
			for j, got := range b {
				w := want[k][j]
				if !slices.Equal(got.Sizes(), w.Sizes()) || got.DType() != w.DType() || !got.IsContiguous() {
					t.Errorf("workers %d, batch %d, tensor %d: %v %v contiguous %v, want %v %v", workers, k, j, got.Sizes(), got.DType(), got.IsContiguous(), w.Sizes(), w.DType())
					continue
				}
				// float32 and int64 of these sizes and bool are exact in float64.
				gv, wv := got.To(gt.Float64).Float64s(), w.To(gt.Float64).Float64s()
				if !slices.EqualFunc(gv, wv, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
					t.Errorf("workers %d, batch %d, tensor %d: %v, want the stacked samples' %v", workers, k, j, gv, wv)
				}
			}
			b[0].Fill_(0) // its own memory: the dataset keeps its values
			k++
		}
		if k != len(want) {
			t.Errorf("workers %d: %d batches, want %d", workers, k, len(want))
		}
		if got := x.Abs().Sum(nil).Item().Float64(); got == 0 {
			t.Errorf("workers %d: filling a batch changed the dataset", workers)
		}
	}
}

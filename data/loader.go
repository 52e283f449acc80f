package data

import (
	"context"
	"fmt"
	"iter"
	"math/bits"
	"math/rand/v2"
	"sync"

	gt "github.com/goaten/goaten"
)

// CollateFunc merges a batch's samples (each a tuple of tensors) into the
// batch's tensors (collate_fn).
type CollateFunc func(samples [][]*gt.Tensor) ([]*gt.Tensor, error)

// DefaultCollate stacks the samples' k-th tensors into the batch's k-th
// tensor, along a new first dimension (default_collate on tuples of
// tensors): [B, ...] from B samples of shape [...]. Samples must have the
// same number of tensors, and the tensors at one position the same shape
// and dtype.
func DefaultCollate(samples [][]*gt.Tensor) ([]*gt.Tensor, error) {
	if len(samples) == 0 {
		return nil, fmt.Errorf("collate: no samples")
	}
	k := len(samples[0])
	out := make([]*gt.Tensor, k)
	col := make([]*gt.Tensor, len(samples))
	for j := 0; j < k; j++ {
		for i, s := range samples {
			if len(s) != k {
				return nil, fmt.Errorf("collate: each sample must have the same number of tensors: sample %d has %d, sample 0 has %d", i, len(s), k)
			}
			col[i] = s[j]
		}
		if err := gt.Try(func() { out[j] = gt.Stack(col) }); err != nil {
			return nil, fmt.Errorf("collate: tensor %d: %w", j, err)
		}
	}
	return out, nil
}

// Loader is torch.utils.data.DataLoader over a map-style dataset: it
// yields the dataset in batches of batchSize samples, in order or shuffled,
// each batch made by the collate function. By default one goroutine
// prepares up to two batches ahead of the one being read (WithWorkers,
// WithPrefetch); WithWorkers(0) makes every batch in the caller's
// goroutine when it asks, as PyTorch's num_workers=0 does.
//
// Each iteration (Iter or All) is one epoch. With WithShuffle(seed) the
// epochs' orders are permutations drawn from seed and the epoch's number
// (0, 1, ... in the order iterations start): two loaders with the same
// seed give the same orders. A Loader may run several iterations at once.
type Loader struct {
	ds        Dataset
	batchSize int
	shuffle   bool
	seed      uint64
	dropLast  bool
	collate   CollateFunc
	custom    bool // WithCollate was given
	workers   int
	prefetch  int

	mu    sync.Mutex
	epoch uint64
}

// LoaderOption is an option of NewLoader.
type LoaderOption func(*Loader)

// WithShuffle shuffles the samples every epoch, from seed (shuffle=True
// with a seeded generator).
func WithShuffle(seed uint64) LoaderOption {
	return func(l *Loader) { l.shuffle, l.seed = true, seed }
}

// WithDropLast drops the last batch of an epoch when it is smaller than
// the batch size (drop_last).
func WithDropLast(v bool) LoaderOption { return func(l *Loader) { l.dropLast = v } }

// WithCollate replaces DefaultCollate (collate_fn).
func WithCollate(f CollateFunc) LoaderOption {
	return func(l *Loader) { l.collate, l.custom = f, true }
}

// WithWorkers sets how many goroutines make batches (default 1; 0: the
// caller's goroutine makes each batch in Next, nothing runs ahead). With
// several, the dataset's Get and the collate function must be safe for
// concurrent use; batches still come in order.
func WithWorkers(n int) LoaderOption { return func(l *Loader) { l.workers = n } }

// WithPrefetch bounds how many batches are made ahead of the one being
// read (default 2); with the batch being read and the one the consumer
// waits for, at most n+1 batches exist at once per iteration.
func WithPrefetch(n int) LoaderOption { return func(l *Loader) { l.prefetch = n } }

// NewLoader makes a loader of ds in batches of batchSize.
func NewLoader(ds Dataset, batchSize int, opts ...LoaderOption) (*Loader, error) {
	l := &Loader{ds: ds, batchSize: batchSize, collate: DefaultCollate, workers: 1, prefetch: 2}
	for _, o := range opts {
		o(l)
	}
	switch {
	case ds == nil:
		return nil, fmt.Errorf("data loader: nil dataset")
	case batchSize <= 0:
		return nil, fmt.Errorf("batch_size should be a positive integer value, but got batch_size=%d", batchSize)
	case l.workers < 0:
		return nil, fmt.Errorf("num_workers option should be non-negative; got %d", l.workers)
	case l.prefetch <= 0:
		return nil, fmt.Errorf("prefetch should be positive, got %d", l.prefetch)
	case l.collate == nil:
		return nil, fmt.Errorf("data loader: nil collate function")
	}
	return l, nil
}

// Len is the number of batches in an epoch.
func (l *Loader) Len() int {
	n := l.ds.Len()
	if l.dropLast {
		return n / l.batchSize
	}
	return (n + l.batchSize - 1) / l.batchSize
}

// Indices returns the order of the samples in the given epoch: 0..N-1, or
// with WithShuffle the permutation drawn from the seed and epoch
// (Fisher-Yates on a PCG stream seeded with (seed, epoch), stable across
// Go releases).
func (l *Loader) Indices(epoch uint64) []int {
	n := l.ds.Len()
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	if !l.shuffle {
		return idx
	}
	src := rand.NewPCG(l.seed, epoch)
	for i := n - 1; i > 0; i-- {
		j := int(boundedRand(src, uint64(i+1)))
		idx[i], idx[j] = idx[j], idx[i]
	}
	return idx
}

// boundedRand is a uniform integer in [0, n) (Lemire's method).
func boundedRand(src *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}

// batches splits an epoch's order into batches.
func (l *Loader) batches(epoch uint64) [][]int {
	idx := l.Indices(epoch)
	var out [][]int
	for i := 0; i < len(idx); i += l.batchSize {
		j := min(i+l.batchSize, len(idx))
		if j-i < l.batchSize && l.dropLast {
			break
		}
		out = append(out, idx[i:j])
	}
	return out
}

// makeBatch gets the samples of one batch and collates them. A panic in
// the dataset or the collate function becomes an error: in a worker
// goroutine it would end the program.
func (l *Loader) makeBatch(ctx context.Context, k int, idx []int) (batch []*gt.Tensor, err error) {
	defer func() {
		if r := recover(); r != nil {
			batch, err = nil, fmt.Errorf("data loader: batch %d: panic: %v", k, r)
		}
	}()
	if td, ok := l.ds.(*TensorDataset); ok && !l.custom {
		// DefaultCollate of TensorDataset samples is each tensor's rows
		// idx: one index_select per tensor instead of a view per sample
		// and a stack (the same values, dtype and shape, in fresh memory).
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if b := td.rows(idx); b != nil {
			return b, nil
		}
	}
	samples := make([][]*gt.Tensor, len(idx))
	for i, j := range idx {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s, err := l.ds.Get(j)
		if err != nil {
			return nil, fmt.Errorf("data loader: batch %d: sample %d: %w", k, j, err)
		}
		samples[i] = s
	}
	b, err := l.collate(samples)
	if err != nil {
		return nil, fmt.Errorf("data loader: batch %d: %w", k, err)
	}
	return b, nil
}

// Iter is one epoch of a Loader, read with Next and Batch:
//
//	it := loader.Iter(ctx)
//	defer it.Close()
//	for it.Next() {
//		batch := it.Batch()
//	}
//	if err := it.Err(); err != nil { ... }
//
// Next returns false at once when ctx is cancelled; the goroutines stop
// as soon as the dataset Gets they are in return, and Close waits for
// that. They also stop at the end of the epoch and on the first error. An
// Iter abandoned half-way without Close keeps them (blocked) until ctx is
// cancelled; All closes its Iter itself.
type Iter struct {
	l       *Loader
	ctx     context.Context
	cancel  context.CancelFunc
	batches [][]int
	next    int // the next batch to make (no workers)

	order chan chan result // the batches' result slots, in order
	wg    sync.WaitGroup

	batch []*gt.Tensor
	err   error
	done  bool
}

type result struct {
	batch []*gt.Tensor
	err   error
}

type job struct {
	k   int
	idx []int
	res chan result
}

// Iter starts the next epoch. With workers, batches start being made at
// once.
func (l *Loader) Iter(ctx context.Context) *Iter {
	if ctx == nil {
		ctx = context.Background()
	}
	l.mu.Lock()
	epoch := l.epoch
	l.epoch++
	l.mu.Unlock()
	it := &Iter{l: l, batches: l.batches(epoch)}
	it.ctx, it.cancel = context.WithCancel(ctx)
	if l.workers == 0 {
		return it
	}
	it.order = make(chan chan result, l.prefetch)
	jobs := make(chan job)
	it.wg.Add(1 + l.workers)
	go func() { // the dispatcher: hands out batches in order, at most prefetch ahead
		defer it.wg.Done()
		defer close(jobs)
		defer close(it.order)
		for k, idx := range it.batches {
			res := make(chan result, 1)
			select {
			case it.order <- res:
			case <-it.ctx.Done():
				return
			}
			select {
			case jobs <- job{k, idx, res}:
			case <-it.ctx.Done():
				return
			}
		}
	}()
	for w := 0; w < l.workers; w++ {
		go func() {
			defer it.wg.Done()
			for j := range jobs {
				b, err := l.makeBatch(it.ctx, j.k, j.idx)
				j.res <- result{b, err} // buffered: never blocks
			}
		}()
	}
	return it
}

// Next moves to the next batch; it returns false at the end of the epoch,
// on an error (see Err), or once ctx is cancelled.
func (it *Iter) Next() bool {
	if it.done {
		return false
	}
	it.batch = nil
	if err := it.ctx.Err(); err != nil {
		it.finish(err)
		return false
	}
	if it.order == nil { // no workers: make the batch here
		if it.next >= len(it.batches) {
			it.finish(nil)
			return false
		}
		b, err := it.l.makeBatch(it.ctx, it.next, it.batches[it.next])
		it.next++
		if err != nil {
			it.finish(err)
			return false
		}
		it.batch = b
		return true
	}
	var res chan result
	select {
	case r, ok := <-it.order:
		if !ok {
			it.finish(it.ctx.Err())
			return false
		}
		res = r
	case <-it.ctx.Done():
		it.finish(it.ctx.Err())
		return false
	}
	select {
	case r := <-res:
		if r.err != nil {
			it.finish(r.err)
			return false
		}
		it.batch = r.batch
		return true
	case <-it.ctx.Done():
		it.finish(it.ctx.Err())
		return false
	}
}

// finish ends the iteration and tells its goroutines to stop; Close waits
// for them (a Get already running has to return first).
func (it *Iter) finish(err error) {
	it.done = true
	if it.err == nil {
		it.err = err
	}
	it.cancel()
}

// Batch is the current batch, valid after Next returned true.
func (it *Iter) Batch() []*gt.Tensor { return it.batch }

// Err is the error that ended the iteration: a dataset or collate error,
// or ctx's error once it was cancelled. Nil at the end of the epoch or
// after Close.
func (it *Iter) Err() error { return it.err }

// Close stops the iteration and waits until its goroutines have ended
// (workers finish the dataset Get they are in). It may be called more than
// once.
func (it *Iter) Close() {
	if !it.done {
		it.finish(nil)
	}
	it.wg.Wait()
}

// All is one epoch as a range-over-func sequence of (batch, nil), ending
// with (nil, err) if an error or cancellation stopped it. Leaving the loop
// early releases the goroutines.
func (l *Loader) All(ctx context.Context) iter.Seq2[[]*gt.Tensor, error] {
	return func(yield func([]*gt.Tensor, error) bool) {
		it := l.Iter(ctx)
		defer it.Close()
		for it.Next() {
			if !yield(it.Batch(), nil) {
				return
			}
		}
		if err := it.Err(); err != nil {
			yield(nil, err)
		}
	}
}

// Package data is torch.utils.data for Go: datasets, readers for MNIST's
// IDX files and for numeric CSV files, and a Loader that batches a dataset,
// shuffles it from a seed and prepares batches ahead on goroutines.
//
//	ds, err := data.LoadMNIST("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz")
//	loader, err := data.NewLoader(ds, 64, data.WithShuffle(42), data.WithWorkers(2))
//	for batch, err := range loader.All(ctx) {
//		if err != nil { ... }
//		images, labels := batch[0], batch[1] // [64, 28, 28] uint8, [64] int64
//	}
//
// A sample is a tuple of tensors ([]*goaten.Tensor), as PyTorch's datasets
// return tuples; the default collate function stacks each position into a
// batch. Readers of files return errors, never panic, on bad bytes.
package data

import (
	"fmt"

	gt "github.com/goaten/goaten"
)

// Dataset is a map-style dataset (torch.utils.data.Dataset with __len__):
// Len samples, Get(i) the i-th as a tuple of tensors. A dataset read by a
// Loader with several workers must allow concurrent Get calls.
type Dataset interface {
	Len() int
	Get(i int) ([]*gt.Tensor, error)
}

// TensorDataset is torch.utils.data.TensorDataset: sample i is the i-th
// slice along the first dimension of each tensor.
type TensorDataset struct {
	tensors []*gt.Tensor
}

// NewTensorDataset makes a dataset of tensors that share their first
// dimension (PyTorch's "Size mismatch between tensors" otherwise).
func NewTensorDataset(tensors ...*gt.Tensor) (*TensorDataset, error) {
	if len(tensors) == 0 {
		return nil, fmt.Errorf("TensorDataset needs at least one tensor")
	}
	for i, t := range tensors {
		if t == nil {
			return nil, fmt.Errorf("TensorDataset: tensor %d is nil", i)
		}
		if t.Dim() == 0 {
			return nil, fmt.Errorf("TensorDataset: tensor %d is 0-d; samples are slices along the first dimension", i)
		}
		if t.Size(0) != tensors[0].Size(0) {
			return nil, fmt.Errorf("Size mismatch between tensors: tensor %d has %d samples, tensor 0 has %d", i, t.Size(0), tensors[0].Size(0))
		}
	}
	for _, t := range tensors {
		// A tensor makes its version counter at its first view, unguarded
		// (tensor.ShareVersion): make it now, so that Get's views on
		// several loader workers only read it.
		_ = t.Narrow(0, 0, 0)
	}
	return &TensorDataset{tensors: append([]*gt.Tensor(nil), tensors...)}, nil
}

// Len is the number of samples.
func (d *TensorDataset) Len() int { return d.tensors[0].Size(0) }

// Get returns views of the i-th slice of each tensor. An index out of
// range is an error. Get is safe for concurrent use.
func (d *TensorDataset) Get(i int) ([]*gt.Tensor, error) {
	if i < 0 || i >= d.Len() {
		return nil, fmt.Errorf("index %d is out of range for a dataset of %d samples", i, d.Len())
	}
	out := make([]*gt.Tensor, len(d.tensors))
	for k, t := range d.tensors {
		out[k] = t.Select(0, i)
	}
	return out, nil
}

// rows returns the rows idx (in range) of each tensor as new tensors, what
// DefaultCollate makes of the samples idx, or nil where that needs the
// general path (an empty batch, a tensor off the CPU).
func (d *TensorDataset) rows(idx []int) []*gt.Tensor {
	if len(idx) == 0 {
		return nil
	}
	for _, t := range d.tensors {
		if t.Device() != gt.CPU {
			return nil
		}
	}
	ix := make([]int64, len(idx))
	for i, j := range idx {
		ix[i] = int64(j)
	}
	index := gt.FromInt64s(ix, len(ix))
	out := make([]*gt.Tensor, len(d.tensors))
	for k, t := range d.tensors {
		out[k] = t.IndexSelect(0, index)
	}
	return out
}

// Tensors returns the dataset's tensors (PyTorch's .tensors).
func (d *TensorDataset) Tensors() []*gt.Tensor { return append([]*gt.Tensor(nil), d.tensors...) }

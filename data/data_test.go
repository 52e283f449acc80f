package data_test

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"os"
	"strings"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/data"
	"github.com/goaten/goaten/tensor"
)

func TestTensorDataset(t *testing.T) {
	x := gt.FromFloat32s([]float32{1, 2, 3, 4, 5, 6}, 3, 2)
	y := gt.FromInt64s([]int64{7, 8, 9}, 3)
	ds, err := data.NewTensorDataset(x, y)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ds.Get(1)
	if ds.Len() != 3 || err != nil || s[0].Float64s()[1] != 4 || s[1].Item().Int64() != 8 || s[1].Dim() != 0 {
		t.Fatalf("len %d, sample 1 %v %v", ds.Len(), s, err)
	}
	if _, err := ds.Get(3); err == nil {
		t.Error("Get(3): no error")
	}
	if _, err := data.NewTensorDataset(x, gt.Zeros(4)); err == nil || !strings.Contains(err.Error(), "Size mismatch between tensors") {
		t.Errorf("mismatch: %v", err)
	}
	for _, bad := range [][]*gt.Tensor{nil, {nil}, {gt.Full(float32(1), []int{})}} {
		if _, err := data.NewTensorDataset(bad...); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

func TestMNIST(t *testing.T) {
	ds, err := data.LoadMNIST("testdata/mnist100-images-idx3-ubyte.gz", "testdata/mnist100-labels-idx1-ubyte.gz")
	if err != nil {
		t.Fatal(err)
	}
	x, y := ds.Tensors()[0], ds.Tensors()[1]
	if x.DType() != gt.Uint8 || tensor.ShapeString(x.Sizes()) != "[100, 28, 28]" || y.DType() != gt.Int64 || y.Numel() != 100 {
		t.Fatalf("images %s %v, labels %s %v", x.DType(), x.Sizes(), y.DType(), y.Sizes())
	}
	// Numbers from numpy on the same bytes.
	labels := y.Int64s()
	want := []int64{9, 3, 7, 0, 9, 7, 7, 9, 6, 5, 4, 5, 4, 9, 4, 2, 7, 0, 4, 7}
	for i, w := range want {
		if labels[i] != w {
			t.Fatalf("labels %v, want %v...", labels[:20], want)
		}
	}
	sum := func(t *gt.Tensor) int64 { return t.To(gt.Int64).SumAll().Item().Int64() }
	if s := sum(y); s != 459 {
		t.Errorf("label sum %d", s)
	}
	if s := sum(x.Select(0, 0)); s != 28397 {
		t.Errorf("image 0 sums to %d", s)
	}
	if s := sum(x); s != 2661810 {
		t.Errorf("images sum to %d", s)
	}
	if v := x.At(99, 14, 14).Int64(); v != 253 {
		t.Errorf("image 99 [14, 14] = %d", v)
	}
	// The same files read uncompressed.
	raw := func(path string) *bytes.Reader {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		zr, _ := gzip.NewReader(f)
		var b bytes.Buffer
		b.ReadFrom(zr)
		return bytes.NewReader(b.Bytes())
	}
	ds2, err := data.ReadMNIST(raw("testdata/mnist100-images-idx3-ubyte.gz"), raw("testdata/mnist100-labels-idx1-ubyte.gz"))
	if err != nil || !gt.AllClose(ds2.Tensors()[0].To(gt.Float32), x.To(gt.Float32), 0, 0) {
		t.Errorf("uncompressed: %v", err)
	}
}

// idxHeader is an IDX header: magic 0,0,type,rank then the sizes.
func idxHeader(typ byte, sizes ...uint32) []byte {
	b := []byte{0, 0, typ, byte(len(sizes))}
	for _, s := range sizes {
		b = binary.BigEndian.AppendUint32(b, s)
	}
	return b
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func TestIDXErrors(t *testing.T) {
	good := append(idxHeader(0x08, 2, 3), 1, 2, 3, 4, 5, 6)
	if x, err := data.ReadIDX(bytes.NewReader(good)); err != nil || tensor.ShapeString(x.Sizes()) != "[2, 3]" || x.At(1, 2).Int64() != 6 {
		t.Fatalf("good file: %v %v", x, err)
	}
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "truncated in the magic number"},
		{"short magic", []byte{0, 0, 8}, "truncated in the magic number"},
		{"wrong magic", append([]byte{0x1f, 0, 8, 1}, good[4:]...), "bad magic number 0x1f000801"},
		{"text", []byte("hello world"), "not an IDX file"},
		{"unknown type", idxHeader(0x0A, 1), "unknown element type 0x0a"},
		{"too many dims", []byte{0, 0, 8, 40}, "40 dimensions"},
		{"truncated sizes", idxHeader(0x08, 2, 3)[:9], "truncated in the size of dimension 1"},
		{"truncated data", good[:len(good)-1], "needs 6 bytes of data, got 5"},
		{"no data", idxHeader(0x08, 100, 28, 28), "needs 78400 bytes of data, got 0"},
		{"huge claim", idxHeader(0x08, 1<<31, 1<<31), "too large"},
		{"huge claim, no data", idxHeader(0x0E, 1<<30), "needs 8589934592 bytes of data, got 0"},
		{"trailing data", append(good, 7), "data goes on past the 6 bytes"},
		{"wide type short", append(idxHeader(0x0C, 2), 0, 0, 0, 1, 0, 0), "needs 8 bytes of data, got 6"},
		{"bad gzip", []byte{0x1f, 0x8b, 8, 0, 0, 0}, "idx:"},
		{"truncated gzip", gz(good)[:12], "idx:"},
	} {
		_, err := data.ReadIDX(bytes.NewReader(c.b))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}

	images := append(idxHeader(0x08, 2, 2, 2), make([]byte, 8)...)
	labels := append(idxHeader(0x08, 2), 1, 2)
	for _, c := range []struct {
		name           string
		images, labels []byte
		want           string
	}{
		{"labels as images", labels, labels, "mnist images: want uint8 [N, rows, cols]"},
		{"images as labels", images, images, "mnist labels: want uint8 [N]"},
		{"counts", images, append(idxHeader(0x08, 3), 1, 2, 3), "2 images but 3 labels"},
		{"float images", append(idxHeader(0x0D, 1, 1, 1), 0, 0, 0, 0), append(idxHeader(0x08, 1), 1), "got float32"},
		{"bad labels file", images, labels[:7], "mnist labels: idx: truncated"},
	} {
		_, err := data.ReadMNIST(bytes.NewReader(c.images), bytes.NewReader(c.labels))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := data.LoadMNIST("testdata/nope", "testdata/nope"); err == nil {
		t.Error("missing file: no error")
	}
}

// Every IDX element type round-trips through WriteIDX and ReadIDX, gzipped
// or not, big-endian on disk.
func TestIDXRoundTrip(t *testing.T) {
	for _, x := range []*gt.Tensor{
		tensor.FromSlice([]uint8{0, 1, 255, 7}, 2, 2),
		tensor.FromSlice([]int8{-128, 1, 127}, 3),
		tensor.FromSlice([]int16{-300, 2, 32767, 5, 6, 7}, 1, 2, 3),
		gt.FromInt32s([]int32{-1 << 31, 70000}, 2),
		gt.FromFloat32s([]float32{1.5, -2.25e-30, 3e38}, 3, 1),
		gt.FromFloat64s([]float64{1e300, -0.1}, 2),
		tensor.FromSlice([]uint8{}, 0, 5),
		gt.FromFloat32s([]float32{1, 2, 3, 4, 5, 6}, 2, 3).Permute([]int{1, 0}),
	} {
		var b bytes.Buffer
		if err := data.WriteIDX(&b, x); err != nil {
			t.Fatal(err)
		}
		for _, enc := range [][]byte{b.Bytes(), gz(b.Bytes())} {
			y, err := data.ReadIDX(bytes.NewReader(enc))
			if err != nil {
				t.Fatalf("%v: %v", x, err)
			}
			if y.DType() != x.DType() || tensor.ShapeString(y.Sizes()) != tensor.ShapeString(x.Sizes()) || !gt.AllClose(y.To(gt.Float64), x.To(gt.Float64), 0, 0) {
				t.Errorf("wrote %v, read %v", x, y)
			}
		}
	}
	if b := idxHeader(0x0B, 1); !bytes.Equal(b, []byte{0, 0, 0x0B, 1, 0, 0, 0, 1}) {
		t.Fatal("idxHeader")
	}
	var b bytes.Buffer
	data.WriteIDX(&b, tensor.FromSlice([]int16{0x0102}, 1))
	if !bytes.HasSuffix(b.Bytes(), []byte{1, 2}) {
		t.Errorf("int16 not big-endian: % x", b.Bytes())
	}
	if err := data.WriteIDX(&b, gt.FromBools([]bool{true}, 1)); err == nil {
		t.Error("bool: no error")
	}
}

// FuzzReadIDX: ReadIDX never panics, and what it reads writes back to the
// same bytes.
func FuzzReadIDX(f *testing.F) {
	f.Add(append(idxHeader(0x08, 2, 3), 1, 2, 3, 4, 5, 6))
	f.Add(append(idxHeader(0x0B, 2), 1, 2, 3, 4))
	f.Add(append(idxHeader(0x0D, 1, 1), 0x3f, 0x80, 0, 0))
	f.Add(append(idxHeader(0x0E), 0x3f, 0xf0, 0, 0, 0, 0, 0, 0))
	f.Add(idxHeader(0x08, 0))
	f.Add(idxHeader(0x09, 1<<31, 1<<31))
	f.Add(gz(append(idxHeader(0x08, 1), 9)))
	if b, err := os.ReadFile("testdata/mnist100-labels-idx1-ubyte.gz"); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		x, err := data.ReadIDX(bytes.NewReader(b))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := data.WriteIDX(&out, x); err != nil {
			t.Fatal(err)
		}
		in := b
		if len(b) > 1 && b[0] == 0x1f && b[1] == 0x8b {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			var u bytes.Buffer
			u.ReadFrom(zr)
			in = u.Bytes()
		}
		// NaN payloads survive (the bits are copied), so the bytes match exactly.
		if !bytes.Equal(out.Bytes(), in) {
			t.Fatalf("read %v from % x, wrote % x", x, in, out.Bytes())
		}
	})
}

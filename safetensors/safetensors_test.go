package safetensors_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/safetensors"
	"github.com/goaten/goaten/tensor"
)

// file assembles a safetensors file from a header (used as is, no padding)
// and data bytes.
func file(header string, data []byte) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	b = append(b, header...)
	return append(b, data...)
}

// onlyReader hides everything but Read, so Read cannot learn the size.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// decodeAll runs every entry point on b and checks they agree on success.
func decodeAll(t *testing.T, b []byte) (*safetensors.File, error) {
	t.Helper()
	f, err := safetensors.Parse(b)
	_, rerr := safetensors.Read(onlyReader{bytes.NewReader(b)})
	path := filepath.Join(t.TempDir(), "f.safetensors")
	if werr := os.WriteFile(path, b, 0o644); werr != nil {
		t.Fatal(werr)
	}
	_, lerr := safetensors.Load(path)
	if (err == nil) != (rerr == nil) || (err == nil) != (lerr == nil) {
		t.Fatalf("Parse, Read and Load disagree: %v / %v / %v", err, rerr, lerr)
	}
	return f, err
}

func TestMalformed(t *testing.T) {
	f32x2 := make([]byte, 8)
	good := `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`
	huge := make([]byte, 8)
	binary.LittleEndian.PutUint64(huge, math.MaxUint64)
	beyond := file(good, f32x2)
	binary.LittleEndian.PutUint64(beyond, uint64(len(good)+9))
	twoTensors := func(a, b string) string {
		return `{"a":{"dtype":"F32","shape":[1],"data_offsets":` + a + `},"b":{"dtype":"F32","shape":[1],"data_offsets":` + b + `}}`
	}
	cases := []struct {
		name string
		b    []byte
		want string // a piece of the error message
	}{
		{"empty", nil, "too short for the header length"},
		{"truncated header length", []byte{8, 0, 0}, "too short for the header length"},
		{"header length beyond the file", beyond, "past the end"},
		{"huge header length", append(huge, "{}"...), "exceeds the limit"},
		{"header length with no header", file(strings.Repeat(" ", 10), nil)[:8], "past the end"},
		{"invalid JSON", file(`{"a":{"dtype":"F32",}}`, nil), "not valid JSON"},
		{"unterminated JSON", file(`{"a":{"dtype":"F32"`, nil), "ends inside"},
		{"not an object", file(`[1,2]`, nil), "does not start with a JSON object"},
		{"trailing garbage in header", file(`{}  x`, nil), "after its JSON object"},
		{"second object in header", file(`{} {}`, nil), "after its JSON object"},
		{"invalid UTF-8", file("{\"\xff\":{}}", nil), "UTF-8"},
		{"tensor not an object", file(`{"a":[1]}`, nil), `tensor "a"`},
		{"unknown dtype", file(`{"a":{"dtype":"F8_E4M3","shape":[2],"data_offsets":[0,2]}}`, make([]byte, 2)), "unknown or unsupported dtype"},
		{"complex dtype", file(`{"a":{"dtype":"C64","shape":[1],"data_offsets":[0,8]}}`, f32x2), "unknown or unsupported dtype"},
		{"dtype not a string", file(`{"a":{"dtype":5,"shape":[2],"data_offsets":[0,8]}}`, f32x2), "want a string"},
		{"negative dim", file(`{"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}}`, f32x2), "not a non-negative integer"},
		{"fractional dim", file(`{"a":{"dtype":"F32","shape":[1.5],"data_offsets":[0,8]}}`, f32x2), "not a non-negative integer"},
		{"exponent dim", file(`{"a":{"dtype":"F32","shape":[2e0],"data_offsets":[0,8]}}`, f32x2), "not a non-negative integer"},
		{"dim beyond int64", file(`{"a":{"dtype":"F32","shape":[99999999999999999999],"data_offsets":[0,8]}}`, f32x2), "not a non-negative integer"},
		{"shape not an array", file(`{"a":{"dtype":"F32","shape":2,"data_offsets":[0,8]}}`, f32x2), "shape"},
		{"nested shape", file(`{"a":{"dtype":"F32","shape":[[2]],"data_offsets":[0,8]}}`, f32x2), "want integers"},
		{"missing dtype", file(`{"a":{"shape":[2],"data_offsets":[0,8]}}`, f32x2), "no dtype"},
		{"missing shape", file(`{"a":{"dtype":"F32","data_offsets":[0,8]}}`, f32x2), "no shape"},
		{"missing offsets", file(`{"a":{"dtype":"F32","shape":[2]}}`, f32x2), "no data_offsets"},
		{"unknown field", file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":1}}`, f32x2), "unknown field"},
		{"duplicate field", file(`{"a":{"dtype":"F32","dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, f32x2), "twice"},
		{"duplicate name", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, f32x2), "twice"},
		{"three offsets", file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4,8]}}`, f32x2), "want 2 integers"},
		{"one offset", file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[8]}}`, f32x2), "want 2 integers"},
		{"negative offset", file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[-8,0]}}`, f32x2), "not a non-negative integer"},
		{"offsets reversed", file(`{"a":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}}`, f32x2), "end before they begin"},
		{"offsets past the data", file(`{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}`, f32x2), "file holds 8"},
		{"offsets not from zero", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, f32x2), "gap"},
		{"gap between tensors", file(twoTensors("[0,4]", "[8,12]"), make([]byte, 12)), "gap"},
		{"overlapping tensors", file(twoTensors("[0,4]", "[2,6]"), make([]byte, 6)), "overlap"},
		{"same range twice", file(twoTensors("[0,4]", "[0,4]"), make([]byte, 4)), "overlap"},
		{"data not covered", file(good, make([]byte, 12)), "tensors cover 8 data bytes but the file holds 12"},
		{"data truncated", file(good, make([]byte, 5)), "file holds 5"},
		{"shape and range disagree", file(`{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`, f32x2), "needs 12 bytes"},
		{"dtype and range disagree", file(`{"a":{"dtype":"F64","shape":[2],"data_offsets":[0,8]}}`, f32x2), "needs 16 bytes"},
		{"huge shape overflows", file(`{"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}}`, f32x2), "too large"},
		{"huge declared size", file(`{"a":{"dtype":"F64","shape":[1073741824,8],"data_offsets":[0,68719476736]}}`, f32x2), "file holds 8"},
		{"metadata not strings", file(`{"__metadata__":{"k":1}}`, nil), "want a string"},
		{"metadata not an object", file(`{"__metadata__":[]}`, nil), "want an object"},
		{"metadata duplicate key", file(`{"__metadata__":{"k":"a","k":"b"}}`, nil), "twice"},
		{"bool out of range", file(`{"a":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}}`, []byte{1, 2}), "want 0 or 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := decodeAll(t, c.b)
			if err == nil {
				t.Fatal("no error")
			}
			var se *safetensors.Error
			if !errors.As(err, &se) {
				t.Errorf("error %v (%T) is not a *safetensors.Error", err, err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not mention %q", err, c.want)
			}
		})
	}
}

// A reader that declares far more than it holds must fail before allocating
// what it declares: a 99 MB header and a 64 GiB tensor cost no more than
// the few bytes actually present.
func TestReadDoesNotTrustDeclaredSizes(t *testing.T) {
	bigHeader := binary.LittleEndian.AppendUint64(nil, 99_000_000)
	bigHeader = append(bigHeader, `{"a":`...)
	bigTensor := file(`{"a":{"dtype":"F64","shape":[1073741824,8],"data_offsets":[0,68719476736]}}`, make([]byte, 100))
	for name, b := range map[string][]byte{"header": bigHeader, "tensor": bigTensor} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := safetensors.Read(onlyReader{bytes.NewReader(b)})
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
			t.Errorf("%s: allocated %d bytes for a %d-byte input (%v)", name, got, len(b), err)
		}
	}
}

// Data that arrives in pieces larger than the read-ahead chunk still loads.
func TestReadLargeTensorInPieces(t *testing.T) {
	x := gt.Arange(0, 1<<19, gt.WithDtype(gt.Float32)) // 2 MiB
	b, err := safetensors.Marshal(map[string]*tensor.Tensor{"x": x}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := safetensors.Read(onlyReader{&slowReader{b: b}})
	if err != nil {
		t.Fatal(err)
	}
	if !tensor.AllClose(f.Tensors["x"], x, 0, 0) {
		t.Fatal("values differ")
	}
	if _, err := safetensors.Read(onlyReader{bytes.NewReader(b[:len(b)-1])}); err == nil ||
		!strings.Contains(err.Error(), "too short for the tensor data") {
		t.Fatalf("truncated stream: %v", err)
	}
	if _, err := safetensors.Read(onlyReader{bytes.NewReader(append(b, 0))}); err == nil ||
		!strings.Contains(err.Error(), "past the") {
		t.Fatalf("stream with a trailing byte: %v", err)
	}
}

type slowReader struct{ b []byte }

func (s *slowReader) Read(p []byte) (int, error) {
	if len(s.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 70001)], s.b)
	s.b = s.b[n:]
	return n, nil
}

func TestRoundTrip(t *testing.T) {
	x := gt.Arange(-3, 3, gt.WithStep(0.5), gt.WithDtype(gt.Float64)).Reshape([]int{3, 4})
	ts := map[string]*tensor.Tensor{
		"f64":      x,
		"f32":      x.To(gt.Float32),
		"f16":      x.To(gt.Float16),
		"bf16":     x.To(gt.BFloat16),
		"i64":      gt.FromInt64s([]int64{math.MinInt64, -1, 0, math.MaxInt64}, 2, 2),
		"i32":      gt.FromInt32s([]int32{math.MinInt32, 7, math.MaxInt32}, 3),
		"i16":      x.MulScalar(1000).To(gt.Int16),
		"i8":       x.MulScalar(40).To(gt.Int8),
		"u8":       x.AddScalar(3).MulScalar(40).To(gt.Uint8),
		"bool":     gt.FromBools([]bool{true, false, true}, 3, 1),
		"scalar":   tensor.FromScalar(tensor.Float(2.5), gt.Float32),
		"empty":    gt.Empty(0, 5),
		"strided":  x.Transpose(0, 1), // written contiguous
		"view":     x.Select(0, 1),    // a view with a storage offset
		"nan":      gt.FromFloat32s([]float32{float32(math.NaN()), float32(math.Inf(-1)), -0.0}, 3),
		"ünï cødé": gt.Ones(1),
	}
	meta := map[string]string{"format": "pt", "note": "quote \" and newline \n"}
	b, err := safetensors.Marshal(ts, meta)
	if err != nil {
		t.Fatal(err)
	}
	if n := binary.LittleEndian.Uint64(b); n%8 != 0 {
		t.Errorf("header length %d is not a multiple of 8", n)
	}
	f, err := decodeAll(t, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Tensors) != len(ts) || len(f.Names) != len(ts) {
		t.Fatalf("got %d tensors, want %d", len(f.Tensors), len(ts))
	}
	for name, want := range ts {
		got := f.Tensors[name]
		if got == nil {
			t.Errorf("%s: missing", name)
			continue
		}
		if got.DType() != want.DType() || !slices.Equal(got.Sizes(), want.Sizes()) || !got.IsContiguous() {
			t.Errorf("%s: got %s %v, want %s %v", name, got.DType(), got.Sizes(), want.DType(), want.Sizes())
			continue
		}
		if want.DType().IsFloat() {
			if !tensor.AllClose(got, want, 0, 0) {
				t.Errorf("%s: got %v, want %v", name, got, want)
			}
		} else if !slices.Equal(got.Int64s(), want.Int64s()) {
			t.Errorf("%s: got %v, want %v", name, got, want)
		}
	}
	if len(f.Metadata) != 2 || f.Metadata["note"] != meta["note"] {
		t.Errorf("metadata %v, want %v", f.Metadata, meta)
	}
	// Names are in data order, which Write makes name order.
	for i := 1; i < len(f.Names); i++ {
		if f.Names[i-1] >= f.Names[i] {
			t.Errorf("names out of order: %v", f.Names)
		}
	}
	// Encoding what was decoded gives the same bytes.
	b2, err := safetensors.Marshal(f.Tensors, f.Metadata)
	if err != nil || !bytes.Equal(b, b2) {
		t.Errorf("re-encoding differs (err %v)", err)
	}
}

// TestReadSize: a file of known size in a longer stream is read to its
// end and no further, with the data allocated once (the storage); a size
// that does not match the header, or a stream that ends early, is an
// error.
func TestReadSize(t *testing.T) {
	x := gt.Arange(0, 1<<18, gt.WithDtype(gt.Float32)) // 1 MiB
	b, err := safetensors.Marshal(map[string]*tensor.Tensor{"x": x}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := bytes.NewReader(append(slices.Clone(b), "next"...))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f, err := safetensors.ReadSize(onlyReader{r}, int64(len(b)))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if !tensor.AllClose(f.Tensors["x"], x, 0, 0) {
		t.Fatal("values differ")
	}
	if r.Len() != 4 {
		t.Errorf("ReadSize left %d bytes of the stream, want 4", r.Len())
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20+64<<10 {
		t.Errorf("ReadSize allocated %d bytes for 1 MiB of data", alloc)
	}
	for _, c := range []struct {
		r    io.Reader
		size int64
		want string
	}{
		{bytes.NewReader(b), int64(len(b)) + 1, "tensors cover"},
		{bytes.NewReader(b), int64(len(b)) - 1, "tensors cover"},
		{bytes.NewReader(b[:len(b)-1]), int64(len(b)), "too short for the tensor data"},
		{bytes.NewReader(b), 7, "too short for the header length"},
	} {
		if _, err := safetensors.ReadSize(onlyReader{c.r}, c.size); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("size %d: got %v, want %q", c.size, err, c.want)
		}
	}
}

func TestRoundTripEmptyFile(t *testing.T) {
	b, err := safetensors.Marshal(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := decodeAll(t, b)
	if err != nil || len(f.Tensors) != 0 || f.Metadata != nil {
		t.Fatalf("got %v, %v", f, err)
	}
	// Zero-size tensors may share an offset.
	f, err = decodeAll(t, file(`{"a":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},"b":{"dtype":"I8","shape":[2,0],"data_offsets":[0,0]},"__metadata__":null}`, nil))
	if err != nil || len(f.Tensors) != 2 {
		t.Fatalf("got %v, %v", f, err)
	}
}

func TestWriteErrors(t *testing.T) {
	meta := tensor.NewMetaContiguous([]int{2}, gt.Float32, gt.Meta)
	for name, ts := range map[string]map[string]*tensor.Tensor{
		"reserved name": {"__metadata__": gt.Ones(1)},
		"nil tensor":    {"a": nil},
		"bad UTF-8":     {"\xff": gt.Ones(1)},
		"meta tensor":   {"a": meta},
	} {
		if _, err := safetensors.Marshal(ts, nil); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	path := filepath.Join(t.TempDir(), "x.safetensors")
	if err := safetensors.Save(path, map[string]*tensor.Tensor{"a": nil}, nil); err == nil {
		t.Error("Save of a nil tensor: no error")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Error("failed Save left a file behind")
	}
}

func TestSaveLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.safetensors")
	x := gt.Arange(0, 6, gt.WithDtype(gt.Float32)).Reshape([]int{2, 3})
	if err := safetensors.Save(path, map[string]*tensor.Tensor{"x": x}, map[string]string{"k": "v"}); err != nil {
		t.Fatal(err)
	}
	f, err := safetensors.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !tensor.AllClose(f.Tensors["x"], x, 0, 0) || f.Metadata["k"] != "v" {
		t.Fatalf("got %v %v", f.Tensors["x"], f.Metadata)
	}
	if _, err := safetensors.Load(filepath.Join(t.TempDir(), "missing")); !os.IsNotExist(err) {
		t.Fatalf("missing file: %v", err)
	}
}

// The PyTorch model files load, and writing them back reproduces them byte
// for byte (same name order, packing and padding).
func TestGoldenFiles(t *testing.T) {
	paths, _ := filepath.Glob("../testdata/models/*/*.safetensors")
	if len(paths) == 0 {
		t.Fatal("no model files under ../testdata/models")
	}
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := safetensors.Load(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		b, err := safetensors.Marshal(f.Tensors, f.Metadata)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, raw) {
			t.Errorf("%s: re-encoding differs", p)
		}
	}
	f, err := safetensors.Load("../testdata/models/mlp/inputs.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	if x := f.Tensors["x"]; x.DType() != gt.Float32 || !slices.Equal(x.Sizes(), []int{8, 784}) {
		t.Errorf("x: %s %v", x.DType(), x.Sizes())
	}
	if l := f.Tensors["labels"]; l.DType() != gt.Int64 || !slices.Equal(l.Sizes(), []int{8}) {
		t.Errorf("labels: %s %v", l.DType(), l.Sizes())
	}
	if f.Metadata["model"] != "mlp" {
		t.Errorf("metadata %v", f.Metadata)
	}
}

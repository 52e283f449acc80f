package data

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/tensor"
)

// The IDX element types (the third byte of the magic number).
var idxTypes = []struct {
	code  byte
	dtype gt.DType
	size  int
}{
	{0x08, gt.Uint8, 1},
	{0x09, gt.Int8, 1},
	{0x0B, gt.Int16, 2},
	{0x0C, gt.Int32, 4},
	{0x0D, gt.Float32, 4},
	{0x0E, gt.Float64, 8},
}

// maxIDXDims bounds the rank a header may declare.
const maxIDXDims = 16

// ReadIDX reads one IDX file (the format of MNIST's files: a big-endian
// magic number 0x00 0x00 <type> <rank>, the rank's sizes as big-endian
// uint32, then the elements, big-endian), gzip-compressed or not: a
// tensor of the declared shape and type (uint8, int8, int16, int32,
// float32, float64). A truncated file, a wrong magic number, sizes that
// do not match the data, or bytes after it are errors. What ReadIDX
// allocates is bounded by the bytes actually read, whatever the header
// declares.
func ReadIDX(r io.Reader) (*gt.Tensor, error) {
	r, err := maybeGunzip(r)
	if err != nil {
		return nil, fmt.Errorf("idx: %v", err)
	}
	var magic [4]byte
	if _, err := io.ReadFull(r, magic[:]); err != nil {
		return nil, truncated("the magic number", err)
	}
	if magic[0] != 0 || magic[1] != 0 {
		return nil, fmt.Errorf("idx: bad magic number %#08x: not an IDX file", binary.BigEndian.Uint32(magic[:]))
	}
	typ := -1
	for i, t := range idxTypes {
		if t.code == magic[2] {
			typ = i
		}
	}
	if typ < 0 {
		return nil, fmt.Errorf("idx: bad magic number %#08x: unknown element type %#02x", binary.BigEndian.Uint32(magic[:]), magic[2])
	}
	rank := int(magic[3])
	if rank > maxIDXDims {
		return nil, fmt.Errorf("idx: %d dimensions; at most %d are supported", rank, maxIDXDims)
	}
	shape := make([]int, rank)
	n := 1
	for i := range shape {
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, truncated(fmt.Sprintf("the size of dimension %d", i), err)
		}
		d := binary.BigEndian.Uint32(b[:])
		shape[i] = int(d)
		if d != 0 && n > math.MaxInt32/int(d) {
			return nil, fmt.Errorf("idx: shape %v is too large", shape[:i+1])
		}
		n *= int(d)
	}
	size := idxTypes[typ].size
	var buf bytes.Buffer // grows with the bytes that arrive, not with the header's claim
	if got, err := io.CopyN(&buf, r, int64(n)*int64(size)); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("idx: truncated: shape %v of %s needs %d bytes of data, got %d",
				shape, idxTypes[typ].dtype, n*size, got)
		}
		return nil, fmt.Errorf("idx: %v", err)
	}
	var extra [1]byte
	if k, _ := io.ReadFull(r, extra[:]); k > 0 {
		return nil, fmt.Errorf("idx: data goes on past the %d bytes that shape %v of %s takes", n*size, shape, idxTypes[typ].dtype)
	}
	return idxTensor(buf.Bytes(), idxTypes[typ].dtype, shape), nil
}

// idxTensor decodes big-endian elements.
func idxTensor(b []byte, d gt.DType, shape []int) *gt.Tensor {
	be := binary.BigEndian
	switch d {
	case gt.Uint8:
		return tensor.FromSlice(append([]uint8(nil), b...), shape...)
	case gt.Int8:
		v := make([]int8, len(b))
		for i := range v {
			v[i] = int8(b[i])
		}
		return tensor.FromSlice(v, shape...)
	case gt.Int16:
		v := make([]int16, len(b)/2)
		for i := range v {
			v[i] = int16(be.Uint16(b[2*i:]))
		}
		return tensor.FromSlice(v, shape...)
	case gt.Int32:
		v := make([]int32, len(b)/4)
		for i := range v {
			v[i] = int32(be.Uint32(b[4*i:]))
		}
		return tensor.FromSlice(v, shape...)
	case gt.Float32:
		v := make([]float32, len(b)/4)
		for i := range v {
			v[i] = math.Float32frombits(be.Uint32(b[4*i:]))
		}
		return tensor.FromSlice(v, shape...)
	}
	v := make([]float64, len(b)/8)
	for i := range v {
		v[i] = math.Float64frombits(be.Uint64(b[8*i:]))
	}
	return tensor.FromSlice(v, shape...)
}

func truncated(what string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("idx: truncated in %s", what)
	}
	return fmt.Errorf("idx: reading %s: %v", what, err)
}

// maybeGunzip returns a reader of r's content, decompressed when it
// starts with gzip's magic bytes.
func maybeGunzip(r io.Reader) (io.Reader, error) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(2)
	if len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		return gzip.NewReader(br)
	}
	return br, nil
}

// WriteIDX writes t (contiguous or not) as an uncompressed IDX file; wrap
// w in a gzip.Writer for a .gz file. t must have an IDX element type and
// at most 255 dimensions of at most 2³²-1 each.
func WriteIDX(w io.Writer, t *gt.Tensor) error {
	code := -1
	for _, it := range idxTypes {
		if it.dtype == t.DType() {
			code = int(it.code)
		}
	}
	if code < 0 {
		return fmt.Errorf("idx: no IDX element type for %s", t.DType())
	}
	if t.Dim() > 255 {
		return fmt.Errorf("idx: %d dimensions; the format has at most 255", t.Dim())
	}
	bw := bufio.NewWriter(w)
	bw.Write([]byte{0, 0, byte(code), byte(t.Dim())})
	for _, s := range t.Sizes() {
		if s > math.MaxUint32 {
			return fmt.Errorf("idx: size %d does not fit the format", s)
		}
		binary.Write(bw, binary.BigEndian, uint32(s))
	}
	raw, err := nativeBytes(t)
	if err != nil {
		return err
	}
	size := t.DType().ItemSize()
	var b [8]byte
	for i := 0; i < len(raw); i += size {
		switch size { // the element's bits, native to big-endian
		case 1:
			b[0] = raw[i]
		case 2:
			binary.BigEndian.PutUint16(b[:], binary.NativeEndian.Uint16(raw[i:]))
		case 4:
			binary.BigEndian.PutUint32(b[:], binary.NativeEndian.Uint32(raw[i:]))
		case 8:
			binary.BigEndian.PutUint64(b[:], binary.NativeEndian.Uint64(raw[i:]))
		}
		bw.Write(b[:size])
	}
	return bw.Flush()
}

// nativeBytes is t's elements, contiguous, in the machine's byte order.
func nativeBytes(t *gt.Tensor) (raw []byte, err error) {
	err = gt.Try(func() {
		c := t.CPUView().Contiguous()
		n := c.Numel() * c.DType().ItemSize()
		if n == 0 {
			return
		}
		off := c.StorageOffset() * c.DType().ItemSize()
		raw = c.Storage().Bytes()[off : off+n]
	})
	return raw, err
}

// LoadIDX reads the IDX file (gzip-compressed or not) at path.
func LoadIDX(path string) (*gt.Tensor, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := ReadIDX(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// ReadMNIST reads an MNIST images file (magic 0x00000803: uint8 [N, rows,
// cols], 28×28 for MNIST) and its labels file (magic 0x00000801: uint8
// [N]), gzip-compressed or not, into a dataset of (image [rows, cols]
// uint8, label int64) samples, as torchvision's MNIST gives (before
// transforms). The files must agree on N.
func ReadMNIST(images, labels io.Reader) (*TensorDataset, error) {
	x, err := ReadIDX(images)
	if err != nil {
		return nil, fmt.Errorf("mnist images: %w", err)
	}
	y, err := ReadIDX(labels)
	if err != nil {
		return nil, fmt.Errorf("mnist labels: %w", err)
	}
	return mnist(x, y)
}

func mnist(x, y *gt.Tensor) (*TensorDataset, error) {
	if x.DType() != gt.Uint8 || x.Dim() != 3 {
		return nil, fmt.Errorf("mnist images: want uint8 [N, rows, cols] (magic 0x00000803), got %s %v", x.DType(), x.Sizes())
	}
	if y.DType() != gt.Uint8 || y.Dim() != 1 {
		return nil, fmt.Errorf("mnist labels: want uint8 [N] (magic 0x00000801), got %s %v", y.DType(), y.Sizes())
	}
	if x.Size(0) != y.Size(0) {
		return nil, fmt.Errorf("mnist: %d images but %d labels", x.Size(0), y.Size(0))
	}
	return NewTensorDataset(x, y.To(gt.Int64))
}

// LoadMNIST is ReadMNIST on the files at imagesPath and labelsPath.
func LoadMNIST(imagesPath, labelsPath string) (*TensorDataset, error) {
	x, err := LoadIDX(imagesPath)
	if err != nil {
		return nil, err
	}
	y, err := LoadIDX(labelsPath)
	if err != nil {
		return nil, err
	}
	return mnist(x, y)
}

// Package safetensors reads and writes the safetensors format
// (https://github.com/huggingface/safetensors): an 8-byte little-endian
// header length N, N bytes of JSON describing each tensor's dtype, shape and
// byte range, then the packed little-endian tensor data.
//
// Reading never panics on bad bytes, and what it allocates is bounded by
// the bytes actually present (a header may declare terabytes): every
// malformed file (truncated, a header that is not the expected
// JSON, offsets out of range, overlapping or leaving gaps, a shape that does
// not match its byte range, an unknown dtype) is an error.
package safetensors

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"unsafe"

	"github.com/goaten/goaten/tensor"
)

// MaxHeaderSize bounds the JSON header, as the reference implementation does.
const MaxHeaderSize = 100_000_000

// File is the content of a safetensors file.
type File struct {
	// Tensors maps each name to a contiguous CPU tensor owning its data.
	Tensors map[string]*tensor.Tensor
	// Names lists the tensors in the order of their data in the file.
	Names []string
	// Metadata is the optional "__metadata__" string map (nil when absent).
	Metadata map[string]string
}

// Error is a malformed-file error; errors.As finds it in what Load, Read and
// Parse return.
type Error struct {
	Msg string
}

func (e *Error) Error() string { return "safetensors: " + e.Msg }

func errorf(format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...)}
}

// dtypes maps the format's dtype names to goaten's.
var dtypes = map[string]tensor.DType{
	"F64":  tensor.Float64,
	"F32":  tensor.Float32,
	"F16":  tensor.Float16,
	"BF16": tensor.BFloat16,
	"I64":  tensor.Int64,
	"I32":  tensor.Int32,
	"I16":  tensor.Int16,
	"I8":   tensor.Int8,
	"U8":   tensor.Uint8,
	"BOOL": tensor.Bool,
}

// DTypeName is the format's name for d ("F32", "BF16", "BOOL", ...).
func DTypeName(d tensor.DType) (string, bool) {
	for k, v := range dtypes {
		if v == d {
			return k, true
		}
	}
	return "", false
}

// Load reads the safetensors file at path.
func Load(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return decode(f, -1)
	}
	return decode(f, st.Size())
}

// Read reads a safetensors file from r, which must end where the file's
// data ends.
func Read(r io.Reader) (*File, error) { return decode(r, -1) }

// ReadSize reads a safetensors file of exactly size bytes from r (an entry
// of an archive, a section of a larger file). The sizes in the header are
// checked against size before anything is allocated for the data, and
// each tensor's bytes are read straight into its storage: the data is
// copied once, and no buffer holds the whole file. It reads size bytes and
// no more.
func ReadSize(r io.Reader, size int64) (*File, error) {
	if size < 8 {
		return nil, errorf("file too short for the header length (%d bytes)", size)
	}
	return decode(r, size)
}

// Parse decodes a safetensors file held in memory. The tensors get their own
// storage: b is not retained.
func Parse(b []byte) (*File, error) { return decode(bytes.NewReader(b), int64(len(b))) }

// decode reads a file of size bytes from r (size < 0: unknown, read to EOF).
func decode(r io.Reader, size int64) (*File, error) {
	var lenBuf [8]byte
	if _, err := io.ReadFull(r, lenBuf[:]); err != nil {
		return nil, truncated("header length", err)
	}
	n := binary.LittleEndian.Uint64(lenBuf[:])
	if n > MaxHeaderSize {
		return nil, errorf("header length %d exceeds the limit of %d bytes", n, MaxHeaderSize)
	}
	if size >= 0 && n > uint64(size-8) {
		return nil, errorf("header length %d goes past the end of the %d-byte file", n, size)
	}
	// With an unknown size, ReadAll grows the buffer only as data arrives.
	header, err := io.ReadAll(io.LimitReader(r, int64(n)))
	if err != nil {
		return nil, err
	}
	if uint64(len(header)) != n {
		return nil, errorf("header length %d goes past the end of the file (%d header bytes present)", n, len(header))
	}
	entries, meta, err := parseHeader(header)
	if err != nil {
		return nil, err
	}
	dataLen, err := checkLayout(entries)
	if err != nil {
		return nil, err
	}
	if size >= 0 && uint64(size-8)-n != uint64(dataLen) {
		return nil, errorf("tensors cover %d data bytes but the file holds %d", dataLen, uint64(size-8)-n)
	}
	f := &File{Tensors: make(map[string]*tensor.Tensor, len(entries)), Metadata: meta}
	for _, e := range entries {
		st, err := readStorage(r, e.end-e.begin, size >= 0)
		if err != nil {
			var se *Error
			if errors.As(err, &se) {
				return nil, errorf("tensor %q: %s", e.name, se.Msg)
			}
			return nil, fmt.Errorf("safetensors: reading tensor %q: %w", e.name, err)
		}
		if err := fixBytes(st.Bytes(), e.dtype); err != nil {
			return nil, errorf("tensor %q: %v", e.name, err)
		}
		t := tensor.NewMetaContiguous(e.shape, e.dtype, tensor.CPU).WithRaw(st)
		f.Tensors[e.name] = t
		f.Names = append(f.Names, e.name)
	}
	if size < 0 {
		var one [1]byte
		if k, _ := io.ReadFull(r, one[:]); k != 0 {
			return nil, errorf("data continues past the %d bytes the tensors cover", dataLen)
		}
	}
	return f, nil
}

func truncated(what string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errorf("file too short for the %s", what)
	}
	return err
}

// readChunk is how much an unknown-size read allocates ahead of the data
// that has actually arrived.
const readChunk = 1 << 20

// readStorage reads nbytes into a fresh storage. When the input's size was
// not checked against the header, the storage grows as the data arrives, so
// a header that declares more than the input holds costs no more memory
// than the input.
func readStorage(r io.Reader, nbytes int, known bool) (*tensor.Storage, error) {
	if known || nbytes <= readChunk {
		// ReadFull fills the storage or fails: it need not be zeroed.
		st := tensor.NewStorageUninit(nbytes)
		if _, err := io.ReadFull(r, st.Bytes()); err != nil {
			return nil, truncated("tensor data", err)
		}
		return st, nil
	}
	st := tensor.NewStorage(readChunk)
	have := 0
	for have < nbytes {
		if have == st.NBytes() {
			st.Resize(min(2*have, nbytes))
		}
		k, err := io.ReadFull(r, st.Bytes()[have:])
		have += k
		if err != nil {
			return nil, truncated("tensor data", err)
		}
	}
	return st, nil
}

// fixBytes turns little-endian file bytes into native order in place and
// checks that booleans are 0 or 1.
func fixBytes(b []byte, d tensor.DType) error {
	if d == tensor.Bool {
		for i, v := range b {
			if v > 1 {
				return fmt.Errorf("BOOL element %d holds byte %d (want 0 or 1)", i, v)
			}
		}
		return nil
	}
	if !bigEndian {
		return nil
	}
	swapBytes(b, d.ItemSize())
	return nil
}

var bigEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 0
}()

func swapBytes(b []byte, w int) {
	if w == 1 {
		return
	}
	for i := 0; i+w <= len(b); i += w {
		for j := 0; j < w/2; j++ {
			b[i+j], b[i+w-1-j] = b[i+w-1-j], b[i+j]
		}
	}
}

// entry is one tensor described by the header.
type entry struct {
	name       string
	dtype      tensor.DType
	shape      []int
	begin, end int
}

// checkLayout sorts entries by position and checks that they tile the data
// section from 0 with no gap or overlap and that each byte range matches the
// shape and dtype. It returns the data section's length.
func checkLayout(entries []entry) (int, error) {
	sort.SliceStable(entries, func(i, j int) bool {
		if entries[i].begin != entries[j].begin {
			return entries[i].begin < entries[j].begin
		}
		return entries[i].end < entries[j].end
	})
	pos := 0
	for _, e := range entries {
		if e.end < e.begin {
			return 0, errorf("tensor %q: data_offsets [%d, %d] end before they begin", e.name, e.begin, e.end)
		}
		n, ok := numel(e.shape)
		if !ok || n > tensor.MaxElements {
			return 0, errorf("tensor %q: shape %v is too large", e.name, e.shape)
		}
		if want := n * e.dtype.ItemSize(); e.end-e.begin != want {
			return 0, errorf("tensor %q: shape %v of %s needs %d bytes but data_offsets [%d, %d] hold %d",
				e.name, e.shape, e.dtype, want, e.begin, e.end, e.end-e.begin)
		}
		switch {
		case e.begin < pos:
			return 0, errorf("tensor %q: data_offsets [%d, %d] overlap the previous tensor (which ends at %d)", e.name, e.begin, e.end, pos)
		case e.begin > pos:
			return 0, errorf("tensor %q: data_offsets [%d, %d] leave a gap after byte %d", e.name, e.begin, e.end, pos)
		}
		pos = e.end
	}
	return pos, nil
}

// maxDim bounds one dimension and the product of the non-zero dimensions,
// so that sizes, strides and byte counts cannot overflow an int.
const maxDim = 1 << 53

// numel is the number of elements of shape; false when the product of the
// non-zero dimensions exceeds maxDim.
func numel(shape []int) (int, bool) {
	n, nz := 1, 1
	for _, s := range shape {
		if s > maxDim {
			return 0, false
		}
		if s == 0 {
			n = 0
			continue
		}
		if nz > maxDim/s {
			return 0, false
		}
		nz *= s
		n *= s
	}
	return n, true
}

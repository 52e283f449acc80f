package safetensors

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"os"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/goaten/goaten/tensor"
)

// Save writes tensors and optional metadata to a new file at path; see Write.
func Save(path string, tensors map[string]*tensor.Tensor, metadata map[string]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = Write(bw, tensors, metadata)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// Marshal returns the safetensors encoding of tensors and metadata.
func Marshal(tensors map[string]*tensor.Tensor, metadata map[string]string) ([]byte, error) {
	var b bytes.Buffer
	if err := Write(&b, tensors, metadata); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Write encodes tensors (any device, any strides; the data is written
// contiguous and little-endian) with optional metadata. Tensors are stored in
// name order; the header is padded with spaces to a multiple of 8 bytes.
func Write(w io.Writer, tensors map[string]*tensor.Tensor, metadata map[string]string) error {
	names := make([]string, 0, len(tensors))
	for name := range tensors {
		names = append(names, name)
	}
	sort.Strings(names)

	type blob struct {
		name  string
		dtype string
		shape []int
		data  []byte
	}
	blobs := make([]blob, 0, len(names))
	for _, name := range names {
		t := tensors[name]
		switch {
		case name == metadataKey:
			return errorf("%q cannot name a tensor", name)
		case !utf8.ValidString(name):
			return errorf("tensor name %q is not valid UTF-8", name)
		case t == nil:
			return errorf("tensor %q is nil", name)
		}
		dt, ok := DTypeName(t.DType())
		if !ok {
			return errorf("tensor %q: dtype %s has no safetensors name", name, t.DType())
		}
		data, err := tensorBytes(t)
		if err != nil {
			return errorf("tensor %q: %v", name, err)
		}
		blobs = append(blobs, blob{name, dt, t.Shape(), data})
	}

	var h bytes.Buffer
	h.WriteByte('{')
	if len(metadata) > 0 {
		keys := make([]string, 0, len(metadata))
		for k, v := range metadata {
			if !utf8.ValidString(k) || !utf8.ValidString(v) {
				return errorf("metadata %q: not valid UTF-8", k)
			}
			keys = append(keys, k)
		}
		sort.Strings(keys)
		h.WriteString(`"__metadata__":{`)
		for i, k := range keys {
			if i > 0 {
				h.WriteByte(',')
			}
			writeString(&h, k)
			h.WriteByte(':')
			writeString(&h, metadata[k])
		}
		h.WriteByte('}')
	}
	off := 0
	for i, b := range blobs {
		if i > 0 || len(metadata) > 0 {
			h.WriteByte(',')
		}
		writeString(&h, b.name)
		h.WriteString(`:{"dtype":"` + b.dtype + `","shape":[`)
		for j, s := range b.shape {
			if j > 0 {
				h.WriteByte(',')
			}
			h.WriteString(strconv.Itoa(s))
		}
		h.WriteString(`],"data_offsets":[` + strconv.Itoa(off) + "," + strconv.Itoa(off+len(b.data)) + "]}")
		off += len(b.data)
	}
	h.WriteByte('}')
	for h.Len()%8 != 0 {
		h.WriteByte(' ')
	}
	if h.Len() > MaxHeaderSize {
		return errorf("header of %d bytes exceeds the limit of %d", h.Len(), MaxHeaderSize)
	}

	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(h.Len()))
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	if _, err := w.Write(h.Bytes()); err != nil {
		return err
	}
	for _, b := range blobs {
		if _, err := w.Write(b.data); err != nil {
			return err
		}
	}
	return nil
}

func writeString(b *bytes.Buffer, s string) {
	j, _ := json.Marshal(s) // cannot fail for a valid UTF-8 string
	b.Write(j)
}

// tensorBytes returns t's elements in row-major order as little-endian
// bytes. The slice may alias t's storage.
func tensorBytes(t *tensor.Tensor) (data []byte, err error) {
	err = tensor.Try(func() {
		c := t.CPUView()
		if !c.IsContiguous() {
			c = c.Contiguous()
		}
		st := c.Storage()
		isz := c.DType().ItemSize()
		n := c.Numel()
		if n == 0 {
			data = []byte{}
			return
		}
		if st == nil || (c.StorageOffset()+n)*isz > st.NBytes() {
			tensor.Panicf("tensor has no CPU storage for its %d elements", n)
		}
		data = st.Bytes()[c.StorageOffset()*isz : (c.StorageOffset()+n)*isz]
		if bigEndian && isz > 1 {
			data = append([]byte(nil), data...)
			swapBytes(data, isz)
		}
	})
	return data, err
}

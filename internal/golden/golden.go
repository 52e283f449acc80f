// Package golden reads the operator records recorded from PyTorch 1.13
// (docs/GOLDEN_FORMAT.md), rebuilds their arguments as goaten values,
// runs them through the boxed dispatcher and compares the results.
package golden

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/goaten/goaten/tensor"
)

// Record is one line of a golden file.
type Record struct {
	Op               string                     `json:"op"`
	Args             []any                      `json:"args"`
	Kwargs           map[string]any             `json:"kwargs"`
	Out              any                        `json:"out"`
	Mutated          map[string]any             `json:"mutated"`
	Flags            []string                   `json:"flags"`
	Source           string                     `json:"source"`
	Nondeterministic bool                       `json:"nondeterministic"`
	ErrorType        string                     `json:"error_type"`
	ErrorMessage     string                     `json:"error_message"`
	Order            int                        `json:"order"`
	RequiresGrad     []any                      `json:"requires_grad"`
	GradOut          any                        `json:"grad_out"`
	Grads            []any                      `json:"grads"`
	V                []any                      `json:"v"`
	Grads2           []any                      `json:"grads2"`
	Grads2GradOut    any                        `json:"grads2_grad_out"`
	Extra            map[string]json.RawMessage `json:"-"`
	Line             int                        `json:"-"`
}

// HasFlag reports whether the record carries flag (prefix match for "synthesized_from:").
func (r *Record) HasFlag(flag string) bool {
	for _, f := range r.Flags {
		if f == flag || strings.HasPrefix(f, flag+":") {
			return true
		}
	}
	return false
}

// Load reads a .jsonl or .jsonl.gz file.
func Load(path string) ([]*Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer gz.Close()
		r = gz
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	var out []*Record
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		rec := &Record{Line: line}
		if err := dec.Decode(rec); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		out = append(out, rec)
	}
	return out, sc.Err()
}

// IsTensor reports whether a decoded JSON value encodes a tensor.
func IsTensor(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, ok = m["dtype"]
	_, ok2 := m["shape"]
	return ok && ok2
}

// Value converts a JSON value from a record into the Go value Op.Bind takes:
// tensors (on dev), numbers (int or float64; "nan"/"inf" strings become floats
// unless keepString), lists as []any, tag objects as DType/MemoryFormat/Layout/Device.
func Value(v any, dev tensor.Device, keepString bool) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool:
		return x, nil
	case json.Number:
		return number(x)
	case string:
		if !keepString {
			switch x {
			case "nan":
				return math.NaN(), nil
			case "inf":
				return math.Inf(1), nil
			case "-inf":
				return math.Inf(-1), nil
			}
		}
		return x, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var err error
			if out[i], err = Value(e, dev, keepString); err != nil {
				return nil, err
			}
		}
		return out, nil
	case map[string]any:
		if IsTensor(x) {
			return Tensor(x, dev)
		}
		if len(x) == 1 {
			for k, val := range x {
				s, _ := val.(string)
				switch k {
				case "scalar_type":
					d, ok := tensor.ParseDType(s)
					if !ok {
						return nil, fmt.Errorf("unsupported dtype %q", s)
					}
					return d, nil
				case "memory_format", "layout":
					return s, nil
				case "device":
					d, ok := tensor.LookupDevice(s)
					if !ok {
						return nil, fmt.Errorf("unknown device %q", s)
					}
					if d == tensor.CPU {
						return dev, nil
					}
					return d, nil
				}
			}
		}
		return nil, fmt.Errorf("unrecognised object %v", x)
	}
	return nil, fmt.Errorf("unrecognised value %T", v)
}

func number(n json.Number) (any, error) {
	s := n.String()
	if strings.ContainsAny(s, ".eE") {
		f, err := strconv.ParseFloat(s, 64)
		return f, err
	}
	i, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		// Integers beyond int64 do not occur in valid records.
		return nil, err
	}
	return i, nil
}

// Elem parses one element of a tensor's data list as float64 (exact for every
// value a float dtype can hold) and int64 (exact for integers).
func Elem(v any) (float64, int64, error) {
	switch x := v.(type) {
	case json.Number:
		s := x.String()
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return float64(i), i, nil
		}
		f, err := strconv.ParseFloat(s, 64)
		return f, int64(f), err
	case bool:
		if x {
			return 1, 1, nil
		}
		return 0, 0, nil
	case string:
		switch x {
		case "nan":
			return math.NaN(), 0, nil
		case "inf":
			return math.Inf(1), 0, nil
		case "-inf":
			return math.Inf(-1), 0, nil
		}
	}
	return 0, 0, fmt.Errorf("bad element %v", v)
}

func ints(v any) ([]int, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("expected a list, got %T", v)
	}
	out := make([]int, len(l))
	for i, e := range l {
		n, ok := e.(json.Number)
		if !ok {
			return nil, fmt.Errorf("expected an integer, got %v", e)
		}
		x, err := n.Int64()
		if err != nil {
			return nil, err
		}
		out[i] = int(x)
	}
	return out, nil
}

// Spec is the metadata of an encoded tensor.
type Spec struct {
	DType   tensor.DType
	Shape   []int
	Strides []int
	Offset  int
	Data    []any // nil for nondeterministic outputs
	HasData bool
}

// ParseSpec reads the metadata of an encoded tensor.
func ParseSpec(m map[string]any) (*Spec, error) {
	s := &Spec{}
	ds, _ := m["dtype"].(string)
	d, ok := tensor.ParseDType(ds)
	if !ok {
		return nil, fmt.Errorf("unsupported dtype %q", ds)
	}
	s.DType = d
	var err error
	if s.Shape, err = ints(m["shape"]); err != nil {
		return nil, err
	}
	if st, ok := m["strides"]; ok {
		if s.Strides, err = ints(st); err != nil {
			return nil, err
		}
	} else {
		s.Strides = tensor.ContiguousStrides(s.Shape)
	}
	if o, ok := m["offset"].(json.Number); ok {
		x, _ := o.Int64()
		s.Offset = int(x)
	}
	if dl, ok := m["data"].([]any); ok {
		s.Data, s.HasData = dl, true
	}
	return s, nil
}

// Tensor rebuilds an encoded tensor with its strides and offset on the CPU,
// then moves it to dev.
func Tensor(m map[string]any, dev tensor.Device) (*tensor.Tensor, error) {
	s, err := ParseSpec(m)
	if err != nil {
		return nil, err
	}
	n := tensor.StorageExtent(s.Shape, s.Strides, s.Offset)
	storage, hasStorage := m["storage"].([]any)
	if hasStorage {
		n = max(n, len(storage))
	}
	t := tensor.NewMeta(s.Shape, s.Strides, s.Offset, s.DType, tensor.CPU)
	st := tensor.NewStorage(n * s.DType.ItemSize())
	t.WithRaw(st)
	flat := tensor.NewMeta([]int{n}, []int{1}, 0, s.DType, tensor.CPU).WithRaw(st)
	set := func(dst *tensor.Tensor, idx []int, v any) error {
		f, i, err := Elem(v)
		if err != nil {
			return err
		}
		if s.DType.IsFloat() {
			dst.SetAt(tensor.Float(f), idx...)
		} else if s.DType == tensor.Bool {
			dst.SetAt(tensor.BoolScalar(i != 0), idx...)
		} else {
			dst.SetAt(tensor.Int(i), idx...)
		}
		return nil
	}
	if hasStorage {
		for k, v := range storage {
			if err := set(flat, []int{k}, v); err != nil {
				return nil, err
			}
		}
	}
	if s.HasData {
		if len(s.Data) != tensor.Numel(s.Shape) {
			return nil, fmt.Errorf("data has %d elements for shape %v", len(s.Data), s.Shape)
		}
		idx := make([]int, len(s.Shape))
		for _, v := range s.Data {
			if err := set(t, idx, v); err != nil {
				return nil, err
			}
			for d := len(idx) - 1; d >= 0; d-- {
				idx[d]++
				if idx[d] < s.Shape[d] {
					break
				}
				idx[d] = 0
			}
		}
	}
	if dev != tensor.CPU {
		return ToDevice(t, dev), nil
	}
	return t, nil
}

// ToDevice moves a CPU tensor to dev with the device's FromCPU hook, which
// keeps its sizes, strides and storage offset (so that the strides of views
// compare as on the CPU).
var ToDevice = func(t *tensor.Tensor, dev tensor.Device) *tensor.Tensor {
	h := tensor.DeviceHooksOf(dev)
	if h.FromCPU == nil {
		panic("golden: no conversion to device " + dev.String())
	}
	return h.FromCPU(t)
}

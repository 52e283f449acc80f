package data

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/goaten/goaten/tensor"
)

// CSVOption is an option of ReadCSV.
type CSVOption func(*csvConfig)

type csvConfig struct {
	label  int
	header bool
	comma  rune
}

// WithLabelColumn sets the column holding the integer class label
// (default -1, the last; negative counts from the end).
func WithLabelColumn(i int) CSVOption { return func(c *csvConfig) { c.label = i } }

// WithHeader skips a first line of column names (default false).
func WithHeader(v bool) CSVOption { return func(c *csvConfig) { c.header = v } }

// WithComma sets the field separator (default ',').
func WithComma(r rune) CSVOption { return func(c *csvConfig) { c.comma = r } }

// ReadCSV reads a CSV file of numbers, one sample a line, gzip-compressed
// or not, into a dataset of (features float32 [columns-1], label int64)
// samples. Every line must have the same number of fields, every field
// must be a number, and the label an integer; otherwise the error names
// the line and column. An empty file is an error.
func ReadCSV(r io.Reader, opts ...CSVOption) (*TensorDataset, error) {
	c := csvConfig{label: -1, comma: ','}
	for _, o := range opts {
		o(&c)
	}
	r, err := maybeGunzip(r)
	if err != nil {
		return nil, fmt.Errorf("csv: %v", err)
	}
	cr := csv.NewReader(r)
	cr.Comma = c.comma
	cr.FieldsPerRecord = -1 // checked below, with the line in the message
	cr.ReuseRecord = true
	var (
		features []float32
		labels   []int64
		width    = -1
		label    int
	)
	for first := true; ; first = false {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("csv: %v", err)
		}
		line, _ := cr.FieldPos(0)
		if first && c.header {
			continue
		}
		if width < 0 {
			width = len(rec)
			if width < 2 {
				return nil, fmt.Errorf("csv: line %d: %d column; want features and a label", line, width)
			}
			label = c.label
			if label < 0 {
				label += width
			}
			if label < 0 || label >= width {
				return nil, fmt.Errorf("csv: label column %d is out of range for %d columns", c.label, width)
			}
		}
		if len(rec) != width {
			return nil, fmt.Errorf("csv: line %d: %d fields, want %d as on the first line", line, len(rec), width)
		}
		for j, f := range rec {
			f = strings.TrimSpace(f)
			if j == label {
				v, err := strconv.ParseInt(f, 10, 64)
				if err != nil {
					fv, ferr := strconv.ParseFloat(f, 64)
					if ferr != nil || fv != math.Trunc(fv) || math.Abs(fv) > 1<<53 {
						return nil, fmt.Errorf("csv: line %d, column %d: label %q is not an integer", line, j+1, f)
					}
					v = int64(fv)
				}
				labels = append(labels, v)
				continue
			}
			v, err := strconv.ParseFloat(f, 32)
			if errors.Is(err, strconv.ErrRange) {
				return nil, fmt.Errorf("csv: line %d, column %d: %q is out of float32's range", line, j+1, f)
			}
			if err != nil {
				return nil, fmt.Errorf("csv: line %d, column %d: %q is not a number", line, j+1, f)
			}
			features = append(features, float32(v))
		}
	}
	if width < 0 {
		return nil, fmt.Errorf("csv: no samples")
	}
	n := len(labels)
	return NewTensorDataset(tensor.FromSlice(features, n, width-1), tensor.FromSlice(labels, n))
}

// LoadCSV is ReadCSV on the file at path.
func LoadCSV(path string, opts ...CSVOption) (*TensorDataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ds, err := ReadCSV(f, opts...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ds, nil
}

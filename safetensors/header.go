package safetensors

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
)

const metadataKey = "__metadata__"

// parseHeader decodes the JSON header strictly: one object whose members are
// "__metadata__" (an object of strings) and tensors
// {"dtype": str, "shape": [int...], "data_offsets": [int, int]}, no
// duplicate names or fields, no other fields, and nothing after the object
// but whitespace (the padding).
func parseHeader(h []byte) ([]entry, map[string]string, error) {
	if !utf8.Valid(h) {
		return nil, nil, errorf("header is not valid UTF-8")
	}
	if i := bytes.IndexFunc(h, func(r rune) bool { return !isSpace(r) }); i < 0 || h[i] != '{' {
		return nil, nil, errorf("header does not start with a JSON object")
	}
	p := &parser{dec: json.NewDecoder(bytes.NewReader(h))}
	p.dec.UseNumber()
	entries, meta, err := p.file()
	if err != nil {
		return nil, nil, err
	}
	rest := h[p.dec.InputOffset():]
	if i := bytes.IndexFunc(rest, func(r rune) bool { return !isSpace(r) }); i >= 0 {
		return nil, nil, errorf("header has %q after its JSON object", clip(rest[i:]))
	}
	return entries, meta, nil
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

func clip(b []byte) string {
	if len(b) > 20 {
		return string(b[:20]) + "..."
	}
	return string(b)
}

type parser struct {
	dec *json.Decoder
}

func (p *parser) token() (json.Token, error) {
	t, err := p.dec.Token()
	if err == io.EOF {
		return nil, errorf("header ends inside its JSON object")
	}
	if err != nil {
		return nil, errorf("header is not valid JSON: %v", err)
	}
	return t, nil
}

func (p *parser) delim(want json.Delim, what string) error {
	t, err := p.token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return errorf("%s: want %q, got %s", what, string(want), describe(t))
	}
	return nil
}

// key reads an object key, or returns ok=false at the closing brace.
func (p *parser) key() (string, bool, error) {
	t, err := p.token()
	if err != nil {
		return "", false, err
	}
	switch v := t.(type) {
	case string:
		return v, true, nil
	case json.Delim:
		if v == '}' {
			return "", false, nil
		}
	}
	return "", false, errorf("header is not valid JSON: unexpected %s", describe(t))
}

func describe(t json.Token) string {
	switch v := t.(type) {
	case json.Delim:
		return fmt.Sprintf("%q", string(v))
	case string:
		return fmt.Sprintf("string %q", v)
	case json.Number:
		return "number " + v.String()
	case bool:
		return fmt.Sprintf("%v", v)
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v", t)
}

func (p *parser) file() ([]entry, map[string]string, error) {
	if err := p.delim('{', "header"); err != nil {
		return nil, nil, err
	}
	var entries []entry
	var meta map[string]string
	seen := map[string]bool{}
	for {
		name, ok, err := p.key()
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			break
		}
		if seen[name] {
			return nil, nil, errorf("header names %q twice", name)
		}
		seen[name] = true
		if name == metadataKey {
			if meta, err = p.metadata(); err != nil {
				return nil, nil, err
			}
			continue
		}
		e, err := p.tensor(name)
		if err != nil {
			return nil, nil, err
		}
		entries = append(entries, e)
	}
	return entries, meta, nil
}

func (p *parser) metadata() (map[string]string, error) {
	t, err := p.token()
	if err != nil {
		return nil, err
	}
	if t == nil { // "__metadata__": null
		return nil, nil
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return nil, errorf("__metadata__: want an object of strings, got %s", describe(t))
	}
	meta := map[string]string{}
	for {
		k, ok, err := p.key()
		if err != nil {
			return nil, err
		}
		if !ok {
			return meta, nil
		}
		if _, dup := meta[k]; dup {
			return nil, errorf("__metadata__ names %q twice", k)
		}
		t, err := p.token()
		if err != nil {
			return nil, err
		}
		v, ok := t.(string)
		if !ok {
			return nil, errorf("__metadata__[%q]: want a string, got %s", k, describe(t))
		}
		meta[k] = v
	}
}

func (p *parser) tensor(name string) (entry, error) {
	e := entry{name: name}
	if err := p.delim('{', fmt.Sprintf("tensor %q", name)); err != nil {
		return e, err
	}
	var haveDType, haveShape, haveOffsets bool
	for {
		k, ok, err := p.key()
		if err != nil {
			return e, err
		}
		if !ok {
			break
		}
		switch k {
		case "dtype":
			if haveDType {
				return e, errorf("tensor %q: dtype given twice", name)
			}
			haveDType = true
			t, err := p.token()
			if err != nil {
				return e, err
			}
			s, ok := t.(string)
			if !ok {
				return e, errorf("tensor %q: dtype: want a string, got %s", name, describe(t))
			}
			d, ok := dtypes[s]
			if !ok {
				return e, errorf("tensor %q: unknown or unsupported dtype %q", name, s)
			}
			e.dtype = d
		case "shape":
			if haveShape {
				return e, errorf("tensor %q: shape given twice", name)
			}
			haveShape = true
			if e.shape, err = p.ints(name, "shape", -1); err != nil {
				return e, err
			}
			if e.shape == nil {
				e.shape = []int{}
			}
		case "data_offsets":
			if haveOffsets {
				return e, errorf("tensor %q: data_offsets given twice", name)
			}
			haveOffsets = true
			off, err := p.ints(name, "data_offsets", 2)
			if err != nil {
				return e, err
			}
			e.begin, e.end = off[0], off[1]
		default:
			return e, errorf("tensor %q: unknown field %q", name, k)
		}
	}
	switch {
	case !haveDType:
		return e, errorf("tensor %q: no dtype", name)
	case !haveShape:
		return e, errorf("tensor %q: no shape", name)
	case !haveOffsets:
		return e, errorf("tensor %q: no data_offsets", name)
	}
	return e, nil
}

// ints reads an array of non-negative integers (exactly n of them when n >= 0).
func (p *parser) ints(name, field string, n int) ([]int, error) {
	if err := p.delim('[', fmt.Sprintf("tensor %q: %s", name, field)); err != nil {
		return nil, err
	}
	var out []int
	for {
		t, err := p.token()
		if err != nil {
			return nil, err
		}
		if d, ok := t.(json.Delim); ok && d == ']' {
			break
		}
		num, ok := t.(json.Number)
		if !ok {
			return nil, errorf("tensor %q: %s: want integers, got %s", name, field, describe(t))
		}
		v, err := strconv.ParseInt(string(num), 10, 64)
		if err != nil || v < 0 || v > math.MaxInt {
			return nil, errorf("tensor %q: %s: %s is not a non-negative integer", name, field, num)
		}
		out = append(out, int(v))
		if n >= 0 && len(out) > n {
			return nil, errorf("tensor %q: %s: want %d integers, got more", name, field, n)
		}
	}
	if n >= 0 && len(out) != n {
		return nil, errorf("tensor %q: %s: want %d integers, got %d", name, field, n, len(out))
	}
	return out, nil
}

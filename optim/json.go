package optim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
)

// decodeExact decodes the JSON object b into the struct v, requiring every
// field of v and no other key: a state dict missing a setting is an error,
// not a zero.
func decodeExact(b []byte, v any) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if raw == nil {
		return fmt.Errorf("not a JSON object")
	}
	want := jsonKeys(v)
	for _, k := range want {
		if _, ok := raw[k]; !ok {
			return fmt.Errorf("missing %q", k)
		}
	}
	for k := range raw {
		if !slices.Contains(want, k) {
			return fmt.Errorf("unknown key %q", k)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// jsonKeys lists the JSON names of the struct v points at.
func jsonKeys(v any) []string {
	t := reflect.TypeOf(v).Elem()
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		keys = append(keys, name)
	}
	return keys
}

// jfloat is a float64 that also encodes ±Inf and NaN, as the strings
// "inf", "-inf" and "nan" (ReduceLROnPlateau's best starts at ±inf).
type jfloat float64

func (f jfloat) MarshalJSON() ([]byte, error) {
	x := float64(f)
	switch {
	case math.IsInf(x, 1):
		return []byte(`"inf"`), nil
	case math.IsInf(x, -1):
		return []byte(`"-inf"`), nil
	case math.IsNaN(x):
		return []byte(`"nan"`), nil
	}
	return json.Marshal(x)
}

func (f *jfloat) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"inf"`:
		*f = jfloat(math.Inf(1))
		return nil
	case `"-inf"`:
		*f = jfloat(math.Inf(-1))
		return nil
	case `"nan"`:
		*f = jfloat(math.NaN())
		return nil
	}
	var x float64
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	*f = jfloat(x)
	return nil
}

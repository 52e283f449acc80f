package optim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/goaten/goaten/safetensors"
	"github.com/goaten/goaten/tensor"
)

// StateDict is an optimizer's state_dict(): each parameter's state, keyed
// by the parameter's index in Params(), and each group's hyper-parameters by
// PyTorch's names with "params" (the indices of its parameters) and, once a
// scheduler ran, "initial_lr".
//
// Marshal writes it as one safetensors file: the state tensors, named
// "state.<index>.<name>" ("state.0.exp_avg"), and in the file's metadata
// under "goaten.optim" the rest as JSON ({"optimizer": "Adam", "state":
// {"0": {"step": 3}}, "param_groups": [{"lr": 0.001, "betas": [0.9,
// 0.999], ..., "params": [0, 1]}]}). ParseStateDict reads it back.
type StateDict struct {
	// Optimizer is the class name: "SGD", "Adam", "AdamW", "RMSprop",
	// "Adagrad".
	Optimizer string
	// State is each parameter's state by index. StateDict shares the
	// optimizer's tensors, as PyTorch's state_dict does; Marshal them
	// before the next step to keep a snapshot.
	State map[int]*ParamState
	// ParamGroups holds each group's hyper-parameters: float64, bool,
	// []float64 (betas), and "params": []int.
	ParamGroups []map[string]any
}

// metadataKey is where Marshal puts the JSON part.
const metadataKey = "goaten.optim"

// stateNames are the state tensors each optimizer keeps; the first ones
// are required in every parameter's state (the others come with options).
var stateNames = map[string]struct {
	required, optional []string
}{
	"SGD":     {nil, []string{"momentum_buffer"}},
	"Adam":    {[]string{"exp_avg", "exp_avg_sq"}, []string{"max_exp_avg_sq"}},
	"AdamW":   {[]string{"exp_avg", "exp_avg_sq"}, []string{"max_exp_avg_sq"}},
	"RMSprop": {[]string{"square_avg"}, []string{"momentum_buffer", "grad_avg"}},
	"Adagrad": {[]string{"sum"}, nil},
}

// kinds are the optimizers by class name.
var kinds = map[string]*kind{}

func init() {
	for _, k := range []*kind{sgdKind, adamKind, adamWKind, rmspropKind, adagradKind} {
		kinds[k.name] = k
	}
}

// pytorchExtras are keys PyTorch's groups carry that goaten has no use
// for; LoadStateDict ignores them.
var pytorchExtras = []string{"foreach", "differentiable", "capturable", "fused",
	"max_lr", "min_lr", "max_momentum", "base_momentum"}

// StateDict returns the optimizer's state (optimizer.state_dict()).
func (o *optimizer) StateDict() *StateDict {
	sd := &StateDict{Optimizer: o.kind.name, State: map[int]*ParamState{}}
	i := 0
	for _, g := range o.groups {
		m := map[string]any{}
		for _, k := range o.kind.keys {
			switch v := g.field(k).(type) {
			case *float64:
				m[k] = *v
			case *bool:
				m[k] = *v
			case *[2]float64:
				m[k] = []float64{v[0], v[1]}
			}
		}
		if g.InitialLR != nil {
			m["initial_lr"] = *g.InitialLR
		}
		idx := make([]int, len(g.Params))
		for j, p := range g.Params {
			idx[j] = i
			if s := o.state[p]; s != nil {
				sd.State[i] = &ParamState{Step: s.Step, Tensors: maps.Clone(s.Tensors)}
			}
			i++
		}
		m["params"] = idx
		sd.ParamGroups = append(sd.ParamGroups, m)
	}
	return sd
}

// LoadStateDict replaces the optimizer's state and its groups'
// hyper-parameters with sd's (optimizer.load_state_dict): saved parameter
// k becomes Params()[k] of this optimizer, whose groups must have the saved
// sizes. The tensors are copied, cast to the parameter's floating dtype.
// Nothing changes when sd does not fit.
func (o *optimizer) LoadStateDict(sd *StateDict) error {
	if sd == nil {
		return fmt.Errorf("optimizer state dict is nil")
	}
	if sd.Optimizer != "" && sd.Optimizer != o.kind.name {
		return fmt.Errorf("loaded state dict is for %s, not %s", sd.Optimizer, o.kind.name)
	}
	if len(sd.ParamGroups) != len(o.groups) {
		return fmt.Errorf("loaded state dict has a different number of parameter groups")
	}
	idMap := map[int]*tensor.Tensor{}
	groups := make([]*ParamGroup, len(o.groups))
	for gi, m := range sd.ParamGroups {
		cur := o.groups[gi]
		idx, err := intList(m["params"])
		if err != nil {
			return fmt.Errorf("param group %d: params: %v", gi, err)
		}
		if len(idx) != len(cur.Params) {
			return fmt.Errorf("loaded state dict contains a parameter group that doesn't match the size of optimizer's group")
		}
		for j, k := range idx {
			if _, dup := idMap[k]; dup {
				return fmt.Errorf("param group %d: parameter index %d appears twice", gi, k)
			}
			idMap[k] = cur.Params[j]
		}
		g := &ParamGroup{Params: cur.Params, kind: o.kind}
		if err := g.load(m); err != nil {
			return fmt.Errorf("param group %d: %v", gi, err)
		}
		if err := o.kind.check(g); err != nil {
			return fmt.Errorf("param group %d: %v", gi, err)
		}
		groups[gi] = g
	}
	names := stateNames[o.kind.name]
	state := map[*tensor.Tensor]*ParamState{}
	for _, k := range slices.Sorted(maps.Keys(sd.State)) {
		s := sd.State[k]
		p, ok := idMap[k]
		if !ok {
			return fmt.Errorf("loaded state dict has state for parameter %d, which is in no parameter group", k)
		}
		if s == nil {
			return fmt.Errorf("state of parameter %d is nil", k)
		}
		if s.Step < 0 || (!o.kind.hasStep && s.Step != 0) {
			return fmt.Errorf("state of parameter %d: invalid step %d", k, s.Step)
		}
		ns := &ParamState{Step: s.Step, Tensors: map[string]*tensor.Tensor{}}
		for _, name := range names.required {
			if s.Tensors[name] == nil {
				return fmt.Errorf("state of parameter %d has no %q", k, name)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(s.Tensors)) {
			t := s.Tensors[name]
			if !slices.Contains(names.required, name) && !slices.Contains(names.optional, name) {
				return fmt.Errorf("state of parameter %d: %s has no state %q", k, o.kind.name, name)
			}
			if t == nil {
				continue
			}
			if !slices.Equal(t.Sizes(), p.Sizes()) {
				return fmt.Errorf("state of parameter %d: %s has shape %s but the parameter has shape %s",
					k, name, tensor.ShapeString(t.Sizes()), tensor.ShapeString(p.Sizes()))
			}
			if !t.DType().IsFloat() {
				return fmt.Errorf("state of parameter %d: %s is %s, not floating point", k, name, t.DType())
			}
			var c *tensor.Tensor
			if err := tensor.Try(func() {
				noGrad(func() { c = t.Detach().To(p.DType()).ToDevice(p.Device()).Clone() })
			}); err != nil {
				return fmt.Errorf("state of parameter %d: %s: %v", k, name, err)
			}
			ns.Tensors[name] = c
		}
		state[p] = ns
	}
	for i, g := range groups { // in place: pointers from ParamGroups() stay valid
		*o.groups[i] = *g
	}
	groups = o.groups
	o.state = state
	if o.kind.eager {
		noGrad(func() {
			for _, g := range groups {
				for _, p := range g.Params {
					if o.state[p] == nil {
						o.newState(g, p)
					}
				}
			}
		})
	}
	return nil
}

// load sets g's hyper-parameters from a saved group.
func (g *ParamGroup) load(m map[string]any) error {
	for _, k := range g.kind.keys {
		v, ok := m[k]
		if !ok {
			return fmt.Errorf("missing %q", k)
		}
		switch p := g.field(k).(type) {
		case *float64:
			f, ok := number(v)
			if !ok {
				return fmt.Errorf("%s is %v, not a number", k, v)
			}
			*p = f
		case *bool:
			b, ok := v.(bool)
			if !ok {
				return fmt.Errorf("%s is %v, not a bool", k, v)
			}
			*p = b
		case *[2]float64:
			fs, ok := numbers(v)
			if !ok || len(fs) != 2 {
				return fmt.Errorf("%s is %v, not two numbers", k, v)
			}
			*p = [2]float64{fs[0], fs[1]}
		}
	}
	if v, ok := m["initial_lr"]; ok {
		f, ok := number(v)
		if !ok {
			return fmt.Errorf("initial_lr is %v, not a number", v)
		}
		g.InitialLR = &f
	}
	for k := range m {
		if k != "params" && k != "initial_lr" && !slices.Contains(g.kind.keys, k) && !slices.Contains(pytorchExtras, k) {
			return fmt.Errorf("%s has no hyper-parameter %q", g.kind.name, k)
		}
	}
	return nil
}

// number reads a JSON or Go number.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

func numbers(v any) ([]float64, bool) {
	switch x := v.(type) {
	case []float64:
		return x, true
	case []any:
		out := make([]float64, len(x))
		for i, e := range x {
			f, ok := number(e)
			if !ok {
				return nil, false
			}
			out[i] = f
		}
		return out, true
	}
	return nil, false
}

func intList(v any) ([]int, error) {
	switch x := v.(type) {
	case []int:
		return x, nil
	case []any:
		out := make([]int, len(x))
		for i, e := range x {
			f, ok := number(e)
			if !ok || f != math.Trunc(f) || f < 0 || f > 1<<31 {
				return nil, fmt.Errorf("%v is not a parameter index", e)
			}
			out[i] = int(f)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%v is not a list of parameter indices", v)
}

// jsonState is the JSON part of a marshalled StateDict.
type jsonState struct {
	Optimizer   string                    `json:"optimizer"`
	State       map[string]jsonParamState `json:"state"`
	ParamGroups []map[string]any          `json:"param_groups"`
}

type jsonParamState struct {
	Step *int `json:"step,omitempty"`
}

// Marshal encodes sd as a safetensors file: the state tensors, and the
// rest as JSON in the metadata.
func (sd *StateDict) Marshal() ([]byte, error) {
	js := jsonState{Optimizer: sd.Optimizer, State: map[string]jsonParamState{}, ParamGroups: sd.ParamGroups}
	tensors := map[string]*tensor.Tensor{}
	hasStep := true // an optimizer this package does not know: keep the count
	if k := kinds[sd.Optimizer]; k != nil {
		hasStep = k.hasStep
	}
	for k, s := range sd.State {
		if s == nil {
			return nil, fmt.Errorf("state of parameter %d is nil", k)
		}
		var ps jsonParamState
		if hasStep {
			step := s.Step
			ps.Step = &step
		}
		js.State[strconv.Itoa(k)] = ps
		for name, t := range s.Tensors {
			if t == nil {
				continue
			}
			if strings.Contains(name, ".") {
				return nil, fmt.Errorf("state name %q has a dot", name)
			}
			tensors[fmt.Sprintf("state.%d.%s", k, name)] = t
		}
	}
	meta, err := json.Marshal(js)
	if err != nil {
		return nil, fmt.Errorf("optimizer state dict: %v", err)
	}
	return safetensors.Marshal(tensors, map[string]string{metadataKey: string(meta)})
}

// ParseStateDict decodes what StateDict.Marshal wrote. Bad bytes are an
// error, never a panic; LoadStateDict checks the content against the
// optimizer.
func ParseStateDict(b []byte) (*StateDict, error) {
	f, err := safetensors.Parse(b)
	if err != nil {
		return nil, err
	}
	meta, ok := f.Metadata[metadataKey]
	if !ok {
		return nil, fmt.Errorf("not an optimizer state dict: no %q metadata", metadataKey)
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(meta)))
	dec.UseNumber()
	var js jsonState
	if err := dec.Decode(&js); err != nil {
		return nil, fmt.Errorf("optimizer state dict: %v", err)
	}
	sd := &StateDict{Optimizer: js.Optimizer, State: map[int]*ParamState{}, ParamGroups: js.ParamGroups}
	for key, ps := range js.State {
		k, err := strconv.Atoi(key)
		if err != nil || k < 0 || strconv.Itoa(k) != key {
			return nil, fmt.Errorf("optimizer state dict: state key %q is not a parameter index", key)
		}
		s := &ParamState{Tensors: map[string]*tensor.Tensor{}}
		if ps.Step != nil {
			s.Step = *ps.Step
		}
		sd.State[k] = s
	}
	names := slices.Clone(f.Names)
	sort.Strings(names)
	for _, name := range names {
		rest, ok := strings.CutPrefix(name, "state.")
		idx, tname, ok2 := strings.Cut(rest, ".")
		k, err := strconv.Atoi(idx)
		if !ok || !ok2 || err != nil || sd.State[k] == nil || strconv.Itoa(k) != idx {
			return nil, fmt.Errorf("optimizer state dict: unexpected tensor %q", name)
		}
		sd.State[k].Tensors[tname] = f.Tensors[name]
	}
	for i, g := range sd.ParamGroups {
		if g == nil {
			return nil, fmt.Errorf("optimizer state dict: param group %d is null", i)
		}
	}
	return sd, nil
}

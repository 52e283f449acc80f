package passes

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// CSE merges common subexpressions, as functorch's fx_graph_cse: in one
// forward pass, a call_function node with the same target and equal
// arguments as an earlier one has its uses replaced by the earlier node and
// is erased. Arguments are equal when nodes are the same node (after the
// replacements made so far, so chains merge in one pass), and constants
// have the same Python type and value: ints by value whatever their Go
// type, floats by their bits (a NaN equals a NaN of the same bits, 0.0 and
// -0.0 differ), bools, strings, dtypes, devices, a tensor.Scalar as the
// Python number it prints as, lists and tuples element by element (a list
// never equals a tuple).
// Keyword arguments compare regardless of their order.
//
// Impure calls (fx's Node.IsImpure: mutating, random, impure Targets) are
// never merged. A node that may write memory ends the life of every
// expression seen before it, and a node whose value some node writes
// (directly or through a view) is never merged, so graphs that still
// mutate stay correct.
func CSE(gm *fx.GraphModule) error {
	if err := check("CSE", gm); err != nil {
		return err
	}
	g := gm.Graph
	mutated := fx.Written(g)
	seen := map[cseKey]*fx.Node{}
	for n := g.First(); n != nil; {
		next := n.Next()
		if n.Op == fx.OpCallFunction {
			switch {
			case fx.MayWrite(n):
				clear(seen)
			case n.IsImpure() || mutated[n]:
			default:
				if k, ok := keyOf(n); ok {
					if first, dup := seen[k]; dup {
						n.ReplaceAllUsesWith(first)
						if err := g.EraseNode(n); err != nil {
							return wrap("CSE", n, err)
						}
					} else {
						seen[k] = n
					}
				}
			}
		}
		n = next
	}
	return nil
}

// cseKey identifies a call: its target and its encoded arguments.
type cseKey struct {
	target any
	args   string
}

// keyOf returns n's key, or false when its target cannot be a map key or an
// argument has no encoding.
func keyOf(n *fx.Node) (cseKey, bool) {
	if t := reflect.TypeOf(n.Target); t == nil || !t.Comparable() {
		return cseKey{}, false
	}
	var b strings.Builder
	if !encode(&b, fx.Tuple(n.Args())) {
		return cseKey{}, false
	}
	kw := append(fx.Kwargs(nil), n.Kwargs()...)
	sort.SliceStable(kw, func(i, j int) bool { return kw[i].Name < kw[j].Name })
	b.WriteByte('{')
	for _, a := range kw {
		b.WriteString(strconv.Quote(a.Name))
		b.WriteByte('=')
		if !encode(&b, a.Value) {
			return cseKey{}, false
		}
		b.WriteByte(',')
	}
	b.WriteByte('}')
	return cseKey{n.Target, b.String()}, true
}

// encode writes a's canonical form: a type tag and the value, so that two
// arguments have the same encoding exactly when CSE counts them equal.
func encode(b *strings.Builder, a any) bool {
	switch v := a.(type) {
	case nil:
		b.WriteString("N")
	case *fx.Node:
		fmt.Fprintf(b, "n%p", v)
	case bool:
		if v {
			b.WriteString("T")
		} else {
			b.WriteString("F")
		}
	case int, int8, int16, int32, int64:
		b.WriteString("i" + strconv.FormatInt(reflect.ValueOf(v).Int(), 10))
	case uint8, uint16, uint32, uint64:
		b.WriteString("i" + strconv.FormatUint(reflect.ValueOf(v).Uint(), 10))
	case float32:
		b.WriteString("f" + strconv.FormatUint(math.Float64bits(float64(v)), 16))
	case float64:
		b.WriteString("f" + strconv.FormatUint(math.Float64bits(v), 16))
	case string:
		b.WriteString("s" + strconv.Quote(v))
	case tensor.Scalar:
		// A Scalar is the Python number it prints as.
		switch {
		case v.IsBool():
			return encode(b, v.Bool())
		case v.IsInt():
			return encode(b, v.Int64())
		default:
			return encode(b, v.Float64())
		}
	case tensor.DType, tensor.Device, tensor.MemoryFormat, tensor.Layout:
		fmt.Fprintf(b, "%T(%d)", v, v)
	case fx.Tuple:
		return encodeList(b, '(', ')', v)
	case []any:
		return encodeList(b, '[', ']', v)
	default:
		// Ops and Targets as arguments (with_effects(token, op, ...)):
		// by identity.
		if t := reflect.TypeOf(v); t.Kind() != reflect.Pointer {
			return false
		}
		fmt.Fprintf(b, "p%T%p", v, v)
	}
	return true
}

func encodeList(b *strings.Builder, open, close byte, xs []any) bool {
	b.WriteByte(open)
	for _, x := range xs {
		if !encode(b, x) {
			return false
		}
		b.WriteByte(',')
	}
	b.WriteByte(close)
	return true
}

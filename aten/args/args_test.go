package args_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/goaten/goaten/aten/args"
	_ "github.com/goaten/goaten/aten/core"
	_ "github.com/goaten/goaten/decomp"
	"github.com/goaten/goaten/tensor"
)

// view is one op's constructor, boxed for the table in args_gen_test.go.
type view struct {
	of  func([]any) any   // the struct, as any
	box func([]any) []any // the struct's Box()
	at  func() any        // the positions of its tensor arguments; nil if it has none
}

// fieldName is the CamelCase the generator promises: self -> Self,
// output_size -> OutputSize, HxW -> HxW.
func fieldName(s string) string {
	var b strings.Builder
	for _, part := range strings.Split(s, "_") {
		if part == "" {
			continue
		}
		r := []rune(part)
		r[0] = unicode.ToUpper(r[0])
		b.WriteString(string(r))
	}
	return b.String()
}

// sample is a canonical value for argument i of type ty, distinct from
// every other argument's where the type allows it; bool (and the elements
// of bool lists) take bit k of i, so some pass k tells any two apart.
func sample(ty *tensor.Type, i, k int, absent bool, ts []*tensor.Tensor) (any, bool) {
	if ty.Kind == tensor.TOptional {
		if absent {
			return nil, true
		}
		return sample(ty.Elem, i, k, absent, ts)
	}
	bit := (i>>k)&1 == 1
	switch ty.Kind {
	case tensor.TTensor:
		return ts[i], true
	case tensor.TInt:
		return 1000 + i, true
	case tensor.TFloat:
		return 0.25 + float64(i), true
	case tensor.TBool:
		return bit, true
	case tensor.TStr:
		return fmt.Sprint("s", i), true
	case tensor.TScalar:
		if i%2 == 0 {
			return tensor.Int(int64(2000 + i)), true
		}
		return tensor.Float(0.5 + float64(i)), true
	case tensor.TScalarType:
		return tensor.DType(1 + i%10), true
	case tensor.TLayout:
		return tensor.Strided, true
	case tensor.TDevice:
		return []tensor.Device{tensor.CPU, tensor.Meta}[i%2], true
	case tensor.TMemoryFormat:
		return tensor.MemoryFormat(i % 4), true
	case tensor.TGenerator:
		return tensor.NewGenerator(uint64(i)), true
	case tensor.TList:
		n := max(ty.Size, 2)
		switch e := ty.Elem; e.Base().Kind {
		case tensor.TTensor:
			l := []*tensor.Tensor{ts[i], ts[i+1]}
			if e.Kind == tensor.TOptional {
				l = append(l, nil)
			}
			return l, true
		case tensor.TInt:
			l := make([]int, n)
			for j := range l {
				l[j] = 3000 + 10*i + j
			}
			return l, true
		case tensor.TFloat:
			l := make([]float64, n)
			for j := range l {
				l[j] = 0.5 + 10*float64(i) + float64(j)
			}
			return l, true
		case tensor.TBool:
			l := make([]bool, n)
			for j := range l {
				l[j] = bit != (j%2 == 1)
			}
			return l, true
		}
	}
	return nil, false
}

// TestViews binds sample arguments for every op of the tables, reads them
// with the op's constructor and checks each field against the argument of
// the same index: its name, its type and its value (None as nil or an
// unset Opt), then boxes the struct back.
func TestViews(t *testing.T) {
	ts := make([]*tensor.Tensor, 80)
	for i := range ts {
		ts[i] = tensor.NewMetaContiguous([]int{i + 1}, tensor.Float32, tensor.Meta)
	}
	optType := reflect.TypeOf(args.Opt[int]{}).PkgPath()
	for name, v := range views {
		op, ok := tensor.LookupOp(name)
		if !ok {
			t.Errorf("%s has a view but is not registered", name)
			continue
		}
		s := op.Schema
		for pass := 0; pass < 8; pass++ {
			k, absent := pass%7, pass == 7 // passes 0-6: every optional given; 7: none
			var pos []any
			kw := map[string]any{}
			want := make([]any, len(s.Args))
			for i, a := range s.Args {
				x, ok := sample(a.Type, i, k, absent, ts)
				if !ok {
					t.Fatalf("%s: no sample for argument %s %s", name, a.Type, a.Name)
				}
				want[i] = x
				if x == nil && a.Type.Kind == tensor.TOptional {
					continue // None: Bind fills it in
				}
				if a.KwargOnly {
					kw[a.Name] = x
				} else {
					for len(pos) < i {
						pos = append(pos, nil)
					}
					pos = append(pos, x)
				}
			}
			var bound []any
			if err := tensor.Try(func() { bound = op.Bind(pos, kw) }); err != nil {
				t.Fatalf("%s: Bind: %v", name, err)
			}
			for i, a := range s.Args {
				if absent && a.Type.Kind == tensor.TOptional && a.HasDefault {
					want[i] = bound[i] // a default that is not None
				}
			}
			if !reflect.DeepEqual(bound, want) {
				t.Fatalf("%s: Bind changed the sample arguments:\n got %#v\nwant %#v", name, bound, want)
			}
			st := reflect.ValueOf(v.of(bound))
			if st.NumField() != len(s.Args) {
				t.Fatalf("%s: %s has %d fields for %d arguments", name, st.Type(), st.NumField(), len(s.Args))
			}
			for i, a := range s.Args {
				f, sf := st.Field(i), st.Type().Field(i)
				if sf.Name != fieldName(a.Name) {
					t.Fatalf("%s: field %d of %s is %s, want %s (argument %s)", name, i, st.Type(), sf.Name, fieldName(a.Name), a.Name)
				}
				if strings.HasPrefix(sf.Type.Name(), "Opt[") && sf.Type.PkgPath() == optType {
					given := f.FieldByName("Ok").Bool()
					if given != (bound[i] != nil) {
						t.Fatalf("%s: %s.Ok is %v for %#v", name, sf.Name, given, bound[i])
					}
					if given && !reflect.DeepEqual(f.FieldByName("V").Interface(), bound[i]) {
						t.Fatalf("%s: %s.V is %#v, want %#v", name, sf.Name, f.FieldByName("V").Interface(), bound[i])
					}
					continue
				}
				if bound[i] == nil {
					if !f.IsZero() {
						t.Fatalf("%s: %s is %#v for None", name, sf.Name, f.Interface())
					}
					continue
				}
				if f.Type() != reflect.TypeOf(bound[i]) || !reflect.DeepEqual(f.Interface(), bound[i]) {
					t.Fatalf("%s: %s is %T %#v, want %T %#v", name, sf.Name, f.Interface(), f.Interface(), bound[i], bound[i])
				}
				if f.Kind() == reflect.Pointer && f.Pointer() != reflect.ValueOf(bound[i]).Pointer() {
					t.Fatalf("%s: %s is another %s than argument %d", name, sf.Name, f.Type(), i)
				}
			}
			if back := v.box(bound); !reflect.DeepEqual(back, bound) {
				t.Fatalf("%s: Box gives\n%#v\nwant\n%#v", name, back, bound)
			}
			checkFamilies(t, name, s, bound)
		}
	}
}

// checkFamilies checks the family views on every op they apply to.
func checkFamilies(t *testing.T, name string, s *tensor.Schema, bound []any) {
	if len(s.Args) > 0 && s.Args[0].Type.Kind == tensor.TTensor {
		if got := args.Self(bound); got != bound[0] {
			t.Fatalf("%s: Self is %v, want %v", name, got, bound[0])
		}
	}
	if len(s.Args) > 1 && s.Args[0].Name == "self" && s.Args[0].Type.Kind == tensor.TTensor && s.Args[1].Name == "other" {
		if k := s.Args[1].Type.Kind; k != tensor.TTensor && k != tensor.TScalar {
			return
		}
		if p := args.BinaryOf(bound); p.Self != bound[0] || p.Other != bound[1] {
			t.Fatalf("%s: BinaryOf gives %v, %v; want %v, %v", name, p.Self, p.Other, bound[0], bound[1])
		}
	}
}

// TestAt checks the position functions: one field per tensor argument (a
// Tensor, Tensor?, Tensor[] or Tensor?[]), in schema order, named as the
// view's field and holding the argument's index; none for ops without
// tensor arguments. SelfAt is the first field's index where the first
// argument is a tensor.
func TestAt(t *testing.T) {
	for name, v := range views {
		op, ok := tensor.LookupOp(name)
		if !ok {
			continue // TestViews reports it
		}
		var want []string
		for i, a := range op.Schema.Args {
			if a.Type.IsTensorLike() {
				want = append(want, fmt.Sprintf("%s=%d", fieldName(a.Name), i))
			}
		}
		if v.at == nil {
			if len(want) > 0 {
				t.Errorf("%s has tensor arguments %v but no position function", name, want)
			}
			continue
		}
		st := reflect.ValueOf(v.at())
		var got []string
		for i := 0; i < st.NumField(); i++ {
			got = append(got, fmt.Sprintf("%s=%d", st.Type().Field(i).Name, st.Field(i).Int()))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: positions %v, want %v", name, got, want)
		}
		if op.Schema.Args[0].Type.Kind == tensor.TTensor && st.Field(0).Int() != args.SelfAt {
			t.Errorf("%s takes a tensor first, at %d; SelfAt is %d", name, st.Field(0).Int(), args.SelfAt)
		}
	}
}

// TestViewsCoverOps checks that every registered aten op has a view: its
// schema comes from one of the tables the generator reads.
func TestViewsCoverOps(t *testing.T) {
	n := 0
	for _, op := range tensor.Ops() {
		if op.Schema.Namespace != "aten" {
			continue
		}
		n++
		if _, ok := views[op.Schema.QualifiedName()]; !ok {
			t.Errorf("%s is registered but has no view in package args: is it missing from the tables opgen reads?", op.Name)
		}
	}
	if n != len(views) {
		t.Errorf("%d aten ops registered, %d views", n, len(views))
	}
}

// TestViewLength checks that a constructor refuses another op's list.
func TestViewLength(t *testing.T) {
	x := tensor.NewMetaContiguous([]int{2}, tensor.Float32, tensor.Meta)
	for _, a := range [][]any{{x, x}, {x, x, tensor.Int(1), nil}} {
		msg := func() (r any) {
			defer func() { r = recover() }()
			args.AddOf(a)
			return nil
		}()
		if s, _ := msg.(string); !strings.Contains(s, "aten::add.Tensor has 3 arguments") {
			t.Errorf("AddOf(%d arguments) panics with %v", len(a), msg)
		}
	}
}

func TestOpt(t *testing.T) {
	var none args.Opt[int]
	if none.Or(7) != 7 || args.Some(3).Or(7) != 3 || !args.Some(0).Ok {
		t.Error("Opt.Or or Some is wrong")
	}
}

var (
	sinkCopy args.InternalToCopy
	sinkConv args.Convolution
)

// TestViewAllocs checks that constructors allocate nothing.
func TestViewAllocs(t *testing.T) {
	x := tensor.NewMetaContiguous([]int{1, 2, 5, 5}, tensor.Float32, tensor.Meta)
	w := tensor.NewMetaContiguous([]int{3, 2, 3, 3}, tensor.Float32, tensor.Meta)
	conv := tensor.MustOp("aten::convolution").Bind([]any{x, w, nil, []int{1}, []int{0}, []int{1}, false, []int{0}, 1}, nil)
	toCopy := tensor.MustOp("aten::_to_copy").Bind([]any{x}, map[string]any{"dtype": tensor.Float64, "device": tensor.CPU})
	if n := testing.AllocsPerRun(100, func() {
		sinkConv = args.ConvolutionOf(conv)
		sinkCopy = args.InternalToCopyOf(toCopy)
	}); n != 0 {
		t.Errorf("constructors allocate %v times", n)
	}
	if !sinkCopy.Dtype.Ok || sinkCopy.Dtype.V != tensor.Float64 || sinkCopy.Layout.Ok || sinkConv.Bias != nil || sinkConv.Groups != 1 {
		t.Errorf("read %+v and %+v", sinkCopy, sinkConv)
	}
}

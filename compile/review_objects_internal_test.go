package compile

import (
	"testing"
	"time"

	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// stateObj is a script object whose flattened state is a slice it keeps
// (and changes in place).
type stateObj struct{ scale []int }

func (*stateObj) QualifiedClassName() string { return "__torch__.torch.classes.review.State" }
func (*stateObj) IsFake() bool               { return false }
func (o *stateObj) StateLeaves() []StateLeaf {
	return []StateLeaf{{Path: "scale", Value: o.scale}}
}

// The guard on a non-tensor leaf of an object's flattened state keeps the
// value it had when the graph was traced: a slice the object changes in
// place afterwards fails the guard (the graph baked the old values in).
func TestObjectGuardSnapshotsSliceLeaf(t *testing.T) {
	c := Compile(func(o *stateObj) {})
	o := &stateObj{scale: []int{2, 3}}
	specs := c.argSpecs([]any{o}, [][]StateLeaf{o.StateLeaves()})
	if why := specs[0].obj.check("inputs[0]", o, o.StateLeaves()); why != "" {
		t.Fatalf("the object as traced fails its guard: %s", why)
	}
	o.scale[0] = 5
	if why := specs[0].obj.check("inputs[0]", o, o.StateLeaves()); why == "" {
		t.Fatalf("the guard passes after the state's slice changed in place ([2 3] -> %v)", o.scale)
	}
	gm := fx.NewGraphModule(fx.New())
	gm.SetAttr("o", o)
	ags := attrGuards(gm)
	if len(ags) != 1 {
		t.Fatalf("%d attribute guards, want 1", len(ags))
	}
	o.scale[1] = 7
	if why := ags[0].spec.check("o", o, o.StateLeaves()); why == "" {
		t.Fatalf("the attribute guard passes after the state's slice changed in place")
	}
}

// panicObj is a script object whose StateLeaves panics (a Go panic, not
// a *tensor.Error) while boom is set.
type panicObj struct{ boom bool }

func (*panicObj) QualifiedClassName() string { return "__torch__.torch.classes.review.Panic" }
func (*panicObj) IsFake() bool               { return false }
func (o *panicObj) StateLeaves() []StateLeaf {
	if o.boom {
		panic("boom")
	}
	return []StateLeaf{{Path: "n", Value: 1}}
}

// A Go panic out of the StateLeaves of an object a cached graph closed
// over, while Call checks the graph's guards with c.mu held, leaves the
// Compiled usable: the next call does not block on its lock.
func TestGuardPanicReleasesLock(t *testing.T) {
	o := &panicObj{}
	c := Compile(func(x *tensor.Tensor) *tensor.Tensor { return x.Sin() })
	x := tensor.Randn([]int{3})
	if _, err := c.Call(x); err != nil {
		t.Fatal(err)
	}
	gm := fx.NewGraphModule(fx.New())
	gm.SetAttr("o", o)
	c.entries[0].attrs = attrGuards(gm) // as if fn had closed over o
	o.boom = true
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Fatalf("recovered %v, want StateLeaves' panic", r)
			}
		}()
		c.Call(x)
	}()
	o.boom = false
	done := make(chan error, 1)
	go func() {
		_, err := c.Call(x)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call after the panic did not return within 10s: deadlock on c.mu")
	}
	if s := c.Stats(); s.Hits != 1 {
		t.Errorf("stats %+v: the last call should hit the cached graph", s)
	}
}

// sameLeaf compares state leaves of any kind without panicking: a struct
// whose interface field holds a slice has a comparable type, but == on it
// would panic.
func TestSameLeafUncomparableValues(t *testing.T) {
	type box struct{ v any }
	cases := []struct {
		a, b any
		want bool
	}{
		{box{[]int{1, 2}}, box{[]int{1, 2}}, true},
		{box{[]int{1, 2}}, box{[]int{1, 3}}, false},
		{box{1}, box{1}, true},
		{[]float64{1}, []float64{1}, true},
		{box{[]int{1}}, box{1}, false},
		{nil, box{1}, false},
		{nil, nil, true},
	}
	for i, c := range cases {
		if got := sameLeaf(c.a, c.b); got != c.want {
			t.Errorf("case %d: sameLeaf(%v, %v) = %v, want %v", i, c.a, c.b, got, c.want)
		}
	}
}

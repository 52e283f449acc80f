package compile

import (
	"testing"

	"github.com/goaten/goaten/compile/fx"
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

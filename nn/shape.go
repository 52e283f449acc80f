package nn

import (
	"fmt"

	gt "github.com/goaten/goaten"
)

// Flatten merges dims StartDim..EndDim into one (nn.Flatten). Options:
// StartDim (1), EndDim (-1).
type Flatten struct {
	Base
	StartDim, EndDim int
}

// NewFlatten makes nn.Flatten().
func NewFlatten(opts ...Option) *Flatten {
	k := parse("Flatten", opts, "start_dim", "end_dim")
	m := &Flatten{StartDim: k.int("start_dim", 1), EndDim: k.int("end_dim", -1)}
	m.SetName("Flatten")
	return m
}

// Forward is x.flatten(start_dim, end_dim).
func (m *Flatten) Forward(x *T) *T {
	return x.Flatten(gt.WithStartDim(m.StartDim), gt.WithEndDim(m.EndDim))
}

// ExtraRepr is "start_dim=1, end_dim=-1".
func (m *Flatten) ExtraRepr() string {
	return fmt.Sprintf("start_dim=%d, end_dim=%d", m.StartDim, m.EndDim)
}

func (m *Flatten) String() string { return Repr(m) }

// Unflatten splits dim Dim into UnflattenedSize (nn.Unflatten); one size
// may be -1.
type Unflatten struct {
	Base
	Dim             int
	UnflattenedSize []int
}

// NewUnflatten makes nn.Unflatten(dim, unflattenedSize).
func NewUnflatten(dim int, unflattenedSize []int) *Unflatten {
	m := &Unflatten{Dim: dim, UnflattenedSize: append([]int(nil), unflattenedSize...)}
	m.SetName("Unflatten")
	return m
}

// Forward is x.unflatten(dim, unflattened_size).
func (m *Unflatten) Forward(x *T) *T { return x.Unflatten(m.Dim, m.UnflattenedSize) }

// ExtraRepr is "dim=1, unflattened_size=(2, 3)".
func (m *Unflatten) ExtraRepr() string {
	return fmt.Sprintf("dim=%d, unflattened_size=%s", m.Dim, tupleRepr(m.UnflattenedSize))
}

func (m *Unflatten) String() string { return Repr(m) }

package optim

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// ReduceLROnPlateau is torch.optim.lr_scheduler.ReduceLROnPlateau: it
// multiplies the learning rates by factor when a metric has stopped
// improving for more than patience epochs, then waits cooldown epochs.
// In "min" mode with "rel" thresholds a metric improves when it is below
// best·(1 - threshold); "abs" compares with best - threshold, "max" mode
// the other way. A group's rate never goes below its min_lr, and a change
// smaller than eps is skipped.
//
// It is not a Scheduler: its Step takes the metric.
type ReduceLROnPlateau struct {
	opt Optimizer
	st  plateauState
}

type plateauState struct {
	Scheduler       string    `json:"scheduler"`
	Mode            string    `json:"mode"`
	Factor          float64   `json:"factor"`
	Patience        int       `json:"patience"`
	Threshold       float64   `json:"threshold"`
	ThresholdMode   string    `json:"threshold_mode"`
	Cooldown        int       `json:"cooldown"`
	CooldownCounter int       `json:"cooldown_counter"`
	MinLRs          []float64 `json:"min_lrs"`
	Eps             float64   `json:"eps"`
	Best            jfloat    `json:"best"`
	NumBadEpochs    int       `json:"num_bad_epochs"`
	LastEpoch       int       `json:"last_epoch"`
	LastLR          []float64 `json:"_last_lr"`
}

// NewReduceLROnPlateau makes a ReduceLROnPlateau. Options: WithMode
// ("min"), WithFactor (0.1), WithPatience (10), WithThreshold (1e-4),
// WithThresholdMode ("rel"), WithCooldown (0), WithMinLR (0, or one per
// group), WithEps (1e-8).
func NewReduceLROnPlateau(opt Optimizer, opts ...Option) (*ReduceLROnPlateau, error) {
	kw, err := parseOptions("ReduceLROnPlateau.__init__", opts, "mode", "factor", "patience",
		"threshold", "threshold_mode", "cooldown", "min_lr", "eps")
	if err != nil {
		return nil, err
	}
	r := &ReduceLROnPlateau{opt: opt}
	st := &r.st
	st.Scheduler = "ReduceLROnPlateau"
	st.Factor = kw.float("factor", 0.1)
	if st.Factor >= 1 {
		return nil, fmt.Errorf("Factor should be < 1.0.")
	}
	n := len(opt.ParamGroups())
	if mins := kw.floats("min_lr"); len(mins) > 1 && len(mins) != n {
		return nil, fmt.Errorf("expected %d min_lrs, got %d", n, len(mins))
	}
	if st.MinLRs, err = perGroup("min_lr", kw.floats("min_lr"), 0, n); err != nil {
		return nil, err
	}
	st.Patience = kw.int("patience", 10)
	st.Cooldown = kw.int("cooldown", 0)
	st.Mode = kw.string("mode", "min")
	st.Threshold = kw.float("threshold", 1e-4)
	st.ThresholdMode = kw.string("threshold_mode", "rel")
	st.Eps = kw.float("eps", 1e-8)
	if err := r.check(); err != nil {
		return nil, err
	}
	st.Best = jfloat(r.modeWorse())
	st.LastLR = groupLRs(opt.ParamGroups())
	return r, nil
}

func (r *ReduceLROnPlateau) check() error {
	st := &r.st
	switch {
	case st.Mode != "min" && st.Mode != "max":
		return fmt.Errorf("mode %s is unknown!", st.Mode)
	case st.ThresholdMode != "rel" && st.ThresholdMode != "abs":
		return fmt.Errorf("threshold mode %s is unknown!", st.ThresholdMode)
	case !(st.Factor < 1):
		return fmt.Errorf("Factor should be < 1.0.")
	case len(st.MinLRs) != len(r.opt.ParamGroups()):
		return fmt.Errorf("expected %d min_lrs, got %d", len(r.opt.ParamGroups()), len(st.MinLRs))
	}
	return nil
}

func (r *ReduceLROnPlateau) modeWorse() float64 {
	if r.st.Mode == "min" {
		return math.Inf(1)
	}
	return math.Inf(-1)
}

func (r *ReduceLROnPlateau) isBetter(a, best float64) bool {
	st := &r.st
	switch {
	case st.Mode == "min" && st.ThresholdMode == "rel":
		return a < best*(1.0-st.Threshold)
	case st.Mode == "min":
		return a < best-st.Threshold
	case st.ThresholdMode == "rel":
		return a > best*(st.Threshold+1.0)
	}
	return a > best+st.Threshold
}

// Step records the epoch's metric and reduces the learning rates when it
// has not improved for more than patience epochs.
func (r *ReduceLROnPlateau) Step(metric float64) {
	st := &r.st
	st.LastEpoch++
	if r.isBetter(metric, float64(st.Best)) {
		st.Best = jfloat(metric)
		st.NumBadEpochs = 0
	} else {
		st.NumBadEpochs++
	}
	if st.CooldownCounter > 0 {
		st.CooldownCounter--
		st.NumBadEpochs = 0
	}
	if st.NumBadEpochs > st.Patience {
		for i, g := range r.opt.ParamGroups() {
			if i >= len(st.MinLRs) {
				break
			}
			newLR := pyMax(g.LR*st.Factor, st.MinLRs[i])
			if g.LR-newLR > st.Eps {
				g.LR = newLR
			}
		}
		st.CooldownCounter = st.Cooldown
		st.NumBadEpochs = 0
	}
	st.LastLR = groupLRs(r.opt.ParamGroups())
}

// pyMax is Python's max(a, b): a unless b is larger (so NaN in a stays).
func pyMax(a, b float64) float64 {
	if b > a {
		return b
	}
	return a
}

// LastLR is each group's learning rate after the last step.
func (r *ReduceLROnPlateau) LastLR() []float64 { return slices.Clone(r.st.LastLR) }

// LastEpoch is the number of steps so far.
func (r *ReduceLROnPlateau) LastEpoch() int { return r.st.LastEpoch }

// Best is the best metric so far (±Inf before the first step).
func (r *ReduceLROnPlateau) Best() float64 { return float64(r.st.Best) }

// NumBadEpochs is how many epochs in a row the metric has not improved.
func (r *ReduceLROnPlateau) NumBadEpochs() int { return r.st.NumBadEpochs }

// StateDict encodes the scheduler's state as JSON (best as "inf" while
// infinite).
func (r *ReduceLROnPlateau) StateDict() ([]byte, error) {
	b, err := json.Marshal(&r.st)
	if err != nil {
		return nil, fmt.Errorf("ReduceLROnPlateau state dict: %v", err)
	}
	return b, nil
}

// LoadStateDict restores what StateDict encoded; nothing changes when b
// does not fit.
func (r *ReduceLROnPlateau) LoadStateDict(b []byte) error {
	old := r.st
	var st plateauState
	if err := decodeExact(b, &st); err != nil {
		return fmt.Errorf("ReduceLROnPlateau state dict: %v", err)
	}
	if st.Scheduler != "ReduceLROnPlateau" {
		return fmt.Errorf("loaded state dict is for %s, not ReduceLROnPlateau", st.Scheduler)
	}
	r.st = st
	if err := r.check(); err != nil {
		r.st = old
		return fmt.Errorf("ReduceLROnPlateau state dict: %v", err)
	}
	if len(st.LastLR) != len(r.opt.ParamGroups()) {
		r.st = old
		return fmt.Errorf("ReduceLROnPlateau state dict: %d _last_lr for %d parameter groups", len(st.LastLR), len(r.opt.ParamGroups()))
	}
	return nil
}

package optim

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"sort"
)

// Scheduler changes the learning rates of an optimizer's groups as epochs
// (or batches) go by, as torch.optim.lr_scheduler's schedulers do. Call
// Step after the optimizer's step.
//
// A scheduler's constructor records each group's starting learning rate
// as its InitialLR (when no earlier scheduler did) and takes the first
// step (epoch 0), which may already change LR (LinearLR, OneCycleLR), as
// PyTorch's do. To resume a run, make the optimizer and the scheduler as
// before, then load the optimizer's state dict and then the scheduler's:
// the optimizer's holds the learning rates, the scheduler's its position.
type Scheduler interface {
	// Step advances one epoch and sets each group's learning rate by the
	// scheduler's recursive rule (scheduler.step()).
	Step()
	// StepTo sets the epoch and each group's learning rate by the
	// closed form where PyTorch has one (the deprecated
	// scheduler.step(epoch)).
	StepTo(epoch int)
	// LastLR is each group's learning rate after the last step
	// (get_last_lr()).
	LastLR() []float64
	// LastEpoch is the epoch of the last step (last_epoch): 0 after
	// construction.
	LastEpoch() int
	// StateDict encodes the scheduler's state as JSON (state_dict()).
	StateDict() ([]byte, error)
	// LoadStateDict restores what StateDict encoded (load_state_dict()).
	LoadStateDict(b []byte) error
}

// lrRule is what each scheduler adds to lrScheduler.
type lrRule interface {
	// getLR is the chainable (recursive) form: the next learning rates
	// from the current ones.
	getLR() []float64
	// closedForm is the learning rates at lastEpoch from base_lrs
	// (ok false: the scheduler has none and StepTo uses getLR).
	closedForm() (lrs []float64, ok bool)
	// config is a pointer to the scheduler's own settings, saved in the
	// state dict under "config".
	config() any
	// check validates settings loaded from a state dict.
	check() error
}

// lrScheduler is _LRScheduler: the base every scheduler embeds.
type lrScheduler struct {
	name      string
	opt       Optimizer
	baseLRs   []float64
	lastEpoch int
	stepCount int
	lastLR    []float64
	rule      lrRule
}

// start is _LRScheduler.__init__ with last_epoch=-1: it sets each group's
// initial_lr if unset, takes base_lrs from them and steps to epoch 0.
func (s *lrScheduler) start(name string, opt Optimizer, rule lrRule) {
	s.name, s.opt, s.rule = name, opt, rule
	s.baseLRs = nil
	for _, g := range opt.ParamGroups() {
		if g.InitialLR == nil {
			v := g.LR
			g.InitialLR = &v
		}
		s.baseLRs = append(s.baseLRs, *g.InitialLR)
	}
	s.lastEpoch = -1
	s.initialStep()
}

func (s *lrScheduler) initialStep() {
	s.stepCount = 0
	s.Step()
}

// Step advances one epoch (scheduler.step()).
func (s *lrScheduler) Step() {
	s.stepCount++
	s.lastEpoch++
	s.apply(s.rule.getLR())
}

// StepTo jumps to epoch, using the closed form where PyTorch has one
// (scheduler.step(epoch)).
func (s *lrScheduler) StepTo(epoch int) {
	s.stepCount++
	s.lastEpoch = epoch
	lrs, ok := s.rule.closedForm()
	if !ok {
		lrs = s.rule.getLR()
	}
	s.apply(lrs)
}

func (s *lrScheduler) apply(lrs []float64) {
	groups := s.opt.ParamGroups()
	for i := 0; i < len(groups) && i < len(lrs); i++ {
		groups[i].LR = lrs[i]
	}
	s.lastLR = groupLRs(groups)
}

func groupLRs(groups []*ParamGroup) []float64 {
	lrs := make([]float64, len(groups))
	for i, g := range groups {
		lrs[i] = g.LR
	}
	return lrs
}

// LastLR is each group's learning rate after the last step.
func (s *lrScheduler) LastLR() []float64 { return slices.Clone(s.lastLR) }

// LastEpoch is the epoch of the last step.
func (s *lrScheduler) LastEpoch() int { return s.lastEpoch }

func (s *lrScheduler) base() *lrScheduler { return s }

// scaled is each group's current learning rate times f.
func (s *lrScheduler) scaled(f float64) []float64 {
	lrs := groupLRs(s.opt.ParamGroups())
	for i := range lrs {
		lrs[i] *= f
	}
	return lrs
}

// lrState is the JSON of a scheduler's state dict.
type lrState struct {
	Scheduler string          `json:"scheduler"`
	LastEpoch int             `json:"last_epoch"`
	StepCount int             `json:"_step_count"`
	BaseLRs   []float64       `json:"base_lrs"`
	LastLR    []float64       `json:"_last_lr"`
	Config    json.RawMessage `json:"config"`
}

// StateDict encodes the scheduler's position and settings as JSON.
func (s *lrScheduler) StateDict() ([]byte, error) {
	cfg, err := json.Marshal(s.rule.config())
	if err != nil {
		return nil, fmt.Errorf("%s state dict: %v", s.name, err)
	}
	b, err := json.Marshal(lrState{s.name, s.lastEpoch, s.stepCount, s.baseLRs, s.lastLR, cfg})
	if err != nil {
		return nil, fmt.Errorf("%s state dict: %v", s.name, err)
	}
	return b, nil
}

// LoadStateDict restores a state StateDict encoded, settings included.
// Nothing changes when b does not fit this scheduler.
func (s *lrScheduler) LoadStateDict(b []byte) error {
	var st lrState
	if err := decodeExact(b, &st); err != nil {
		return fmt.Errorf("%s state dict: %v", s.name, err)
	}
	if st.Scheduler != s.name {
		return fmt.Errorf("loaded state dict is for %s, not %s", st.Scheduler, s.name)
	}
	n := len(s.opt.ParamGroups())
	if len(st.BaseLRs) != n || len(st.LastLR) != n {
		return fmt.Errorf("%s state dict: %d base_lrs and %d _last_lr for %d parameter groups", s.name, len(st.BaseLRs), len(st.LastLR), n)
	}
	// Decode the settings into a copy, check them, then commit.
	old, err := json.Marshal(s.rule.config())
	if err != nil {
		return err
	}
	if err := decodeExact(st.Config, s.rule.config()); err != nil {
		json.Unmarshal(old, s.rule.config())
		return fmt.Errorf("%s state dict: config: %v", s.name, err)
	}
	if err := s.rule.check(); err != nil {
		json.Unmarshal(old, s.rule.config())
		return fmt.Errorf("%s state dict: %v", s.name, err)
	}
	s.lastEpoch, s.stepCount, s.baseLRs, s.lastLR = st.LastEpoch, st.StepCount, st.BaseLRs, st.LastLR
	return nil
}

// StepLR is torch.optim.lr_scheduler.StepLR: every step_size epochs the
// learning rate is multiplied by gamma (default 0.1).
type StepLR struct {
	lrScheduler
	cfg struct {
		StepSize int     `json:"step_size"`
		Gamma    float64 `json:"gamma"`
	}
}

// NewStepLR makes a StepLR. Options: WithGamma (0.1).
func NewStepLR(opt Optimizer, stepSize int, opts ...Option) (*StepLR, error) {
	kw, err := parseOptions("StepLR.__init__", opts, "gamma")
	if err != nil {
		return nil, err
	}
	s := &StepLR{}
	s.cfg.StepSize, s.cfg.Gamma = stepSize, kw.float("gamma", 0.1)
	if err := s.check(); err != nil {
		return nil, err
	}
	s.start("StepLR", opt, s)
	return s, nil
}

func (s *StepLR) check() error {
	if s.cfg.StepSize <= 0 {
		return fmt.Errorf("StepLR: step_size must be positive, got %d", s.cfg.StepSize)
	}
	return nil
}

func (s *StepLR) config() any { return &s.cfg }

func (s *StepLR) getLR() []float64 {
	if s.lastEpoch == 0 || pyMod(s.lastEpoch, s.cfg.StepSize) != 0 {
		return s.scaled(1)
	}
	return s.scaled(s.cfg.Gamma)
}

func (s *StepLR) closedForm() ([]float64, bool) {
	return baseTimes(s.baseLRs, pow(s.cfg.Gamma, pyFloorDiv(s.lastEpoch, s.cfg.StepSize))), true
}

// MultiStepLR is torch.optim.lr_scheduler.MultiStepLR: the learning rate is
// multiplied by gamma (default 0.1) at each milestone epoch (by gamma^k at a
// milestone listed k times).
type MultiStepLR struct {
	lrScheduler
	cfg struct {
		Milestones []int   `json:"milestones"`
		Gamma      float64 `json:"gamma"`
	}
}

// NewMultiStepLR makes a MultiStepLR. Options: WithGamma (0.1).
func NewMultiStepLR(opt Optimizer, milestones []int, opts ...Option) (*MultiStepLR, error) {
	kw, err := parseOptions("MultiStepLR.__init__", opts, "gamma")
	if err != nil {
		return nil, err
	}
	s := &MultiStepLR{}
	s.cfg.Milestones = slices.Sorted(slices.Values(milestones))
	s.cfg.Gamma = kw.float("gamma", 0.1)
	if s.cfg.Milestones == nil {
		s.cfg.Milestones = []int{}
	}
	s.start("MultiStepLR", opt, s)
	return s, nil
}

func (s *MultiStepLR) check() error {
	if !slices.IsSorted(s.cfg.Milestones) {
		return fmt.Errorf("MultiStepLR: milestones are not sorted")
	}
	return nil
}

func (s *MultiStepLR) config() any { return &s.cfg }

func (s *MultiStepLR) getLR() []float64 {
	n := 0
	for _, m := range s.cfg.Milestones {
		if m == s.lastEpoch {
			n++
		}
	}
	if n == 0 {
		return s.scaled(1)
	}
	return s.scaled(pow(s.cfg.Gamma, n))
}

func (s *MultiStepLR) closedForm() ([]float64, bool) {
	// bisect_right(sorted milestones, last_epoch)
	n := sort.Search(len(s.cfg.Milestones), func(i int) bool { return s.cfg.Milestones[i] > s.lastEpoch })
	return baseTimes(s.baseLRs, pow(s.cfg.Gamma, n)), true
}

// ExponentialLR is torch.optim.lr_scheduler.ExponentialLR: the learning
// rate is multiplied by gamma every epoch.
type ExponentialLR struct {
	lrScheduler
	cfg struct {
		Gamma float64 `json:"gamma"`
	}
}

// NewExponentialLR makes an ExponentialLR.
func NewExponentialLR(opt Optimizer, gamma float64) (*ExponentialLR, error) {
	s := &ExponentialLR{}
	s.cfg.Gamma = gamma
	s.start("ExponentialLR", opt, s)
	return s, nil
}

func (s *ExponentialLR) check() error { return nil }
func (s *ExponentialLR) config() any  { return &s.cfg }

func (s *ExponentialLR) getLR() []float64 {
	if s.lastEpoch == 0 {
		return s.scaled(1)
	}
	return s.scaled(s.cfg.Gamma)
}

func (s *ExponentialLR) closedForm() ([]float64, bool) {
	return baseTimes(s.baseLRs, pow(s.cfg.Gamma, s.lastEpoch)), true
}

// CosineAnnealingLR is torch.optim.lr_scheduler.CosineAnnealingLR: the
// learning rate follows half a cosine from the base rate down to eta_min
// (default 0) over T_max epochs, then back up, recursively as PyTorch
// computes it:
//
//	lr_t = eta_min + (lr_{t-1} - eta_min)·(1 + cos(πt/T_max)) / (1 + cos(π(t-1)/T_max))
//
// StepTo uses the closed form eta_min + (base_lr - eta_min)·(1 + cos(πt/T_max))/2.
type CosineAnnealingLR struct {
	lrScheduler
	cfg struct {
		TMax   int     `json:"T_max"`
		EtaMin float64 `json:"eta_min"`
	}
}

// NewCosineAnnealingLR makes a CosineAnnealingLR. Options: WithEtaMin (0).
func NewCosineAnnealingLR(opt Optimizer, tMax int, opts ...Option) (*CosineAnnealingLR, error) {
	kw, err := parseOptions("CosineAnnealingLR.__init__", opts, "eta_min")
	if err != nil {
		return nil, err
	}
	s := &CosineAnnealingLR{}
	s.cfg.TMax, s.cfg.EtaMin = tMax, kw.float("eta_min", 0)
	if err := s.check(); err != nil {
		return nil, err
	}
	s.start("CosineAnnealingLR", opt, s)
	return s, nil
}

func (s *CosineAnnealingLR) check() error {
	if s.cfg.TMax <= 0 {
		return fmt.Errorf("CosineAnnealingLR: T_max must be positive, got %d", s.cfg.TMax)
	}
	return nil
}

func (s *CosineAnnealingLR) config() any { return &s.cfg }

func (s *CosineAnnealingLR) getLR() []float64 {
	groups := s.opt.ParamGroups()
	e, tMax, etaMin := float64(s.lastEpoch), float64(s.cfg.TMax), s.cfg.EtaMin
	switch {
	case s.lastEpoch == 0:
		return groupLRs(groups)
	case s.stepCount == 1 && s.lastEpoch > 0:
		lrs := make([]float64, min(len(groups), len(s.baseLRs)))
		for i := range lrs {
			lrs[i] = etaMin + (s.baseLRs[i]-etaMin)*(1+cos(e*math.Pi/tMax))/2
		}
		return lrs
	case pyMod(s.lastEpoch-1-s.cfg.TMax, 2*s.cfg.TMax) == 0:
		lrs := make([]float64, min(len(groups), len(s.baseLRs)))
		for i := range lrs {
			lrs[i] = groups[i].LR + (s.baseLRs[i]-etaMin)*(1-cos(math.Pi/tMax))/2
		}
		return lrs
	}
	lrs := groupLRs(groups)
	for i, lr := range lrs {
		lrs[i] = float64((1+cos(math.Pi*e/tMax))/(1+cos(math.Pi*(e-1)/tMax))*(lr-etaMin)) + etaMin
	}
	return lrs
}

func (s *CosineAnnealingLR) closedForm() ([]float64, bool) {
	e, tMax, etaMin := float64(s.lastEpoch), float64(s.cfg.TMax), s.cfg.EtaMin
	lrs := slices.Clone(s.baseLRs)
	for i, b := range lrs {
		lrs[i] = etaMin + (b-etaMin)*(1+cos(math.Pi*e/tMax))/2
	}
	return lrs, true
}

// LinearLR is torch.optim.lr_scheduler.LinearLR, the usual warm-up: the
// learning rate is the base rate times a factor going linearly from
// start_factor (default 1/3) to end_factor (default 1) over total_iters
// epochs (default 5), then staying there.
type LinearLR struct {
	lrScheduler
	cfg struct {
		StartFactor float64 `json:"start_factor"`
		EndFactor   float64 `json:"end_factor"`
		TotalIters  int     `json:"total_iters"`
	}
}

// NewLinearLR makes a LinearLR. Options: WithStartFactor (1/3),
// WithEndFactor (1), WithTotalIters (5).
func NewLinearLR(opt Optimizer, opts ...Option) (*LinearLR, error) {
	kw, err := parseOptions("LinearLR.__init__", opts, "start_factor", "end_factor", "total_iters")
	if err != nil {
		return nil, err
	}
	s := &LinearLR{}
	s.cfg.StartFactor = kw.float("start_factor", 1.0/3)
	s.cfg.EndFactor = kw.float("end_factor", 1)
	s.cfg.TotalIters = kw.int("total_iters", 5)
	if err := s.check(); err != nil {
		return nil, err
	}
	s.start("LinearLR", opt, s)
	return s, nil
}

// check is PyTorch 1.13's; a start factor of 0, which 1.13 accepts and
// then divides by at the second step, is refused too.
func (s *LinearLR) check() error {
	switch {
	case !(s.cfg.StartFactor > 0 && s.cfg.StartFactor <= 1):
		return fmt.Errorf("Starting multiplicative factor expected to be between 0 and 1.")
	case !(s.cfg.EndFactor >= 0 && s.cfg.EndFactor <= 1):
		return fmt.Errorf("Ending multiplicative factor expected to be between 0 and 1.")
	case s.cfg.TotalIters <= 0:
		return fmt.Errorf("LinearLR: total_iters must be positive, got %d", s.cfg.TotalIters)
	}
	return nil
}

func (s *LinearLR) config() any { return &s.cfg }

func (s *LinearLR) getLR() []float64 {
	c := s.cfg
	switch {
	case s.lastEpoch == 0:
		return s.scaled(c.StartFactor)
	case s.lastEpoch > c.TotalIters:
		return s.scaled(1)
	}
	return s.scaled(1.0 + (c.EndFactor-c.StartFactor)/
		(float64(c.TotalIters)*c.StartFactor+float64(s.lastEpoch-1)*(c.EndFactor-c.StartFactor)))
}

func (s *LinearLR) closedForm() ([]float64, bool) {
	c := s.cfg
	lrs := slices.Clone(s.baseLRs)
	for i, b := range lrs {
		lrs[i] = b * (c.StartFactor + (c.EndFactor-c.StartFactor)*float64(min(c.TotalIters, s.lastEpoch))/float64(c.TotalIters))
	}
	return lrs, true
}

// OneCycleLR is torch.optim.lr_scheduler.OneCycleLR (Smith's 1cycle
// policy), stepped once per batch: the learning rate rises from
// max_lr/div_factor to max_lr over the first pct_start of total_steps, then
// anneals to initial_lr/final_div_factor (three_phase: back to the initial
// rate first), by cosine or linear annealing; the momentum (SGD, RMSprop)
// or Adam's beta1 cycles the other way between max_momentum and
// base_momentum.
//
// PyTorch keeps max_lr, min_lr and the momenta in each param group; here
// they live in the scheduler (and its state dict), and initial_lr in the
// group.
type OneCycleLR struct {
	lrScheduler
	cfg struct {
		TotalSteps     int       `json:"total_steps"`
		PctStart       float64   `json:"pct_start"`
		AnnealStrategy string    `json:"anneal_strategy"`
		CycleMomentum  bool      `json:"cycle_momentum"`
		UseBeta1       bool      `json:"use_beta1"`
		ThreePhase     bool      `json:"three_phase"`
		MaxLRs         []float64 `json:"max_lrs"`
		MinLRs         []float64 `json:"min_lrs"`
		MaxMomentums   []float64 `json:"max_momentums"`
		BaseMomentums  []float64 `json:"base_momentums"`
	}
}

type phase struct {
	endStep                float64
	startLR, endLR         string // "initial_lr", "max_lr", "min_lr"
	startMomentum, endMomt string // "max_momentum", "base_momentum"
}

// NewOneCycleLR makes a OneCycleLR. maxLR is one peak rate for every group
// or one per group. Give WithTotalSteps, or WithEpochs and
// WithStepsPerEpoch. Other options: WithPctStart (0.3),
// WithAnnealStrategy ("cos"), WithCycleMomentum (true), WithBaseMomentum
// (0.85), WithMaxMomentum (0.95), WithDivFactor (25), WithFinalDivFactor
// (1e4), WithThreePhase (false).
func NewOneCycleLR(opt Optimizer, maxLR []float64, opts ...Option) (*OneCycleLR, error) {
	kw, err := parseOptions("OneCycleLR.__init__", opts, "total_steps", "epochs", "steps_per_epoch",
		"pct_start", "anneal_strategy", "cycle_momentum", "base_momentum", "max_momentum",
		"div_factor", "final_div_factor", "three_phase")
	if err != nil {
		return nil, err
	}
	s := &OneCycleLR{}
	c := &s.cfg
	_, hasTotal := kw["total_steps"]
	_, hasEpochs := kw["epochs"]
	_, hasSPE := kw["steps_per_epoch"]
	switch {
	case !hasTotal && !hasEpochs && !hasSPE:
		return nil, fmt.Errorf("You must define either total_steps OR (epochs AND steps_per_epoch)")
	case hasTotal:
		c.TotalSteps = kw.int("total_steps", 0)
		if c.TotalSteps <= 0 {
			return nil, fmt.Errorf("Expected positive integer total_steps, but got %d", c.TotalSteps)
		}
	default:
		epochs, spe := kw.int("epochs", 0), kw.int("steps_per_epoch", 0)
		if epochs <= 0 {
			return nil, fmt.Errorf("Expected positive integer epochs, but got %d", epochs)
		}
		if spe <= 0 {
			return nil, fmt.Errorf("Expected positive integer steps_per_epoch, but got %d", spe)
		}
		c.TotalSteps = epochs * spe
	}
	c.PctStart = kw.float("pct_start", 0.3)
	c.AnnealStrategy = kw.string("anneal_strategy", "cos")
	c.CycleMomentum = kw.bool("cycle_momentum", true)
	c.ThreePhase = kw.bool("three_phase", false)
	divFactor, finalDiv := kw.float("div_factor", 25), kw.float("final_div_factor", 1e4)
	if err := s.checkPhases(); err != nil {
		return nil, err
	}
	groups := opt.ParamGroups()
	if c.MaxLRs, err = perGroup("max_lr", maxLR, math.NaN(), len(groups)); err != nil {
		return nil, err
	}
	if len(maxLR) == 0 {
		return nil, fmt.Errorf("OneCycleLR: no max_lr")
	}
	c.MinLRs = make([]float64, len(groups))
	for i, g := range groups {
		initial := c.MaxLRs[i] / divFactor
		g.InitialLR = &initial
		c.MinLRs[i] = initial / finalDiv
	}
	if c.CycleMomentum {
		if len(groups) == 0 || !(groups[0].Has("momentum") || groups[0].Has("betas")) {
			return nil, fmt.Errorf("optimizer must support momentum with `cycle_momentum` option enabled")
		}
		c.UseBeta1 = groups[0].Has("betas")
		if c.MaxMomentums, err = perGroup("max_momentum", kw.floats("max_momentum"), 0.95, len(groups)); err != nil {
			return nil, err
		}
		if c.BaseMomentums, err = perGroup("base_momentum", kw.floats("base_momentum"), 0.85, len(groups)); err != nil {
			return nil, err
		}
		for i, g := range groups {
			s.setMomentum(g, c.MaxMomentums[i])
		}
	}
	s.start("OneCycleLR", opt, s)
	return s, nil
}

func (s *OneCycleLR) checkPhases() error {
	c := &s.cfg
	if c.PctStart < 0 || c.PctStart > 1 || math.IsNaN(c.PctStart) {
		return fmt.Errorf("Expected float between 0 and 1 pct_start, but got %s", pyFloat(c.PctStart))
	}
	if c.AnnealStrategy != "cos" && c.AnnealStrategy != "linear" {
		return fmt.Errorf("anneal_strategy must by one of 'cos' or 'linear', instead got %s", c.AnnealStrategy)
	}
	return nil
}

func (s *OneCycleLR) check() error {
	c := &s.cfg
	n := len(s.opt.ParamGroups())
	if c.TotalSteps <= 0 {
		return fmt.Errorf("Expected positive integer total_steps, but got %d", c.TotalSteps)
	}
	if len(c.MaxLRs) != n || len(c.MinLRs) != n {
		return fmt.Errorf("OneCycleLR: max_lrs and min_lrs need %d values", n)
	}
	if c.CycleMomentum && (len(c.MaxMomentums) != n || len(c.BaseMomentums) != n) {
		return fmt.Errorf("OneCycleLR: max_momentums and base_momentums need %d values", n)
	}
	return s.checkPhases()
}

func (s *OneCycleLR) config() any { return &s.cfg }

func (s *OneCycleLR) phases() []phase {
	c := &s.cfg
	total := float64(c.TotalSteps)
	if c.ThreePhase {
		return []phase{
			{float64(c.PctStart*total) - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"},
			{float64(2*c.PctStart*total) - 2, "max_lr", "initial_lr", "base_momentum", "max_momentum"},
			{total - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"},
		}
	}
	return []phase{
		{float64(c.PctStart*total) - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"},
		{total - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"},
	}
}

func (s *OneCycleLR) anneal(start, end, pct float64) float64 {
	if s.cfg.AnnealStrategy == "linear" {
		return float64((end-start)*pct) + start
	}
	cosOut := cos(math.Pi*pct) + 1
	return end + float64((start-end)/2.0*cosOut)
}

func (s *OneCycleLR) setMomentum(g *ParamGroup, m float64) {
	if s.cfg.UseBeta1 {
		g.Betas[0] = m
	} else {
		g.Momentum = m
	}
}

// getLR panics when stepped past total_steps, as PyTorch raises.
func (s *OneCycleLR) getLR() []float64 {
	c := &s.cfg
	step := s.lastEpoch
	if step > c.TotalSteps {
		panic(fmt.Errorf("optim: OneCycleLR: Tried to step %d times. The specified number of total steps is %d", step+1, c.TotalSteps))
	}
	groups := s.opt.ParamGroups()
	phases := s.phases()
	lrs := make([]float64, 0, len(groups))
	for gi, g := range groups {
		if gi >= len(c.MaxLRs) {
			break
		}
		val := func(name string) float64 {
			switch name {
			case "initial_lr":
				if g.InitialLR != nil {
					return *g.InitialLR
				}
				return math.NaN()
			case "max_lr":
				return c.MaxLRs[gi]
			case "min_lr":
				return c.MinLRs[gi]
			case "max_momentum":
				return c.MaxMomentums[gi]
			}
			return c.BaseMomentums[gi]
		}
		start := 0.0
		for i, ph := range phases {
			if float64(step) <= ph.endStep || i == len(phases)-1 {
				pct := (float64(step) - start) / (ph.endStep - start)
				lrs = append(lrs, s.anneal(val(ph.startLR), val(ph.endLR), pct))
				if c.CycleMomentum {
					s.setMomentum(g, s.anneal(val(ph.startMomentum), val(ph.endMomt), pct))
				}
				break
			}
			start = ph.endStep
		}
	}
	return lrs
}

func (s *OneCycleLR) closedForm() ([]float64, bool) { return nil, false }

// SequentialLR is torch.optim.lr_scheduler.SequentialLR: it runs
// schedulers[0] until milestones[0], then schedulers[1] (restarted at its
// epoch 0) until milestones[1], and so on — LinearLR warm-up followed by
// CosineAnnealingLR, for instance. The schedulers must drive opt.
type SequentialLR struct {
	opt        Optimizer
	scheds     []*lrScheduler
	milestones []int
	lastEpoch  int
	lastLR     []float64
}

// NewSequentialLR makes a SequentialLR over schedulers made by this
// package's constructors, undoing their first steps as PyTorch does.
func NewSequentialLR(opt Optimizer, schedulers []Scheduler, milestones []int) (*SequentialLR, error) {
	s := &SequentialLR{opt: opt, milestones: slices.Clone(milestones)}
	for i, sc := range schedulers {
		b, ok := sc.(interface{ base() *lrScheduler })
		if !ok {
			return nil, fmt.Errorf("SequentialLR: scheduler %d (%T) is not one of package optim's", i, sc)
		}
		if b.base().opt != opt {
			return nil, fmt.Errorf("Sequential Schedulers expects all schedulers to belong to the same optimizer, but got schedulers at index %d to be different than the optimizer passed in.", i)
		}
		s.scheds = append(s.scheds, b.base())
	}
	if len(s.scheds) == 0 {
		return nil, fmt.Errorf("SequentialLR: no schedulers")
	}
	if len(milestones) != len(schedulers)-1 {
		return nil, fmt.Errorf("Sequential Schedulers expects number of schedulers provided to be one more than the number of milestone points, but got number of schedulers %d and the number of milestones to be equal to %d", len(schedulers), len(milestones))
	}
	for _, g := range opt.ParamGroups() {
		if g.InitialLR != nil {
			g.LR = *g.InitialLR
		}
	}
	for _, sc := range s.scheds {
		sc.lastEpoch--
	}
	s.scheds[0].initialStep()
	s.lastLR = s.scheds[0].LastLR()
	return s, nil
}

// Step advances one epoch, in the scheduler whose turn it is.
func (s *SequentialLR) Step() {
	s.lastEpoch++
	idx := sort.Search(len(s.milestones), func(i int) bool { return s.milestones[i] > s.lastEpoch })
	sc := s.scheds[idx]
	if idx > 0 && s.milestones[idx-1] == s.lastEpoch {
		sc.StepTo(0)
	} else {
		sc.Step()
	}
	s.lastLR = sc.LastLR()
}

// StepTo is not defined for SequentialLR (PyTorch's takes no epoch); it
// steps once.
func (s *SequentialLR) StepTo(epoch int) { s.Step() }

// LastLR is each group's learning rate after the last step.
func (s *SequentialLR) LastLR() []float64 { return slices.Clone(s.lastLR) }

// LastEpoch is the epoch of the last step.
func (s *SequentialLR) LastEpoch() int { return s.lastEpoch }

type seqState struct {
	Scheduler  string            `json:"scheduler"`
	LastEpoch  int               `json:"last_epoch"`
	Milestones []int             `json:"_milestones"`
	LastLR     []float64         `json:"_last_lr"`
	Schedulers []json.RawMessage `json:"_schedulers"`
}

// StateDict encodes the position and every inner scheduler's state.
func (s *SequentialLR) StateDict() ([]byte, error) {
	st := seqState{Scheduler: "SequentialLR", LastEpoch: s.lastEpoch, Milestones: s.milestones, LastLR: s.lastLR}
	for _, sc := range s.scheds {
		b, err := sc.StateDict()
		if err != nil {
			return nil, err
		}
		st.Schedulers = append(st.Schedulers, b)
	}
	return json.Marshal(st)
}

// LoadStateDict restores what StateDict encoded.
func (s *SequentialLR) LoadStateDict(b []byte) error {
	var st seqState
	if err := decodeExact(b, &st); err != nil {
		return fmt.Errorf("SequentialLR state dict: %v", err)
	}
	if st.Scheduler != "SequentialLR" {
		return fmt.Errorf("loaded state dict is for %s, not SequentialLR", st.Scheduler)
	}
	if len(st.Schedulers) != len(s.scheds) || len(st.Milestones) != len(s.scheds)-1 {
		return fmt.Errorf("SequentialLR state dict: %d schedulers and %d milestones, want %d and %d",
			len(st.Schedulers), len(st.Milestones), len(s.scheds), len(s.scheds)-1)
	}
	// Keep the inner states, to put them back if a later one does not load.
	var saved [][]byte
	for _, sc := range s.scheds {
		b, err := sc.StateDict()
		if err != nil {
			return err
		}
		saved = append(saved, b)
	}
	for i, sc := range s.scheds {
		if err := sc.LoadStateDict(st.Schedulers[i]); err != nil {
			for j := 0; j < i; j++ {
				s.scheds[j].LoadStateDict(saved[j])
			}
			return fmt.Errorf("SequentialLR state dict: scheduler %d: %v", i, err)
		}
	}
	s.lastEpoch, s.milestones, s.lastLR = st.LastEpoch, st.Milestones, st.LastLR
	return nil
}

// pow is Python's float ** int: b**n rounded once, as C's pow rounds it
// (math.Pow can be an ulp off).
func pow(b float64, n int) float64 {
	if n >= 0 {
		return powInt(b, n)
	}
	const prec = 256
	r := new(big.Float).SetPrec(prec).SetFloat64(1)
	d := new(big.Float).SetPrec(prec).SetFloat64(b)
	x := new(big.Float).SetPrec(prec).SetFloat64(1)
	for i := 0; i < -n; i++ {
		x.Mul(x, d)
	}
	f, _ := r.Quo(r, x).Float64()
	return f
}

func baseTimes(base []float64, f float64) []float64 {
	lrs := slices.Clone(base)
	for i := range lrs {
		lrs[i] *= f
	}
	return lrs
}

// pyMod is Python's a % b (the sign of b).
func pyMod(a, b int) int {
	m := a % b
	if m != 0 && (m < 0) != (b < 0) {
		m += b
	}
	return m
}

// pyFloorDiv is Python's a // b.
func pyFloorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

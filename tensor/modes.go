package tensor

import (
	"sync"
	"sync/atomic"

	"github.com/goaten/goaten/internal/goid"
)

// Modes belong to the goroutine that entered them, as PyTorch's
// dispatcher modes are thread-local: a NoGrad scope, an included or
// excluded key or a tracer set in one goroutine never changes what another
// goroutine's calls see, and a new goroutine starts with the defaults (as a
// new PyTorch thread does).
//
// Go has no goroutine-local storage, so the state lives in a map keyed by
// the goroutine's id (package internal/goid reads it from the runtime in a
// couple of nanoseconds; ids are never reused, so a goroutine that exits
// inside a scope leaves a stale entry no later goroutine can see). Entries
// exist only while a goroutine's modes differ from the defaults, and a
// counter of them keeps the common case — no goroutine in any mode — to one
// atomic load per call. With modes in use a call adds the id read and a
// lock-free sync.Map look-up; entering or leaving a scope takes a mutex and
// stores an immutable copy of the goroutine's state.
var (
	// armedKeys are keys every call of every goroutine includes: autograd
	// arms its key once any tensor requires grad (its kernel passes calls
	// with no such tensor straight through). This is not a mode: it never
	// turns off.
	armedKeys atomic.Uint32

	localMu    sync.Mutex
	localCount atomic.Int32 // entries in localStates
	localState sync.Map     // goroutine id (uint64) -> *modeState
)

// modeState is one goroutine's modes, never changed once stored.
type modeState struct {
	include, exclude KeySet
	vals             []modeValue
}

type modeValue struct{ key, val any }

func (s *modeState) isDefault() bool {
	return s.include == 0 && s.exclude == 0 && len(s.vals) == 0
}

// currentModes returns the calling goroutine's modes, nil for the defaults.
func currentModes() *modeState {
	if localCount.Load() == 0 {
		return nil
	}
	if v, ok := localState.Load(goid.ID()); ok {
		return v.(*modeState)
	}
	return nil
}

// updateModes replaces goroutine id's modes by f applied to a copy of them.
func updateModes(id uint64, f func(s *modeState)) {
	localMu.Lock()
	defer localMu.Unlock()
	var next modeState
	old, had := localState.Load(id)
	if had {
		next = *old.(*modeState)
		next.vals = append([]modeValue(nil), next.vals...)
	}
	f(&next)
	switch {
	case next.isDefault() && had:
		localState.Delete(id)
		localCount.Add(-1)
	case next.isDefault():
	default:
		localState.Store(id, &next)
		if !had {
			localCount.Add(1)
		}
	}
}

// onceFunc makes restore functions safe to call twice.
func onceFunc(f func()) func() {
	var once sync.Once
	return func() { once.Do(f) }
}

// setKey sets whether key k is in the include (or exclude) set of the
// calling goroutine; the returned function puts k's membership back as it
// was, in that goroutine, whichever goroutine calls it.
func setKey(k DispatchKey, exclude, on bool) (restore func()) {
	id := goid.ID()
	var was bool
	updateModes(id, func(s *modeState) {
		set := &s.include
		if exclude {
			set = &s.exclude
		}
		was = set.Has(k)
		if on {
			*set = set.With(k)
		} else {
			*set = set.Without(k)
		}
	})
	return onceFunc(func() {
		updateModes(id, func(s *modeState) {
			set := &s.include
			if exclude {
				set = &s.exclude
			}
			if was {
				*set = set.With(k)
			} else {
				*set = set.Without(k)
			}
		})
	})
}

// IncludeKey makes every call of the calling goroutine see key k (a mode,
// as PyTorch's IncludeDispatchKeyGuard); the returned function undoes it.
func IncludeKey(k DispatchKey) (restore func()) { return setKey(k, false, true) }

// ExcludeKey hides key k from every call of the calling goroutine (as
// PyTorch's ExcludeDispatchKeyGuard); the returned function undoes it.
func ExcludeKey(k DispatchKey) (restore func()) { return setKey(k, true, true) }

// SetKeyExcluded excludes key k from the calling goroutine's calls (on) or
// stops excluding it (off); the returned function restores the previous
// state.
func SetKeyExcluded(k DispatchKey, on bool) (restore func()) { return setKey(k, true, on) }

// KeyExcluded reports whether the calling goroutine's calls skip key k.
func KeyExcluded(k DispatchKey) bool {
	s := currentModes()
	return s != nil && s.exclude.Has(k)
}

// KeyIncluded reports whether the calling goroutine has included key k.
func KeyIncluded(k DispatchKey) bool {
	s := currentModes()
	return s != nil && s.include.Has(k)
}

// ArmKey makes every call of every goroutine include key k from now on.
// It is for layers whose kernel passes calls through cheaply when it has
// nothing to do (autograd arms itself once a tensor requires grad), not for
// modes: modes are per goroutine (IncludeKey).
func ArmKey(k DispatchKey) { armedKeys.Or(1 << k) }

// SetModeValue stores v under key in the calling goroutine's modes (the
// compiler keeps its tracer there, so factory calls inside a traced Go
// function reach it); v == nil removes the key. The returned function puts
// the previous value back.
func SetModeValue(key, v any) (restore func()) {
	id := goid.ID()
	var prev any
	set := func(s *modeState, v any) {
		for i, kv := range s.vals {
			if kv.key == key {
				if v == nil {
					s.vals = append(s.vals[:i], s.vals[i+1:]...)
				} else {
					s.vals[i].val = v
				}
				return
			}
		}
		if v != nil {
			s.vals = append(s.vals, modeValue{key, v})
		}
	}
	updateModes(id, func(s *modeState) {
		prev = modeValueIn(s, key)
		set(s, v)
	})
	return onceFunc(func() { updateModes(id, func(s *modeState) { set(s, prev) }) })
}

// ModeValue returns the value stored under key in the calling goroutine's
// modes, nil if none.
func ModeValue(key any) any {
	s := currentModes()
	if s == nil {
		return nil
	}
	return modeValueIn(s, key)
}

func modeValueIn(s *modeState, key any) any {
	for _, kv := range s.vals {
		if kv.key == key {
			return kv.val
		}
	}
	return nil
}

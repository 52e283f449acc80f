// Package goid gives the calling goroutine's id, the number runtime.Stack
// prints ("goroutine 18 [running]"), cheaply enough to look up per-goroutine
// state on every tensor op.
//
// Go has no goroutine-local storage and no public goroutine id. The
// dispatcher's modes (grad mode, included and excluded keys, the tracer)
// must nevertheless belong to the goroutine that set them, as PyTorch's are
// thread-local, so package tensor keys them by this id. Three mechanisms
// were weighed:
//
//   - Passing a context through every op: not PyTorch's API, and every
//     typed method would grow a parameter.
//   - Keying by the runtime's g pointer: cheap, but a g is reused by a later
//     goroutine, which would inherit a mode its predecessor left set.
//   - The goroutine id: never reused in a process. runtime.Stack prints it,
//     at about a microsecond a call, too slow for a per-op look-up.
//
// So the id is read where runtime.Stack reads it, from the goroutine's g:
// a few lines of assembly load the g pointer (the TLS slot on amd64,
// register g on arm64) and one word of it. Which word holds the id differs
// between Go releases, so it is not hard-coded: at start-up the package
// compares the words of several goroutines' g with the ids runtime.Stack
// prints and keeps the one offset where they all agree. If that fails (a
// future runtime moves the id out of the first words), or under -tags purego
// or on another architecture, ID parses runtime.Stack instead: slower, never
// wrong. TestIDMatchesStack checks the fast path against runtime.Stack.
package goid

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
)

// ID returns the calling goroutine's id.
func ID() uint64 {
	if offset >= 0 {
		return gword(uintptr(offset))
	}
	return slowID()
}

// Fast reports whether ID reads the id from the runtime's g (true) or parses
// runtime.Stack (false).
func Fast() bool { return offset >= 0 }

// slowID parses the header line runtime.Stack writes: "goroutine 18 [".
func slowID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil {
		panic("goid: cannot read the goroutine id from runtime.Stack: " + string(buf[:]))
	}
	return id
}

// scanWords is how many words of g the calibration compares: the id sits
// well inside them in every release since Go 1.5, and g is far larger.
const scanWords = 48

// offset is the index of the id's word in g, or -1 to parse runtime.Stack.
var offset = calibrate()

// calibrate finds the word of g that holds the id in every one of several
// goroutines (their ids differ, so a word equal to each by chance is all
// but impossible); -1 when there is no such single word.
func calibrate() int {
	if !haveG {
		return -1
	}
	const probes = 4
	var (
		wg     sync.WaitGroup
		counts [scanWords]int
		mu     sync.Mutex
	)
	for range probes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := slowID()
			var hits []int
			for w := range scanWords {
				if gword(uintptr(w)) == id {
					hits = append(hits, w)
				}
			}
			mu.Lock()
			for _, w := range hits {
				counts[w]++
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	found := -1
	for w, c := range counts {
		if c == probes {
			if found >= 0 {
				return -1 // two candidates: trust neither
			}
			found = w
		}
	}
	return found
}

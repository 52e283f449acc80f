//go:build sweep

package goaten_test

import (
	"crypto/sha256"
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// Developer tools for FuzzDispatcher, built only with -tags sweep:
//
//	go test -tags sweep -run TestSweep -v .   # SWEEP_N=1000000 SWEEP_WRITE=1 ...
//	SHOW="testdata/fuzz/FuzzDispatcher/<id> ..." go test -tags sweep -run TestShow -v .
//
// TestSweep feeds random bytes through fuzzDispatch without stopping at the
// first crash and prints each distinct crash (location and message) once,
// with the ops that reach it and an input, much faster than the coverage-
// guided fuzzer finds them one at a time. SWEEP_N sets the number of calls,
// SWEEP_OP keeps ops whose name contains it, SWEEP_MODE=golden mutates golden
// records only, SWEEP_NONCORE=1 generates calls of non-core ops only, and
// SWEEP_WRITE=1 writes each new crasher into the fuzz corpus. Calls slower
// than 200ms are printed as SLOW. TestShow prints the call a corpus file
// makes and what it does.
func TestSweep(t *testing.T) {
	_, self, _, _ := runtime.Caller(0)
	root := self[:strings.LastIndex(self, "/")+1]
	n, _ := strconv.Atoi(os.Getenv("SWEEP_N"))
	if n == 0 {
		n = 20000
	}
	only := os.Getenv("SWEEP_OP")
	old := tensor.MaxElements
	tensor.MaxElements = 1 << 22
	defer func() { tensor.MaxElements = old }()
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	type hit struct {
		count int
		ex    string
		ops   map[string]bool
	}
	hits := map[string]*hit{}
	for it := 0; it < n; it++ {
		nops := len(fuzzOps())
		if os.Getenv("SWEEP_NONCORE") != "" {
			nops -= len(core.Names)
		}
		which := uint16(len(fuzzOps()) - nops + rng.Intn(nops))
		name := fuzzOps()[which].Name
		if m := os.Getenv("SWEEP_MODE"); (m == "" && rng.Intn(2) == 0) || m == "golden" {
			k := rng.Intn(len(fuzzGoldenRecords()))
			which = uint16(fuzzGoldenBase + k)
			name = fuzzGoldenRecords()[k].Op
		}
		if only != "" && !strings.Contains(name, only) {
			continue
		}
		data := make([]byte, rng.Intn(64))
		rng.Read(data)
		func() {
			defer func() {
				r := recover()
				if r == nil {
					return
				}
				pcs := make([]uintptr, 64)
				k := runtime.Callers(3, pcs)
				fr := runtime.CallersFrames(pcs[:k])
				loc := ""
				for {
					f, more := fr.Next()
					if strings.HasPrefix(f.File, root) && !strings.Contains(f.File, "tensor/error.go") && !strings.Contains(f.File, "dispatch.go") {
						loc = fmt.Sprintf("%s:%d", f.File[len(root):], f.Line)
						break
					}
					if !more {
						break
					}
				}
				key := loc + " " + fmt.Sprint(r)
				if len(key) > 200 {
					key = key[:200]
				}
				h := hits[key]
				if h == nil {
					h = &hit{ops: map[string]bool{}, ex: fmt.Sprintf("%d %q", which, data)}
					hits[key] = h
					if os.Getenv("SWEEP_WRITE") != "" {
						body := fmt.Sprintf("go test fuzz v1\nuint16(%d)\n[]byte(%q)\n", which, data)
						sum := sha256.Sum256([]byte(body))
						os.WriteFile(fmt.Sprintf("testdata/fuzz/FuzzDispatcher/%x", sum[:8]), []byte(body), 0o644)
					}
				}
				h.count++
				h.ops[name] = true
			}()
			t0 := time.Now()
			if err := fuzzDispatch(which, data); err != nil {
				panic("MISMATCH " + err.Error())
			}
			if d := time.Since(t0); d > 200*time.Millisecond {
				fmt.Printf("SLOW %v %s %d %q\n", d, name, which, data)
			}
		}()
	}
	keys := make([]string, 0, len(hits))
	for k := range hits {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		h := hits[k]
		var ops []string
		for o := range h.ops {
			ops = append(ops, o)
		}
		sort.Strings(ops)
		fmt.Printf("%5d %s\n      ops=%v\n      ex=%s\n", h.count, k, ops, h.ex)
	}
}

func describe(v any) string {
	switch x := v.(type) {
	case *tensor.Tensor:
		if x == nil {
			return "Tensor(nil)"
		}
		s := fmt.Sprintf("T(%s %v st%v off%d", x.DType(), x.Sizes(), x.Strides(), x.StorageOffset())
		if x.Storage() != nil && x.Numel() <= 16 && x.Numel() > 0 {
			s += fmt.Sprintf(" %v", x.Float64s())
		}
		return s + ")"
	case []any:
		var p []string
		for _, e := range x {
			p = append(p, describe(e))
		}
		return "[" + strings.Join(p, ", ") + "]"
	case []*tensor.Tensor:
		var p []string
		for _, e := range x {
			p = append(p, describe(e))
		}
		return "[" + strings.Join(p, ", ") + "]"
	}
	return fmt.Sprintf("%T(%v)", v, v)
}

// TestShow prints the calls of the corpus files named in SHOW.
func TestShow(t *testing.T) {
	fuzzTrace = func(op *tensor.Op, args []any, kwargs map[string]any) {
		fmt.Println(op.Name)
		for i, a := range args {
			fmt.Printf("  arg %d: %s\n", i, describe(a))
		}
		for k, a := range kwargs {
			fmt.Printf("  kw %s: %s\n", k, describe(a))
		}
	}
	defer func() { fuzzTrace = nil }()
	for _, f := range strings.Fields(os.Getenv("SHOW")) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		w, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(lines[1], "uint16("), ")"))
		q := strings.TrimSuffix(strings.TrimPrefix(lines[2], "[]byte("), ")")
		data, err := strconv.Unquote(q)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println("==", f)
		func() {
			defer func() {
				if r := recover(); r != nil {
					fmt.Println("  PANIC:", r)
				}
			}()
			fmt.Println("  mismatch:", fuzzDispatch(uint16(w), []byte(data)))
		}()
	}
}

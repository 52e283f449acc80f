package tensor

import (
	"fmt"
	"reflect"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"
)

// churn collects and then fills the freed memory, of objects with and
// without pointers, with junk, so that a registry object the collector
// wrongly freed would read back as junk.
func churn() {
	sentinel := new([64]byte)
	for range 3 {
		runtime.GC()
		var junk [][]byte
		var ptrs [][]*[64]byte
		for n := 8; n <= 4096; n *= 2 {
			for range 64 {
				b := make([]byte, n)
				for i := range b {
					b[i] = 0xa5
				}
				junk = append(junk, b)
				p := make([]*[64]byte, n/8)
				for i := range p {
					p[i] = sentinel
				}
				ptrs = append(ptrs, p)
			}
		}
		runtime.KeepAlive(junk)
		runtime.KeepAlive(ptrs)
	}
}

// TestRegistryOutlivesCollections registers ops whose texts, defaults and
// kernels exist only on the heap (texts built at run time, one without a
// namespace; closures capturing heap values), drops every other reference
// to them, collects, reuses the freed memory, and checks that the
// registry (whose schemas and tables the collector does not scan, see
// regArena) still holds all of them intact.
func TestRegistryOutlivesCollections(t *testing.T) {
	type want struct {
		name, text string
		seen       *[]string
	}
	var ws []want
	var mu sync.Mutex
	var freed []string
	type token struct {
		p *int
		n [2]int
	}
	// watch returns an object whose collection is recorded in freed.
	watch := func(what string) *token {
		tok := &token{p: new(int)}
		runtime.AddCleanup(tok, func(what string) { mu.Lock(); freed = append(freed, what); mu.Unlock() }, what)
		return tok
	}
	for i := range 8 {
		n := freshN.Add(1)
		ns := "arenatest::"
		if i%2 == 1 {
			ns = "" // "aten::" is prefixed
		}
		text := fmt.Sprintf("%sarena%d.ov%d(Tensor self, str mode='m%d', int[2] pad=[%d, 2], Scalar s=2.5, "+
			"float f=0.25, Tensor? w=None, *, bool flag=False, ScalarType? dtype=None) -> Tensor", ns, n, n, n, n)
		op := RegisterOp(strings.Clone(text))
		seen := new([]string)
		tag := fmt.Sprintf("k%d", n) // a heap string each closure captures
		pad := op.Schema.Args[2].Default.([]int)
		runtime.AddCleanup(&pad[0], func(n int64) { mu.Lock(); freed = append(freed, fmt.Sprint("default ", n)); mu.Unlock() }, n)
		tc, tm, ta, tk := watch("cpu kernel "+tag), watch("composite "+tag), watch("autograd kernel "+tag), watch("meta "+tag)
		op.ImplBackend(CPU, func(op *Op, args []any) any { *seen = append(*seen, "cpu:"+tag); *tc.p++; return args[0] })
		op.ImplComposite(func(op *Op, args []any) any { *seen = append(*seen, "composite:"+tag); *tm.p++; return args[0] })
		op.Impl(KeyAutograd, func(op *Op, d Dispatch, args []any) any {
			*seen = append(*seen, "autograd:"+tag)
			*ta.p++
			return op.Redispatch(d, KeyAutograd, args)
		})
		op.SetMeta(func(op *Op, args []any) any { *seen = append(*seen, "meta:"+tag); *tk.p++; return nil })
		full, qual := text, ns
		if ns == "" {
			full, qual = "aten::"+text, "aten::"
		}
		ws = append(ws, want{fmt.Sprintf("%sarena%d.ov%d", qual, n, n), full, seen})
	}
	churn()
	// Cleanups run after the collection that frees their object: wait
	// for the one of an object certainly freed.
	done := make(chan bool)
	runtime.AddCleanup(&token{p: new(int)}, func(done chan bool) { close(done) }, done)
	runtime.GC()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Log("the control object's cleanup did not run within 5 s")
	}
	mu.Lock()
	if len(freed) > 0 {
		t.Fatalf("collected while registered: %s", strings.Join(freed, ", "))
	}
	mu.Unlock()
	for _, w := range ws {
		op, ok := LookupOp(w.name)
		if !ok {
			t.Fatalf("%s: not found after a collection", w.name)
		}
		if op.Name != w.name || op.Schema.String() != w.text {
			t.Fatalf("%s: name %q, schema %q after a collection", w.name, op.Name, op.Schema)
		}
		n := strings.TrimPrefix(w.name[strings.Index(w.name, "::")+2:], "arena")
		n = n[:strings.Index(n, ".")]
		s := op.Schema
		var names []string
		for _, a := range s.Args {
			names = append(names, a.Name+":"+a.Type.String())
		}
		if got := strings.Join(names, ","); got != "self:Tensor,mode:str,pad:int[2],s:Scalar,f:float,w:Tensor?,flag:bool,dtype:ScalarType?" {
			t.Fatalf("%s: arguments %s", w.name, got)
		}
		if s.Args[1].Default != "m"+n || s.Args[1].DefaultStr != "'m"+n+"'" {
			t.Errorf("%s: mode default %#v (%q)", w.name, s.Args[1].Default, s.Args[1].DefaultStr)
		}
		if d, ok := s.Args[2].Default.([]int); !ok || fmt.Sprint(d) != "["+n+" 2]" {
			t.Errorf("%s: pad default %#v", w.name, s.Args[2].Default)
		}
		if !reflect.DeepEqual(s.Args[3].Default, Float(2.5)) || s.Args[4].Default != 0.25 || s.Args[6].Default != false {
			t.Errorf("%s: defaults %#v %#v %#v", w.name, s.Args[3].Default, s.Args[4].Default, s.Args[6].Default)
		}
		if len(s.Returns) != 1 || s.Returns[0].Type.String() != "Tensor" || s.Overload != "ov"+n || s.Name != "arena"+n {
			t.Errorf("%s: returns %v, name %q, overload %q", w.name, s.Returns, s.Name, s.Overload)
		}
		x := Empty(Float32, 2)
		Call(op.Name, x)
		x.Keys = x.Keys.With(KeyAutograd)
		Call(op.Name, x)
		Call(op.Name, NewMetaContiguous([]int{2}, Float32, testDev))
		op.Meta(op, nil)
		tag := "k" + n
		if got := strings.Join(*w.seen, ","); got != "cpu:"+tag+",autograd:"+tag+",cpu:"+tag+",composite:"+tag+",meta:"+tag {
			t.Errorf("%s: kernels ran %s", w.name, got)
		}
	}
}

// TestRegistryNotScanned checks that registered ops add little to the
// heap the collector scans on every cycle (issue 25): their schemas and
// dispatch tables are in the registry's arena. Before, an op of eight
// arguments added about 1 KB.
func TestRegistryNotScanned(t *testing.T) {
	const n = 200
	scan := func() uint64 {
		runtime.GC()
		s := []metrics.Sample{{Name: "/gc/scan/heap:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("scantest::op%d(Tensor self, Tensor other, int[] dims, int dim=-1, bool keepdim=False, "+
			"*, Scalar alpha=1, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)", freshN.Add(1))
	}
	before := scan()
	for _, text := range texts {
		op := RegisterOp(text)
		op.ImplBackend(CPU, func(op *Op, args []any) any { return args[0] })
	}
	texts = nil
	grew := int64(scan()) - int64(before)
	t.Logf("the scanned heap grew by %d bytes for %d ops (%d per op)", grew, n, grew/n)
	if per := grew / n; per > 256 {
		t.Errorf("the scanned heap grew by %d bytes per registered op; want at most 256", per)
	}
}

// TestUnregisteredOp checks an Op made as a literal, outside RegisterOp:
// with no kernel it refuses to run, and a kernel registered on it later
// (kept by the registry, as a registered op's) runs after collections.
func TestUnregisteredOp(t *testing.T) {
	op := &Op{Name: "mylib::literal", Schema: MustParseSchema("mylib::literal(Tensor self) -> Tensor")}
	x := Empty(Float32, 2)
	err := Try(func() { op.Invoke([]any{x}) })
	if err == nil || !strings.Contains(err.Error(), "has no lowering") {
		t.Fatalf("a literal op without kernels: %v", err)
	}
	if op.HasKernel(KeyAutograd) || op.Composite() != nil || op.BackendKernel(CPU) != nil {
		t.Fatal("a literal op has kernels")
	}
	tag := strings.Repeat("k", 3)
	op.ImplBackend(CPU, func(op *Op, args []any) any { return tag })
	churn()
	if got := op.Invoke([]any{x}); got != "kkk" {
		t.Fatalf("the literal op's kernel returned %v", got)
	}
}

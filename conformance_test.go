package goaten_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	_ "github.com/goaten/goaten"
	"github.com/goaten/goaten/compile"
	compilecpu "github.com/goaten/goaten/compile/cpu"
	"github.com/goaten/goaten/device"
	_ "github.com/goaten/goaten/examples/newdevice" // the example device, GOLDEN_DEVICE=gonum
	"github.com/goaten/goaten/internal/golden"
	"github.com/goaten/goaten/tensor"
)

// goldenDir is where the golden files live: GOLDEN_DIR, else the copy in testdata.
func goldenFile(name string) string {
	if d := os.Getenv("GOLDEN_DIR"); d != "" {
		return filepath.Join(d, name+".jsonl")
	}
	return filepath.Join("testdata", "golden", name+".jsonl.gz")
}

// loadGolden reads one golden file. A GOLDEN_DIR without that file (the
// issue's layout has only core, noncore and schemas) skips it, saying so.
func loadGolden(t *testing.T, name string) ([]*golden.Record, error) {
	path := goldenFile(name)
	if _, err := os.Stat(path); os.IsNotExist(err) && os.Getenv("GOLDEN_DIR") != "" {
		fmt.Printf("conformance: %s has no %s.jsonl; not run\n", os.Getenv("GOLDEN_DIR"), name)
		t.Skipf("GOLDEN_DIR has no %s.jsonl", name)
	}
	return golden.Load(path)
}

func goldenDevice(t *testing.T) tensor.Device {
	name := os.Getenv("GOLDEN_DEVICE")
	if name == "" {
		name = "cpu"
	}
	d, ok := tensor.LookupDevice(name)
	if !ok {
		t.Fatalf("GOLDEN_DEVICE=%s: no such device", name)
	}
	return d
}

// skipList reads testdata/conformance_skip.txt: "key<TAB>reason" lines skip
// on every device, "device<TAB>key<TAB>reason" lines on that device only. A
// key is a record's source field or an op name (every record of the op).
func skipList(t *testing.T, dev tensor.Device) map[string]string {
	f, err := os.Open(filepath.Join("testdata", "conformance_skip.txt"))
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		var device, key, reason string
		switch len(fields) {
		case 2:
			key, reason = fields[0], fields[1]
		case 3:
			device, key, reason = fields[0], fields[1], fields[2]
			if _, ok := tensor.LookupDevice(device); !ok {
				t.Fatalf("conformance_skip.txt: entry %q names an unknown device", line)
			}
		default:
			t.Fatalf("conformance_skip.txt: entry %q is not key<TAB>reason or device<TAB>key<TAB>reason", line)
		}
		if strings.TrimSpace(reason) == "" {
			t.Fatalf("conformance_skip.txt: entry %q has no reason", line)
		}
		if device == "" || device == dev.String() {
			out[key] = reason
		}
	}
	return out
}

// unsupportedDType reports whether a record uses a dtype dev does not support
// (in a tensor or a dtype argument, its result or its mutated arguments).
func unsupportedDType(r *golden.Record, dev tensor.Device) bool {
	bad := false
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			name, _ := x["dtype"].(string)
			if !golden.IsTensor(x) {
				name, _ = x["scalar_type"].(string)
			}
			if d, ok := tensor.ParseDType(name); ok && !device.SupportsDType(dev, d) {
				bad = true
			}
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(r.Args)
	for _, v := range r.Kwargs {
		walk(v)
	}
	walk(r.Out)
	for _, v := range r.Mutated {
		walk(v)
	}
	return bad
}

// TestConformance replays every golden forward record through the boxed
// dispatcher on GOLDEN_DEVICE and compares with PyTorch's results.
// GOLDEN_OPS (a regexp) limits the ops run; GOLDEN_VERBOSE=1 prints every failure.
func TestConformance(t *testing.T) {
	dev := goldenDevice(t)
	name := compiledMode(t)
	conformance(t, dev, name, func(r *golden.Record, _ *tensor.Op) golden.Result {
		return golden.Replay(r, dev, dev != tensor.Meta)
	})
}

// relaidSkip lists the ops TestConformanceRelaid leaves out besides views
// and random ops, because their result depends on the inputs' layout in
// PyTorch too.
var relaidSkip = map[string]string{
	"aten::as_strided.default":                  "reads the storage outside the view",
	"aten::sym_stride.int":                      "returns a stride",
	"aten::sym_storage_offset.default":          "returns the storage offset",
	"aten::_pdist_forward.default":              "PyTorch requires a contiguous input",
	"aten::native_group_norm.default":           "PyTorch requires X contiguous in its suggested memory format",
	"aten::_unsafe_view.default":                "PyTorch raises, as view does, where the strides cannot give the shape",
	"aten::_embedding_bag.default":              "offset2bag is empty only on PyTorch's dense-weight fast path",
	"aten::_embedding_bag_forward_only.default": "offset2bag is empty only on PyTorch's dense-weight fast path",
	"aten::squeeze.dims":                        "a view (its 1.13 schema is synthesized)",
	"aten::elu.default":                         "the gradient at NaN depends on the element's place in 1.13's vectorized loop, which the layout changes",
	"aten::hardtanh.default":                    "the gradient at NaN depends on the element's place in 1.13's vectorized loop, which the layout changes",
	"aten::hardswish.default":                   "the gradient at NaN and 3 depends on the element's place in 1.13's vectorized loop, which the layout changes",
}

// TestConformanceRelaid replays the golden forward records with every tensor
// argument in another layout of the same values (golden.ReplayRelaid): a
// kernel that reads a transposed, gapped or offset input in the wrong order
// fails it. Views and random ops are left out, and relaidSkip.
func TestConformanceRelaid(t *testing.T) {
	dev := goldenDevice(t)
	if dev == tensor.Meta {
		t.Skip("the meta device has no values to compare")
	}
	for _, l := range golden.Layouts {
		conformance(t, dev, "relaid ("+l.String()+")", func(r *golden.Record, op *tensor.Op) golden.Result {
			if relaidLeftOut(r, op) {
				return golden.Result{Outcome: golden.Skip}
			}
			return golden.ReplayRelaid(r, dev, l)
		})
	}
}

// relaidLeftOut reports whether the relaid replays leave r out: views,
// random ops, relaidSkip, and bfloat16 matrix products (1.13 rounds them
// differently per BLAS variant, which the operands' strides choose).
func relaidLeftOut(r *golden.Record, op *tensor.Op) bool {
	if _, ok := relaidSkip[r.Op]; ok {
		return true
	}
	bf16 := strings.Contains(r.Source, "|bfloat16|") || r.HasFlag("promoted_from:bfloat16")
	return op.Schema.IsView() || r.Nondeterministic || bf16 && strings.Contains(r.Op, "mm")
}

// conformance replays the core and noncore records with replay, skipping
// those testdata/conformance_skip.txt lists and dtypes dev does not support,
// and reports the failures by op. A record whose op goaten lacks fails.
func conformance(t *testing.T, dev tensor.Device, name string, replay func(*golden.Record, *tensor.Op) golden.Result) {
	skips := skipList(t, dev)
	var filter *regexp.Regexp
	if f := os.Getenv("GOLDEN_OPS"); f != "" {
		filter = regexp.MustCompile(f)
	}
	verbose := os.Getenv("GOLDEN_VERBOSE") != ""
	for _, file := range []string{"core", "noncore"} {
		recs, err := loadGolden(t, file)
		if err != nil {
			t.Fatal(err)
		}
		var pass, fail, skip, dtypeSkip int
		failures := map[string][]string{}
		var unexpected []string
		for _, r := range recs {
			if filter != nil && !filter.MatchString(r.Op) {
				continue
			}
			if _, ok := skips[r.Source]; ok {
				skip++
				continue
			}
			if _, ok := skips[r.Op]; ok {
				skip++
				continue
			}
			if unsupportedDType(r, dev) {
				skip++
				dtypeSkip++
				continue
			}
			// An op goaten lacks fails (list the record in
			// conformance_skip.txt, with a reason, to leave it out).
			var res golden.Result
			op, ok := tensor.LookupOp(r.Op)
			switch {
			case !ok:
				res = golden.Result{Outcome: golden.Fail, Detail: "op not registered"}
			case file == "noncore" && !op.Core && !hasKernels(op):
				res = golden.Result{Outcome: golden.Fail, Detail: "no kernel on any device and no decomposition"}
			default:
				res = replay(r, op)
			}
			switch res.Outcome {
			case golden.Pass:
				pass++
			case golden.Skip:
				skip++
			case golden.Fail:
				fail++
				msg := fmt.Sprintf("%s line %d (%s): %s", r.Op, r.Line, r.Source, res.Detail)
				failures[r.Op] = append(failures[r.Op], msg)
				unexpected = append(unexpected, msg)
			}
		}
		line := fmt.Sprintf("%s %s %s: %d passed, %d failed, %d skipped", name, dev, file, pass, fail, skip)
		if dtypeSkip > 0 {
			line += fmt.Sprintf(" (%d use dtypes %s does not support)", dtypeSkip, dev)
		}
		fmt.Println(line)
		t.Log(line)
		if fail > 0 {
			names := make([]string, 0, len(failures))
			for k := range failures {
				names = append(names, k)
			}
			sort.Strings(names)
			var b strings.Builder
			fmt.Fprintf(&b, "failures by op (%s %s):\n", dev, file)
			for _, n := range names {
				fmt.Fprintf(&b, "  %-50s %d\n", n, len(failures[n]))
			}
			for _, n := range names {
				shown := failures[n]
				if !verbose && len(shown) > 2 {
					shown = shown[:2]
				}
				for _, m := range shown {
					fmt.Fprintf(&b, "  %s\n", m)
				}
			}
			t.Error(b.String())
		}
	}
}

func hasKernels(op *tensor.Op) bool {
	for _, d := range tensor.Devices() {
		if op.BackendKernel(d) != nil {
			return true
		}
	}
	return op.HasKernel(tensor.KeyCompositeImplicit)
}

// TestConformanceErrors replays the calls PyTorch rejects: each must raise a
// *tensor.Error, never return a result, crash or hang. It also reports how
// often the message carries the key words of PyTorch's message.
func TestConformanceErrors(t *testing.T) {
	dev := goldenDevice(t)
	name := compiledMode(t)
	skips := skipList(t, dev)
	recs, err := loadGolden(t, "errors")
	if err != nil {
		t.Fatal(err)
	}
	var pass, fail, skip, matched int
	var failures []string
	for _, r := range recs {
		if _, ok := skips[r.Source]; ok {
			skip++
			continue
		}
		if unsupportedDType(r, dev) {
			skip++
			continue
		}
		type outcome struct {
			res     golden.Result
			matched bool
		}
		done := make(chan outcome, 1)
		go func() {
			res, m := golden.ReplayError(r, dev)
			done <- outcome{res, m}
		}()
		var o outcome
		select {
		case o = <-done:
		case <-time.After(20 * time.Second):
			o = outcome{golden.Result{Outcome: golden.Fail, Detail: "hang: no answer in 20s"}, false}
		}
		switch o.res.Outcome {
		case golden.Pass:
			pass++
			if o.matched {
				matched++
			}
		case golden.Skip:
			if verbose := os.Getenv("GOLDEN_VERBOSE") != ""; verbose {
				fmt.Printf("skipped %s line %d (%s): %s\n", r.Op, r.Line, r.Source, o.res.Detail)
			}
			skip++
		default:
			fail++
			failures = append(failures, fmt.Sprintf("%s line %d (%s): %s", r.Op, r.Line, r.Source, o.res.Detail))
		}
	}
	line := fmt.Sprintf("%s %s errors: %d passed, %d failed, %d skipped", name, dev, pass, fail, skip)
	fmt.Println(line)
	fmt.Printf("%s %s errors: %d of %d raised errors carry PyTorch's key words (%.1f%%)\n", name, dev, matched, pass, 100*float64(matched)/float64(max(pass, 1)))
	t.Log(line)
	if fail > 0 {
		t.Errorf("%d error records failed:\n  %s", fail, strings.Join(failures, "\n  "))
	}
}

// TestConformanceGrad replays the gradient records (grad.jsonl): each
// call's gradients, and for order-2 records its double backward, computed
// by the autograd layer on GOLDEN_DEVICE and compared with PyTorch's.
// GOLDEN_OPS and GOLDEN_VERBOSE work as for TestConformance.
func TestConformanceGrad(t *testing.T) {
	dev := goldenDevice(t)
	gradConformance(t, dev, compiledMode(t), func(r *golden.Record) golden.Result { return golden.ReplayGrad(r, dev) })
}

// TestConformanceGradRelaid replays the gradient records with the tensor
// arguments and grad_outputs in other layouts of the same values
// (golden.ReplayGradRelaid), so backward kernels meet strided inputs and
// gradients. It leaves out what TestConformanceRelaid leaves out.
func TestConformanceGradRelaid(t *testing.T) {
	dev := goldenDevice(t)
	if dev == tensor.Meta {
		t.Skip("the meta device has no values to compare")
	}
	for _, l := range golden.Layouts {
		gradConformance(t, dev, "relaid ("+l.String()+")", func(r *golden.Record) golden.Result {
			if op, ok := tensor.LookupOp(r.Op); ok && relaidLeftOut(r, op) {
				return golden.Result{Outcome: golden.Skip}
			}
			return golden.ReplayGradRelaid(r, dev, l) // an op goaten lacks fails
		})
	}
}

// gradConformance replays the gradient records with replay and reports the
// failures by op.
func gradConformance(t *testing.T, dev tensor.Device, name string, replay func(*golden.Record) golden.Result) {
	skips := skipList(t, dev)
	var filter *regexp.Regexp
	if f := os.Getenv("GOLDEN_OPS"); f != "" {
		filter = regexp.MustCompile(f)
	}
	verbose := os.Getenv("GOLDEN_VERBOSE") != ""
	recs, err := loadGolden(t, "grad")
	if err != nil {
		t.Fatal(err)
	}
	var pass, fail, skip int
	failures := map[string][]string{}
	for _, r := range recs {
		if filter != nil && !filter.MatchString(r.Op) {
			continue
		}
		if _, ok := skips[r.Source]; ok {
			skip++
			continue
		}
		if _, ok := skips["grad:"+r.Op]; ok {
			skip++
			continue
		}
		if unsupportedDType(r, dev) {
			skip++
			continue
		}
		res := replay(r)
		switch res.Outcome {
		case golden.Pass:
			pass++
		case golden.Skip:
			skip++
		case golden.Fail:
			fail++
			failures[r.Op] = append(failures[r.Op], fmt.Sprintf("%s line %d (%s, order %d): %s", r.Op, r.Line, r.Source, r.Order, res.Detail))
		}
	}
	line := fmt.Sprintf("%s %s grad: %d passed, %d failed, %d skipped", name, dev, pass, fail, skip)
	fmt.Println(line)
	t.Log(line)
	if fail > 0 {
		names := make([]string, 0, len(failures))
		for k := range failures {
			names = append(names, k)
		}
		sort.Strings(names)
		var b strings.Builder
		fmt.Fprintf(&b, "gradient failures by op (%s):\n", dev)
		for _, n := range names {
			fmt.Fprintf(&b, "  %-50s %d\n", n, len(failures[n]))
		}
		for _, n := range names {
			shown := failures[n]
			if !verbose && len(shown) > 2 {
				shown = shown[:2]
			}
			for _, m := range shown {
				fmt.Fprintf(&b, "  %s\n", m)
			}
		}
		t.Error(b.String())
	}
}

// compiledMode reads GOLDEN_COMPILE: with 1, the replays run each call as a
// one-op graph (compiledInvoke) and the summary lines read "conformance
// compiled"; the test's cleanup puts the eager replay back.
// GOLDEN_BACKEND picks the backend: unset, Compile's default
// (compile.DefaultBackend: compile/cpu for CPU tensors, Eager for the
// others), eager (compile.Eager) or cpu (compile/cpu for every device).
func compiledMode(t *testing.T) string {
	if os.Getenv("GOLDEN_COMPILE") != "1" {
		return "conformance"
	}
	var name string
	switch b := os.Getenv("GOLDEN_BACKEND"); b {
	case "":
		compiledBackend = nil
	case "eager":
		compiledBackend, name = compile.Eager, " (eager backend)"
	case "cpu":
		compiledBackend, name = compilecpu.Backend, " (cpu backend)"
	default:
		t.Fatalf("GOLDEN_BACKEND=%q: want eager or cpu", b)
	}
	saved := golden.Invoke
	golden.Invoke = compiledInvoke
	t.Cleanup(func() { golden.Invoke = saved })
	return "conformance compiled" + name
}

// compiledBackend is the backend compiledInvoke compiles with (nil:
// Compile's default).
var compiledBackend compile.Backend

// compiledInvoke runs a call as torch.compile would run a function making
// only that call: the function of the call's tensor arguments is traced in
// fake mode, compiled (Fullgraph, the backend GOLDEN_BACKEND names: by
// default Compile's own, compile/cpu for CPU tensors) and run on
// them. Wrapped numbers stay constants of the
// graph; an error at trace or run time panics with the op's *tensor.Error,
// as the eager call does.
func compiledInvoke(op *tensor.Op, args []any) any {
	type slot struct{ arg, elem int }
	var inputs []*tensor.Tensor
	var slots []slot
	for i, a := range args {
		switch x := a.(type) {
		case *tensor.Tensor:
			if x != nil && !x.IsWrappedNumber() {
				inputs = append(inputs, x)
				slots = append(slots, slot{i, -1})
			}
		case []*tensor.Tensor:
			for j, e := range x {
				if e != nil {
					inputs = append(inputs, e)
					slots = append(slots, slot{i, j})
				}
			}
		}
	}
	fn := func(ts ...*tensor.Tensor) any {
		a := slices.Clone(args)
		cloned := map[int]bool{}
		for k, s := range slots {
			if s.elem < 0 {
				a[s.arg] = ts[k]
				continue
			}
			if !cloned[s.arg] {
				a[s.arg] = slices.Clone(a[s.arg].([]*tensor.Tensor))
				cloned[s.arg] = true
			}
			a[s.arg].([]*tensor.Tensor)[s.elem] = ts[k]
		}
		return op.Invoke(a)
	}
	res, err := compile.Compile(fn, compile.Options{Fullgraph: true, Backend: compiledBackend}).Call(inputs...)
	if compile.IsDataDependent(err) {
		panic(golden.Skipped{Reason: "data-dependent: " + err.Error()})
	}
	if err != nil {
		var te *tensor.Error
		if errors.As(err, &te) {
			panic(te)
		}
		panic(&tensor.Error{Kind: tensor.RuntimeError, Op: op.Name, Msg: err.Error()})
	}
	if l, ok := res.([]any); ok {
		out := make([]*tensor.Tensor, len(l))
		for i, v := range l {
			out[i], _ = v.(*tensor.Tensor)
		}
		return out
	}
	return res
}

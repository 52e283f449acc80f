package tensor

import (
	"fmt"
	"math"
	"strings"
)

// Format renders t the way PyTorch's repr does: tensor([...]) with the dtype
// suffix when it is not the default for its kind, 4 decimals or scientific
// notation chosen from the value range, and summarised past 1000 elements;
// then grad_fn=<MulBackward0> for the result of a recorded op, or
// requires_grad=True for a leaf that requires grad (the autograd layer
// names the node through AutogradHooks.GradFnName).
func Format(t *Tensor) string {
	var suffix []string
	if t.device != CPU {
		suffix = append(suffix, fmt.Sprintf("device='%s'", t.device))
	}
	body := ""
	defaultDType := t.dtype == Float32 || t.dtype == Int64 || t.dtype == Bool
	switch {
	case t.device == Meta:
		body = "..."
		suffix = append(suffix, fmt.Sprintf("size=%s", pyTuple(t.sizes)))
		// With no elements to show, only float32 goes without saying.
		defaultDType = t.dtype == Float32
	case t.Numel() == 0:
		body = "[]"
		if t.Dim() != 1 {
			suffix = append(suffix, fmt.Sprintf("size=%s", pyTuple(t.sizes)))
		}
		defaultDType = t.dtype == Float32
	default:
		c := t.CPUView()
		vals := c.Scalars()
		summarize := len(vals) > 1000
		f := newElemFormatter(c, vals)
		body = formatNested(c.sizes, vals, f, 1, summarize)
	}
	if !defaultDType {
		suffix = append(suffix, "dtype=torch."+t.dtype.String())
	}
	if name := gradFnName(t); name != "" {
		suffix = append(suffix, "grad_fn=<"+name+">")
	} else if t.RequiresGrad() {
		suffix = append(suffix, "requires_grad=True")
	}
	return addSuffixes("tensor("+body, suffix, len("tensor("))
}

// gradFnName is the name of the autograd node that made t ("MulBackward0"),
// or "" for a leaf or without the autograd layer.
func gradFnName(t *Tensor) string {
	if autogradHooks == nil || autogradHooks.GradFnName == nil || t.AutogradMeta == nil {
		return ""
	}
	return autogradHooks.GradFnName(t)
}

// addSuffixes is torch._tensor_str._add_suffixes: each suffix goes after
// ", " on the last line, or on a line of its own, indented, when it would
// pass PyTorch's line width of 80.
func addSuffixes(s string, suffixes []string, indent int) string {
	var b strings.Builder
	b.WriteString(s)
	last := len(s) - strings.LastIndexByte(s, '\n') + 1
	for _, x := range suffixes {
		if last+len(x)+2 > 80 {
			b.WriteString(",\n" + strings.Repeat(" ", indent) + x)
			last = indent + len(x)
		} else {
			b.WriteString(", " + x)
			last += len(x) + 2
		}
	}
	b.WriteString(")")
	return b.String()
}

func pyTuple(s []int) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = fmt.Sprint(v)
	}
	if len(s) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

type elemFormatter struct {
	dtype DType
	sci   bool
	intM  bool
	width int
}

func newElemFormatter(t *Tensor, vals []Scalar) *elemFormatter {
	f := &elemFormatter{dtype: t.dtype}
	if t.dtype.IsFloat() {
		f.intM = true
		lo, hi := math.Inf(1), 0.0
		for _, v := range vals {
			x := v.Float64()
			if math.IsNaN(x) || math.IsInf(x, 0) {
				continue
			}
			if x != math.Ceil(x) {
				f.intM = false
			}
			if x != 0 {
				lo = min(lo, math.Abs(x))
				hi = max(hi, math.Abs(x))
			}
		}
		if hi > 0 {
			if f.intM {
				f.sci = hi/lo > 1000 || hi > 1e8
			} else {
				f.sci = hi/lo > 1000 || hi > 1e8 || lo < 1e-4
			}
		}
	}
	for _, v := range vals {
		f.width = max(f.width, len(f.raw(v)))
	}
	return f
}

func (f *elemFormatter) raw(v Scalar) string {
	switch {
	case f.dtype == Bool:
		return v.String()
	case !f.dtype.IsFloat():
		return fmt.Sprint(v.Int64())
	}
	x := v.Float64()
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	case f.sci:
		return fmt.Sprintf("%.4e", x)
	case f.intM:
		return fmt.Sprintf("%.0f.", x)
	}
	return fmt.Sprintf("%.4f", x)
}

func (f *elemFormatter) format(v Scalar) string {
	s := f.raw(v)
	return strings.Repeat(" ", f.width-len(s)) + s
}

func formatNested(sizes []int, vals []Scalar, f *elemFormatter, indent int, summarize bool) string {
	if len(sizes) == 0 {
		return f.raw(vals[0])
	}
	n := sizes[0]
	inner := len(vals) / max(n, 1)
	pick := func() []int {
		idx := make([]int, 0, n)
		if summarize && n > 6 {
			for i := 0; i < 3; i++ {
				idx = append(idx, i)
			}
			idx = append(idx, -1)
			for i := n - 3; i < n; i++ {
				idx = append(idx, i)
			}
			return idx
		}
		for i := 0; i < n; i++ {
			idx = append(idx, i)
		}
		return idx
	}()
	if len(sizes) == 1 {
		var parts []string
		for _, i := range pick {
			if i < 0 {
				parts = append(parts, "...")
				continue
			}
			parts = append(parts, f.format(vals[i]))
		}
		// Wrap lines at PyTorch's line width of 80.
		per := max(1, (80-indent)/(f.width+2))
		var lines []string
		for i := 0; i < len(parts); i += per {
			lines = append(lines, strings.Join(parts[i:min(i+per, len(parts))], ", "))
		}
		return "[" + strings.Join(lines, ",\n"+strings.Repeat(" ", indent+len("tensor(")+0)) + "]"
	}
	var rows []string
	for _, i := range pick {
		if i < 0 {
			rows = append(rows, "...")
			continue
		}
		rows = append(rows, formatNested(sizes[1:], vals[i*inner:(i+1)*inner], f, indent+1, summarize))
	}
	sep := "," + strings.Repeat("\n", len(sizes)-1) + strings.Repeat(" ", indent+len("tensor("))
	return "[" + strings.Join(rows, sep) + "]"
}

// Package core holds the table of core ATen ops (their schemas) and a meta
// function for each: what a FakeTensor would say about the output's sizes,
// strides and dtype, computed without touching data.
package core

import (
	_ "embed"
	"strings"

	"github.com/goaten/goaten/tensor"
)

// coreOps is the core ATen opset, one schema per line (the 'core' tag of
// native_functions.yaml).
//
//go:embed core_ops.txt
var coreOps string

// Names lists the qualified names of the core ops, in table order.
var Names = registerCore()

func registerCore() []string {
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(coreOps), "\n") {
		op := tensor.RegisterOp(line)
		op.Core = true
		names = append(names, qualified(op))
	}
	return names
}

// qualified gives "aten::name.overload", with "default" for the default overload,
// the form golden records use.
func qualified(op *tensor.Op) string {
	s := op.Schema
	if s.Overload == "" {
		return s.Namespace + "::" + s.Name + ".default"
	}
	return op.Name
}

// Op returns a registered op, panicking if it does not exist (a bug in a table).
func Op(name string) *tensor.Op {
	op, ok := tensor.LookupOp(name)
	if !ok {
		panic("core: unknown op " + name)
	}
	return op
}

// def registers the meta function of the named op.
func def(name string, meta tensor.Kernel) { Op(name).SetMeta(meta) }

// defs registers one meta function for several ops.
func defs(meta tensor.Kernel, names ...string) {
	for _, n := range names {
		def(n, meta)
	}
}

// RunMeta runs op's meta function.
func RunMeta(op *tensor.Op, args []any) any {
	if op.Meta == nil {
		tensor.Panicf("%s has no meta function", op.Name)
	}
	return op.Meta(op, args)
}

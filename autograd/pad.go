package autograd

import "github.com/goaten/goaten/aten/args"

// registerPad registers the derivatives of the padding family
// (aten/core/pad.go): reflection and replication padding.
func registerPad() {
	// reflection_padNd / replication_padNd(Tensor self, SymInt[] padding)
	def("aten::reflection_pad1d", &Deriv{SelfUnused: true, Backward: padBackward(true, args.ReflectionPad1dAt(),
		args.ReflectionPad1dOf)})
	def("aten::reflection_pad2d", &Deriv{SelfUnused: true, Backward: padBackward(true, args.ReflectionPad2dAt(),
		func(a []any) args.ReflectionPad1d { return args.ReflectionPad1d(args.ReflectionPad2dOf(a)) })})
	def("aten::reflection_pad3d", &Deriv{SelfUnused: true, Backward: padBackward(true, args.ReflectionPad3dAt(),
		func(a []any) args.ReflectionPad1d { return args.ReflectionPad1d(args.ReflectionPad3dOf(a)) })})
	def("aten::replication_pad2d", &Deriv{SelfUnused: true, Backward: padBackward(false, args.ReplicationPad2dAt(),
		func(a []any) args.ReflectionPad1d { return args.ReflectionPad1d(args.ReplicationPad2dOf(a)) })})
	def("aten::replication_pad3d", &Deriv{SelfUnused: true, Backward: padBackward(false, args.ReplicationPad3dAt(),
		func(a []any) args.ReflectionPad1d { return args.ReflectionPad1d(args.ReplicationPad3dOf(a)) })})
}

// padBackward folds the gradient of a reflection or replication pad back
// onto the input, one padded dim at a time. The five pad ops take the same
// arguments: of reads the op's view as reflection_pad1d's.
func padBackward(reflect bool, at struct{ Self int }, of func([]any) args.ReflectionPad1d) func(c *Ctx) {
	return func(c *Ctx) {
		sizes := c.Sizes(at.Self)
		pad := of(c.Args()).Padding
		g := c.G(0)
		r := len(sizes)
		for k := 0; 2*k < len(pad); k++ {
			d := r - 1 - k
			n, lo := sizes[d], pad[2*k]
			L := g.Size(d)
			idx := make([]int64, L)
			for o := range idx {
				i := o - lo
				if reflect {
					if i < 0 {
						i = -i
					}
					if i >= n {
						i = 2*(n-1) - i
					}
				} else {
					i = min(max(i, 0), n-1)
				}
				idx[o] = int64(i)
			}
			s := g.Shape()
			s[d] = n
			g = indexAdd(g, s, d, ints(idx, g))
		}
		c.Set(at.Self, g)
	}
}

package autograd

// registerRandom registers the derivatives of the random family
// (aten/core/random.go): samplers, none differentiable.
func registerRandom() {
	for _, n := range []string{"aten::rand", "aten::randn", "aten::randperm"} {
		def(n, nondiff("a factory: no tensor inputs"))
	}
}

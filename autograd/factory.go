package autograd

// registerFactory registers the derivatives of the factory family
// (aten/core/factory.go): constructors and the sym_* metadata queries, none
// differentiable.
func registerFactory() {
	for _, n := range []string{"aten::arange.start_step", "aten::empty.memory_format",
		"aten::empty_strided", "aten::full", "aten::scalar_tensor"} {
		def(n, nondiff("a factory: no tensor inputs"))
	}
	def("aten::full_like", nondiff("the result does not depend on the values of self"))
	for _, n := range []string{"aten::sym_is_contiguous", "aten::sym_numel", "aten::sym_size.int",
		"aten::sym_storage_offset", "aten::sym_stride.int"} {
		def(n, nondiff("returns metadata, not a tensor"))
	}
}

package tensor

import "testing"

func TestPromoteTypes(t *testing.T) {
	cases := []struct{ a, b, want DType }{
		{Bool, Bool, Bool}, {Bool, Uint8, Uint8}, {Uint8, Int8, Int16}, {Int8, Int16, Int16},
		{Uint8, Int64, Int64}, {Int32, Float16, Float16}, {Float16, BFloat16, Float32},
		{BFloat16, Float32, Float32}, {Float32, Float64, Float64}, {Int64, Float32, Float32},
		{Bool, Float16, Float16}, {Uint8, Uint8, Uint8}, {Int16, Int32, Int32},
	}
	for _, c := range cases {
		if got := PromoteTypes(c.a, c.b); got != c.want {
			t.Errorf("promote(%s, %s) = %s, want %s", c.a, c.b, got, c.want)
		}
		if got := PromoteTypes(c.b, c.a); got != c.want {
			t.Errorf("promote(%s, %s) = %s, want %s", c.b, c.a, got, c.want)
		}
	}
}

func TestResultType(t *testing.T) {
	i32 := Empty(Int32, 3)
	u8 := Empty(Uint8, 3)
	f16 := Empty(Float16, 3)
	b := Empty(Bool, 3)
	f64zero := Empty(Float64)
	i64zero := Empty(Int64)
	cases := []struct {
		ops  []any
		want DType
	}{
		{[]any{i32, 2.5}, Float32},         // a float scalar gives the default float
		{[]any{i32, 2}, Int32},             // an int scalar keeps the tensor's int type
		{[]any{u8, 300}, Uint8},            // ... even when it does not fit
		{[]any{f16, 2.5}, Float16},         // same category: the tensor wins
		{[]any{b, 2}, Int64},               // bool tensor + int scalar
		{[]any{b, true}, Bool},             //
		{[]any{i32, f64zero}, Float64},     // 0-d tensor of a higher category
		{[]any{f16, f64zero}, Float16},     // 0-d tensor of the same category
		{[]any{i32, i64zero}, Int32},       // same category
		{[]any{f64zero, i64zero}, Float64}, // only 0-d tensors
		{[]any{i64zero, 2.5}, Float32},     // 0-d int with a float scalar
		{[]any{WrappedNumber(Float(1)), WrappedNumber(Int(2))}, Float32},
		{[]any{WrappedNumber(BoolScalar(true)), WrappedNumber(Int(2))}, Int64},
	}
	for i, c := range cases {
		if got := ResultType(c.ops...); got != c.want {
			t.Errorf("case %d: result_type = %s, want %s", i, got, c.want)
		}
	}
}

func TestBroadcastShapes(t *testing.T) {
	got := BroadcastShapes([]int{3, 1, 5}, []int{4, 1}, []int{})
	if len(got) != 3 || got[0] != 3 || got[1] != 4 || got[2] != 5 {
		t.Fatalf("got %v", got)
	}
	err := Try(func() { BroadcastShapes([]int{2, 3}, []int{4}) })
	if err == nil || err.Error() != "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1" {
		t.Fatalf("err %v", err)
	}
}

func TestWrapDim(t *testing.T) {
	if WrapDim(-1, 3) != 2 || WrapDim(0, 0) != 0 || WrapDim(-1, 0) != 0 {
		t.Fatal("WrapDim")
	}
	err := Try(func() { WrapDim(3, 3) })
	if err == nil || err.Error() != "Dimension out of range (expected to be in range of [-3, 2], but got 3)" {
		t.Fatalf("err %v", err)
	}
}

package library_test

import (
	"strings"
	"testing"

	"github.com/goaten/goaten/library"
	"github.com/goaten/goaten/tensor"
)

// errMsg runs f and returns the message of the *tensor.Error it panics
// with ("" if none).
func errMsg(t *testing.T, f func()) string {
	t.Helper()
	err := tensor.Try(f)
	if err == nil {
		return ""
	}
	e, _ := tensor.AsError(err)
	return e.Msg
}

// PyTorch's schema parser errors: the lexer's "expected X but found 'Y'
// here:" and ErrorReport's "\nmessage:\n", each followed by the source line
// and a line of '~' under the offending token (SourceRange::highlight).
func TestSchemaParseErrors(t *testing.T) {
	cases := []struct{ schema, want string }{
		{"schemaerr::foo(Tensor x, Tensor y -> Tensor",
			"expected ) but found 'arrow' here:\n" +
				"schemaerr::foo(Tensor x, Tensor y -> Tensor\n" +
				"                                  ~~ <--- HERE\n"},
		{"schemaerr::foo(Tensr x) -> Tensor",
			"\nunknown type specifier:\n" +
				"schemaerr::foo(Tensr x) -> Tensor\n" +
				"               ~~~~~ <--- HERE\n"},
		{"schemaerr::foo(Tensor x",
			"expected ) but found 'eof' here:\nschemaerr::foo(Tensor x"},
		{"schemaerr::foo(Tensor $x) -> Tensor",
			"expected a valid token but found '$' here:\n" +
				"schemaerr::foo(Tensor $x) -> Tensor\n" +
				"                      ~ <--- HERE\n"},
		{"schemaerr::foo(Tensor x) Tensor",
			"expected arrow but found 'ident' here:\n" +
				"schemaerr::foo(Tensor x) Tensor\n" +
				"                         ~~~~~~ <--- HERE\n"},
		{"schemaerr::foo(Tensor x=1) -> Tensor",
			"expected None but found 'number' here:\n" +
				"schemaerr::foo(Tensor x=1) -> Tensor\n" +
				"                        ~ <--- HERE\n"},
		{"schemaerr::foo(Tensor x, int in) -> Tensor",
			"expected ident but found 'in' here:\n" +
				"schemaerr::foo(Tensor x, int in) -> Tensor\n" +
				"                             ~~ <--- HERE\n"},
		{"schemaerr::foo(Tensor(a! x) -> Tensor",
			"expected ) but found 'ident' here:\n" +
				"schemaerr::foo(Tensor(a! x) -> Tensor\n" +
				"                         ~ <--- HERE\n"},
		{"schemaerr::foo(str s=[1]) -> Tensor",
			"expected number but found '[' here:\n" +
				"schemaerr::foo(str s=[1]) -> Tensor\n" +
				"                     ~ <--- HERE\n"},
		{"schemaerr::foo(Tensor[] xs=[]) -> Tensor",
			"\nlists are only supported for float or int types:\n" +
				"schemaerr::foo(Tensor[] xs=[]) -> Tensor\n" +
				"                           ~ <--- HERE\n"},
		{"schemaerr::foo(Tensor x) -> Tensor out extra",
			"expected eof but found 'ident' here:\n" +
				"schemaerr::foo(Tensor x) -> Tensor out extra\n" +
				"                                       ~~~~~ <--- HERE\n"},
		{"schemaerr::foo(..., Tensor x) -> Tensor",
			"\n... must be the last element of the argument list:\n" +
				"schemaerr::foo(..., Tensor x) -> Tensor\n" +
				"                    ~~~~~~ <--- HERE\n"},
		{"schemaerr::foo", "Tried to parse a function schema but only the operator name was given"},
		{"schemaerr::foo.default(Tensor x) -> Tensor", "default is not a legal overload name for aten operators"},
		{"schemaerr::foo(int a=1, int b) -> Tensor",
			"Non-default positional argument follows default argument. Parameter b in schemaerr::foo(int a=1, int b) -> Tensor"},
		{"foo(Tensor x) -> Tensor",
			"Expected `qualname` to be of the form \"namespace::name\", but got foo. The qualname passed to the torch.library APIs must consist of a namespace and a name, e.g. aten::sin"},
	}
	for _, c := range cases {
		got := errMsg(t, func() { library.Define(c.schema) })
		if got != c.want {
			t.Errorf("Define(%q):\n got %q\nwant %q", c.schema, got, c.want)
		}
	}
	// A multi-line schema shows the lines around the token.
	got := errMsg(t, func() { library.Define("schemaerr::bar(Tensor x,\n    Tensr y) -> Tensor") })
	want := "\nunknown type specifier:\nschemaerr::bar(Tensor x,\n    Tensr y) -> Tensor\n    ~~~~~ <--- HERE\n"
	if got != want {
		t.Errorf("multi-line:\n got %q\nwant %q", got, want)
	}
	// What parses: the grammar's corners.
	for _, s := range []string{
		"schemaok::a(Tensor(a!) x, Tensor(b!)? y, Tensor(c!)[] zs, *, float alpha=1., int[2] k=1, int[] d=[], str mode='mean', ScalarType? dtype=None, bool flag=True, SymInt n=-3) -> ()",
		"schemaok::b.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
		"schemaok::c(Tensor(a) self) -> Tensor(a)",
		"schemaok::d(Tensor x) -> (Tensor values, Tensor indices)",
		"schemaok::e(Tensor[] xs, Scalar s=2, float[] f=[1., 2.5e-1]) -> Tensor[]",
		"schemaok::f(Tensor x, Device? device=None, Generator? generator=None) -> (Tensor, int, float, str, bool)",
	} {
		if msg := errMsg(t, func() { library.Define(s) }); msg != "" {
			t.Errorf("Define(%q): %s", s, msg)
		}
	}
	if op, ok := library.Lookup("schemaok::b.out"); !ok || !strings.HasPrefix(op.String(), "schemaok::b.out(") {
		t.Errorf("Lookup(schemaok::b.out) = %v, %v", op, ok)
	}
}

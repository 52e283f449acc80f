package fx

import (
	"strings"
	"testing"
)

func TestNamespaceCreate(t *testing.T) {
	ns := newNamespace()
	steps := []struct{ candidate, want string }{
		{"add", "add"}, {"add", "add_1"}, {"add", "add_2"},
		{"add_1", "add_3"}, // taken: counts up from 1
		{"add_7", "add_7"}, // free: kept, and no counter moves (1.13 has none)
		{"add", "add_4"},
		{"sum", "sum_1"}, {"sum", "sum_2"}, {"sum_1", "sum_3"},
		{"x_0", "x_0"}, {"x_0", "x_1"}, {"x_00", "x_2"},
		{"for", "for_1"}, {"None", "None_1"}, {"inf", "inf_1"}, {"pytree", "pytree_1"},
		{"a.b", "a_b"}, {"a..b", "a_b_1"}, {"9lives", "_9lives"}, {"", "_unnamed"},
		{"_1", "_1"}, {"_1", "_2"}, {"x__1", "x__1"}, {"x__1", "x__2"},
		{"é", "_"}, {"héllo", "h_llo"},
	}
	for _, s := range steps {
		if got := ns.create(s.candidate, nil); got != s.want {
			t.Errorf("create(%q) = %q, want %q", s.candidate, got, s.want)
		}
	}
	// An object keeps its name; a builtin may take its own name.
	obj := &Node{}
	a := ns.create("obj", obj)
	if b := ns.create("other", obj); a != "obj" || b != a {
		t.Errorf("object renamed: %q %q", a, b)
	}
	if got := ns.create("torch", builtinName("torch")); got != "torch" {
		t.Errorf("torch for itself: %q", got)
	}
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"snake_case": "snake_case", "pascalCase": "pascal_case", "ALL_CAPS": "all_caps",
		"MyHop": "my_hop", "__and__": "__and__", "fooBARBaz": "foo_barbaz",
	} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
	if got := targetToStr("__and__"); got != "and" {
		t.Errorf("targetToStr(__and__) = %q", got)
	}
}

// Users kept out of step with arguments (only possible from inside the
// package, or by editing a slice Args returned) are Lint failures.
func TestLintDanglingUsers(t *testing.T) {
	build := func() (*Graph, *Node, *Node, *Node) {
		g := New()
		x := g.Placeholder("x")
		a := g.CallFunction(&Function{Name: "f", Qualified: "f"}, []any{x}, nil)
		o := g.Output(a)
		return g, x, a, o
	}
	check := func(t *testing.T, g *Graph, want string, node *Node) {
		t.Helper()
		err := g.Lint()
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("Lint: %v, want %q", err, want)
		}
		if fe := err.(*Error); fe.Node != node {
			t.Errorf("error names %v, want %s", fe.Node, node.Name)
		}
	}
	t.Run("user that does not use it", func(t *testing.T) {
		g, x, _, o := build()
		x.users = append(x.users, o)
		check(t, g, "Node 'x' has user 'output', which does not use it!", x)
	})
	t.Run("user not in graph", func(t *testing.T) {
		g, x, _, _ := build()
		stray := &Node{Name: "stray", graph: g, erased: true}
		x.users = append(x.users, stray)
		check(t, g, "Node 'x' has user 'stray', which is not in this Graph!", x)
	})
	t.Run("use without user", func(t *testing.T) {
		g, x, a, _ := build()
		x.removeUser(a)
		check(t, g, "Node 'f' uses 'x' but is not among its users!", a)
	})
	t.Run("arguments edited in place", func(t *testing.T) {
		g, x, a, _ := build()
		g.InsertingBefore(nil)
		g.Placeholder("y")
		a.Args()[0] = g.First()
		check(t, g, "Node 'x' has user 'f', which does not use it!", x)
	})
	t.Run("argument from another graph", func(t *testing.T) {
		g, _, a, _ := build()
		other := New().Placeholder("z")
		a.args[0] = other
		a.inputs[0] = other
		check(t, g, "Argument 'z' of Node 'f' does not belong to this Graph", a)
	})
}

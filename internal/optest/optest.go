// Package optest holds test helpers shared by the tests of the op packages
// (device/cpu, decomp).
package optest

import (
	"strings"
	"testing"

	"github.com/goaten/goaten/tensor"
)

// BadInput runs, as subtest name of t, a call of op that must raise a
// *tensor.Error whose message contains want, or, when want is "", return
// without error; any other panic fails it as a crash.
func BadInput(t *testing.T, name, op string, args []any, want string) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("crashed: %v", r)
				}
			}()
			_, err = tensor.CallErr(op, args, nil)
		}()
		if want == "" {
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			return
		}
		e, ok := tensor.AsError(err)
		if !ok {
			t.Fatalf("got %v, want a *tensor.Error", err)
		}
		if !strings.Contains(e.Msg, want) {
			t.Fatalf("message %q does not contain %q", e.Msg, want)
		}
	})
}

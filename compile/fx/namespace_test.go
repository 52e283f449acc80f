package fx

import (
	"math/rand"
	"strconv"
	"testing"
)

// naiveCreate is namespace.create without the taken counters: the search
// for a free number counts up one by one, as FX's _Namespace does.
func naiveCreate(used map[string]bool, candidate string) string {
	candidate = sanitize(candidate)
	base, num, hasNum := splitSuffix(candidate)
	candidate = base
	if hasNum {
		candidate = base + "_" + strconv.Itoa(num)
	}
	for used[candidate] || isIllegalName(candidate, nil) {
		num++
		candidate = base + "_" + strconv.Itoa(num)
	}
	used[candidate] = true
	return candidate
}

// TestNamespaceTakenCounters checks that the counters that skip used
// numbers give the names of the one-by-one search, renames included.
func TestNamespaceTakenCounters(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	bases := []string{"add", "mm", "x", "getitem", "for"}
	ns := newNamespace()
	used := map[string]bool{}
	var names []string
	for i := range 5000 {
		if len(names) > 0 && r.Intn(10) == 0 {
			// Rename a name to a fresh one: its number is free again.
			j := r.Intn(len(names))
			to := "renamed_" + strconv.Itoa(i)
			if !ns.rename(names[j], to) {
				t.Fatalf("rename %s -> %s refused", names[j], to)
			}
			delete(used, names[j])
			used[to] = true
			names[j] = to
			continue
		}
		c := bases[r.Intn(len(bases))]
		if r.Intn(4) == 0 {
			c += "_" + strconv.Itoa(r.Intn(40))
		}
		got, want := ns.create(c, nil), naiveCreate(used, c)
		if got != want {
			t.Fatalf("step %d: create(%q) = %q, the one-by-one search gives %q", i, c, got, want)
		}
		names = append(names, got)
	}
}

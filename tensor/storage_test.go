package tensor

import (
	"sync"
	"testing"
	"unsafe"
)

// NewStorageUninit gives a storage of the asked size, 8-byte aligned, small
// ones zeroed and large ones from the runtime's uninitialised allocation;
// with poisonUninit every byte is 0xff, so a kernel that leaves an output
// element unwritten shows up in tests run with GOATEN_POISON=1.
func TestNewStorageUninit(t *testing.T) {
	for _, n := range []int{0, 1, 100, uninitMin - 8, uninitMin, 3 << 20} {
		s := NewStorageUninit(n)
		if s.NBytes() != n {
			t.Fatalf("NewStorageUninit(%d) holds %d bytes", n, s.NBytes())
		}
		if n > 0 && uintptr(unsafe.Pointer(&s.Bytes()[0]))%8 != 0 {
			t.Fatalf("NewStorageUninit(%d) is not 8-byte aligned", n)
		}
		for i := range s.Bytes() { // every byte can be written
			s.Bytes()[i] = byte(i)
		}
	}
	defer func(p bool) { poisonUninit = p }(poisonUninit)
	poisonUninit = true
	for _, n := range []int{24, 3 << 20} {
		for i, b := range NewStorageUninit(n).Bytes() {
			if b != 0xff {
				t.Fatalf("poisoned NewStorageUninit(%d): byte %d is %#x", n, i, b)
			}
		}
	}
	x := MaterializeUninit(NewMetaContiguous([]int{2}, Float32, CPU)) // kept inline
	for i, b := range x.Storage().Bytes() {
		if b != 0xff {
			t.Fatalf("poisoned inline tensor: byte %d is %#x", i, b)
		}
	}
}

// Views of one tensor are taken and written from several goroutines at
// once: the version counter they share is made and bumped atomically
// (run with -race).
func TestVersionCounterConcurrent(t *testing.T) {
	base := Empty(Float32, 8)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				v := NewMetaContiguous([]int{8}, Float32, CPU).ShareVersion(base)
				v.BumpVersion()
			}
		}()
	}
	wg.Wait()
	if got := base.Version(); got != 800 {
		t.Fatalf("version %d, want 800", got)
	}
}

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

// recycler is an Allocator handing out the storages it was given.
type recycler struct {
	free  []*Storage
	asked []int
}

func (r *recycler) Storage(nbytes int, zero bool) *Storage {
	r.asked = append(r.asked, nbytes)
	for i, s := range r.free {
		if s.NBytes() == nbytes {
			r.free = append(r.free[:i], r.free[i+1:]...)
			if zero {
				clear(s.Bytes())
			}
			return s
		}
	}
	return nil
}

// An Allocator set on a goroutine supplies that goroutine's new storages
// of AllocatorMin bytes and more, zeroed when asked; other goroutines and
// smaller storages allocate as usual.
func TestWithAllocator(t *testing.T) {
	n := AllocatorMin
	old := NewStorage(n)
	old.Bytes()[0] = 7
	r := &recycler{free: []*Storage{old}}
	restore := WithAllocator(r)
	if s := NewStorage(n); s != old || s.Bytes()[0] != 0 {
		t.Fatalf("NewStorage did not take the zeroed recycled storage")
	}
	if s := NewStorageUninit(n); s == old {
		t.Fatalf("a storage was handed out twice")
	}
	NewStorage(n - 8) // below AllocatorMin: not asked
	done := make(chan int)
	go func() { NewStorage(2 * n); done <- len(r.asked) }() // another goroutine: not asked
	<-done
	restore()
	NewStorage(n) // restored: not asked
	if len(r.asked) != 2 {
		t.Fatalf("the allocator was asked for %v", r.asked)
	}
	bad := WithAllocator(badAllocator{})
	defer bad()
	defer func() {
		if recover() == nil {
			t.Fatal("a storage of the wrong size was accepted")
		}
	}()
	NewStorage(n)
}

type badAllocator struct{}

func (badAllocator) Storage(nbytes int, zero bool) *Storage {
	return &Storage{data: make([]byte, nbytes+8)}
}

// MaterializeUninitFrom takes its storage from the allocator it is given,
// not from the goroutine's, and allocates as usual when that has none or
// the tensor is small; a storage of the wrong size is refused.
func TestMaterializeUninitFrom(t *testing.T) {
	n := AllocatorMin
	old := NewStorage(n)
	r := &recycler{free: []*Storage{old}}
	other := &recycler{}
	restore := WithAllocator(other) // the goroutine's: never asked here
	defer restore()
	x := MaterializeUninitFrom(NewMetaContiguous([]int{n / 4}, Float32, CPU), r)
	if x.Storage() != old {
		t.Fatal("the given allocator's storage was not taken")
	}
	if y := MaterializeUninitFrom(NewMetaContiguous([]int{n / 4}, Float32, CPU), r); y.Storage() == old || y.Storage().NBytes() != n {
		t.Fatal("a storage was handed out twice, or a new one has the wrong size")
	}
	MaterializeUninitFrom(NewMetaContiguous([]int{2}, Float32, CPU), r) // below AllocatorMin: not asked
	if len(r.asked) != 2 || len(other.asked) != 0 {
		t.Fatalf("asked: the given allocator %v, the goroutine's %v", r.asked, other.asked)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a storage of the wrong size was accepted")
		}
	}()
	MaterializeUninitFrom(NewMetaContiguous([]int{n / 4}, Float32, CPU), badAllocator{})
}

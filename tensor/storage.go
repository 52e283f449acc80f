package tensor

import (
	"math"
	"os"
	"strings"
	"unsafe"

	"github.com/x448/float16"
)

// Storage is the CPU device's raw data: an untyped, 8-byte aligned byte buffer
// shared by a base tensor and all of its views, like at::Storage. Typed access
// goes through Elems. resize_ may replace the buffer; every view sees the change.
type Storage struct {
	data []byte
	home Recycler // where RecycleTagged hands the storage back, or nil
	tag  any      // the storage tag of the goroutine that adopted it
}

// A Recycler takes back storages it made once nothing reads or writes them
// any more: compile/cpu's plans, whose warm calls then fill the storages
// again instead of allocating.
type Recycler interface {
	Recycle(s *Storage)
}

type storageTagKey struct{}

// WithStorageTag makes tag (comparable, not nil) the tag of the storages
// that Recyclers adopt on the calling goroutine, until restore is called.
func WithStorageTag(tag any) (restore func()) { return SetModeValue(storageTagKey{}, tag) }

// StorageTagged reports whether the calling goroutine has a storage tag.
func StorageTagged() bool {
	return localCount.Load() != 0 && ModeValue(storageTagKey{}) != nil
}

// Adopt makes r the storage's Recycler under the calling goroutine's
// storage tag and reports whether there was one; without a tag it does
// nothing (nobody could hand s back).
func (s *Storage) Adopt(r Recycler) bool {
	if localCount.Load() == 0 {
		return false
	}
	tag := ModeValue(storageTagKey{})
	if tag == nil {
		return false
	}
	s.home, s.tag = r, tag
	return true
}

// RecycleTagged hands s back to its Recycler if it was adopted under tag,
// and reports whether it did. The caller asserts that no tensor on s is
// read or written again: the next owner overwrites it. Only code that
// knows every user of what was made under its tag may call it (compile's
// AOT autograd functions, for the activations their forward saved, once
// the backward has run).
func RecycleTagged(s *Storage, tag any) bool {
	if s == nil || s.home == nil || s.tag != tag {
		return false
	}
	h := s.home
	s.home, s.tag = nil, nil
	h.Recycle(s)
	return true
}

// NewStorage allocates a zeroed storage of nbytes bytes.
func NewStorage(nbytes int) *Storage {
	if s := hookedStorage(nbytes, true); s != nil {
		return s
	}
	return &Storage{data: newData(nbytes, true)}
}

// newData is the buffer of a new storage of nbytes: zeroed when zero is
// set, else unspecified (see NewStorageUninit).
func newData(nbytes int, zero bool) []byte {
	var b []byte
	switch {
	case nbytes == 0:
		return nil
	case zero || nbytes < uninitMin:
		words := make([]uint64, (nbytes+7)/8)
		b = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), nbytes)
	default:
		b = makeNoZero(nbytes)
	}
	if !zero && poisonUninit {
		poison(b)
	}
	return b
}

// uninitMin is the size from which NewStorageUninit skips zeroing; below
// it a zeroed allocation costs next to nothing. (At 64 KB, a 64×64 float32
// result, 16 KB, was cleared before its kernel wrote it: 8% of an add's
// profile, issue 25.) Allocations of this size are 8-byte aligned: the
// runtime's size classes above its 16-byte tiny blocks are multiples of 8.
const uninitMin = 1 << 10

// poisonUninit (GOATEN_POISON=1, for tests) fills every storage
// NewStorageUninit returns with 0xff bytes (NaN for floats), so that a
// kernel that leaves an element of its output unwritten shows up.
var poisonUninit = os.Getenv("GOATEN_POISON") == "1"

// NewStorageUninit allocates a storage of nbytes whose contents are
// unspecified, for an output that a kernel overwrites entirely: a large one
// skips Go's zeroing, which costs about as much as an elementwise kernel's
// pass over the result. Never hand its contents out unwritten.
func NewStorageUninit(nbytes int) *Storage {
	if s := hookedStorage(nbytes, false); s != nil {
		if poisonUninit {
			poison(s.data)
		}
		return s
	}
	return &Storage{data: newData(nbytes, false)}
}

// An Allocator supplies the storages of the large tensors a goroutine
// allocates while it is set (WithAllocator): compile/cpu's memory plan hands
// the kernels it calls the storages of intermediates that are dead, so that a
// warm compiled call allocates no new memory for them.
type Allocator interface {
	// Storage returns a storage of exactly nbytes, all zero when zero is
	// set, or nil for a new allocation. It must never return a storage
	// that something still reads or writes.
	Storage(nbytes int, zero bool) *Storage
}

// AllocatorMin is the smallest allocation an Allocator is asked for;
// smaller storages are always new.
const AllocatorMin = 256

type allocatorKey struct{}

// WithAllocator makes a the source of the storages of AllocatorMin bytes
// and more that the calling goroutine allocates (NewStorage,
// NewStorageUninit, so every new tensor's), until restore is called. It is
// a mode of that goroutine: kernels' helper goroutines allocate as usual.
func WithAllocator(a Allocator) (restore func()) { return SetModeValue(allocatorKey{}, a) }

// hookedStorage asks the calling goroutine's Allocator, if any, for a
// storage of nbytes.
func hookedStorage(nbytes int, zero bool) *Storage {
	if nbytes < AllocatorMin || localCount.Load() == 0 {
		return nil
	}
	a, _ := ModeValue(allocatorKey{}).(Allocator)
	if a == nil {
		return nil
	}
	s := a.Storage(nbytes, zero)
	if s != nil && len(s.data) != nbytes {
		panic("tensor: an Allocator returned a storage of the wrong size")
	}
	return s
}

// poison fills b with 0xff bytes (see poisonUninit).
func poison(b []byte) {
	for i := range b {
		b[i] = 0xff
	}
}

// makeNoZero returns the first n bytes of a new noscan allocation without
// clearing them. Go has no public form of the runtime's uninitialised
// allocation; strings.Builder.Grow uses it (internal/bytealg.MakeNoZero)
// for its buffer, whose start a one-byte String then reaches. Should Grow
// ever zero its buffer, this only gets slower. Allocations of this size are
// page-aligned, as a Storage must be 8-byte aligned.
func makeNoZero(n int) []byte {
	var b strings.Builder
	b.Grow(n)
	b.WriteByte(0)
	return unsafe.Slice(unsafe.StringData(b.String()), n)
}

// Bytes is the whole buffer.
func (s *Storage) Bytes() []byte { return s.data }

// NBytes is the size of the buffer in bytes.
func (s *Storage) NBytes() int { return len(s.data) }

// Resize grows (never shrinks) the buffer to at least nbytes, keeping its contents.
func (s *Storage) Resize(nbytes int) {
	if nbytes <= len(s.data) {
		return
	}
	n := NewStorage(nbytes)
	copy(n.data, s.data)
	s.data = n.data
}

// Elem is the set of Go element types a storage can be viewed as.
type Elem interface {
	~bool | ~uint8 | ~int8 | ~int16 | ~int32 | ~int64 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

// Elems views the whole storage as a slice of T.
func Elems[T Elem](s *Storage) []T {
	var z T
	n := len(s.data) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(s.data))), n)
}

// Half is an IEEE float16 bit pattern.
type Half = float16.Float16

// BF16 is a bfloat16 bit pattern (the top half of a float32).
type BF16 uint16

// HalfToFloat32 widens a float16 exactly.
func HalfToFloat32(h uint16) float32 { return float16.Frombits(h).Float32() }

// Float32ToHalf rounds to the nearest float16 (ties to even).
func Float32ToHalf(f float32) uint16 { return float16.Fromfloat32(f).Bits() }

// BF16ToFloat32 widens a bfloat16 exactly.
func BF16ToFloat32(b uint16) float32 { return math.Float32frombits(uint32(b) << 16) }

// Float32ToBF16 rounds to the nearest bfloat16 (ties to even), keeping NaN a NaN.
func Float32ToBF16(f float32) uint16 {
	if f != f {
		return 0x7fc0
	}
	u := math.Float32bits(f)
	u += 0x7fff + (u>>16)&1
	return uint16(u >> 16)
}

// readFloat reads element i of a storage of dtype d as float64.
func readFloat(s *Storage, d DType, i int) float64 {
	switch d {
	case Bool:
		if Elems[uint8](s)[i] != 0 {
			return 1
		}
		return 0
	case Uint8:
		return float64(Elems[uint8](s)[i])
	case Int8:
		return float64(Elems[int8](s)[i])
	case Int16:
		return float64(Elems[int16](s)[i])
	case Int32:
		return float64(Elems[int32](s)[i])
	case Int64:
		return float64(Elems[int64](s)[i])
	case Float16:
		return float64(HalfToFloat32(Elems[uint16](s)[i]))
	case BFloat16:
		return float64(BF16ToFloat32(Elems[uint16](s)[i]))
	case Float32:
		return float64(Elems[float32](s)[i])
	case Float64:
		return Elems[float64](s)[i]
	}
	panic("readFloat: bad dtype")
}

// readInt reads element i of an integral or bool storage as int64.
func readInt(s *Storage, d DType, i int) int64 {
	switch d {
	case Bool, Uint8:
		return int64(Elems[uint8](s)[i])
	case Int8:
		return int64(Elems[int8](s)[i])
	case Int16:
		return int64(Elems[int16](s)[i])
	case Int32:
		return int64(Elems[int32](s)[i])
	case Int64:
		return Elems[int64](s)[i]
	}
	return int64(readFloat(s, d, i))
}

// writeScalar stores v into element i, converting as a C cast would.
func writeScalar(s *Storage, d DType, i int, v Scalar) {
	switch d {
	case Bool:
		b := uint8(0)
		if v.Bool() {
			b = 1
		}
		Elems[uint8](s)[i] = b
	case Uint8:
		Elems[uint8](s)[i] = uint8(scalarToInt(v, d))
	case Int8:
		Elems[int8](s)[i] = int8(scalarToInt(v, d))
	case Int16:
		Elems[int16](s)[i] = int16(scalarToInt(v, d))
	case Int32:
		Elems[int32](s)[i] = int32(scalarToInt(v, d))
	case Int64:
		Elems[int64](s)[i] = scalarToInt(v, d)
	case Float16:
		Elems[uint16](s)[i] = Float32ToHalf(float32(v.Float64()))
	case BFloat16:
		Elems[uint16](s)[i] = Float32ToBF16(float32(v.Float64()))
	case Float32:
		Elems[float32](s)[i] = float32(v.Float64())
	case Float64:
		Elems[float64](s)[i] = v.Float64()
	}
}

func scalarToInt(v Scalar, d DType) int64 {
	if v.IsFloat() {
		return FloatToInt(v.f, d)
	}
	return v.i
}

// FloatToInt converts a float to an integral dtype d as PyTorch's CPU
// kernels do on x86: int64 through a 64-bit truncation, narrower types
// through a 32-bit one (NaN and values outside int32 give math.MinInt32),
// then keeping the low bits. The result is returned widened to int64.
func FloatToInt(f float64, d DType) int64 {
	if d == Int64 {
		return FloatToInt64(f)
	}
	var x int64
	if f != f || f >= 2147483648 || f <= -2147483649 {
		x = math.MinInt32
	} else {
		x = int64(f)
	}
	switch d {
	case Uint8:
		return int64(uint8(x))
	case Int8:
		return int64(int8(x))
	case Int16:
		return int64(int16(x))
	case Bool:
		if f != 0 {
			return 1
		}
		return 0
	}
	return int64(int32(x))
}

// FloatToInt64 truncates toward zero; NaN and out-of-range values give
// math.MinInt64, as x86's cvttsd2si does.
func FloatToInt64(f float64) int64 {
	if f != f || f >= 9.223372036854775807e18 || f < -9.223372036854775808e18 {
		return math.MinInt64
	}
	return int64(f)
}

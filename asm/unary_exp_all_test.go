package asm

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The exhaustive check of the unary kernels in expAllOps: every float32 bit pattern, in
// 256 blocks of 2^24 in order, each summarised by the CRC-32 of its
// results' bits. testdata/OP_crc32.txt holds the twin's sums (written
// natively, where the twin is fast); under qemu the kernel's sums are
// compared with them, which costs the kernel's time only (the twin under
// qemu would take hours). expAllTwinBlocks are also recomputed with the
// twin here, which shows that the file is this machine's twin (NaN
// payloads included).
const expAllBlock = 1 << 24

// expAllOps are the ops checked: those whose NEON kernels compute with
// tricks a differential sample could miss (the twins are cheap natively).
var expAllOps = []unaryOp{uExp, uSigmoid, uSilu, uTanh, uLog, uGelu, uSin, uCos, uGeluTanh, uErf}

func expAllFile(op unaryOp) string { return "testdata/" + unaryNames[op] + "_crc32.txt" }

// expAllTwinBlocks: [0.5, 1), the largest finite and the NaNs, [-128, -32)
// with expLo, and the negative NaNs.
var expAllTwinBlocks = []int{0x3f, 0x7f, 0xc2, 0xff}

// expAllBits are v's bits, but for the default NaN, whose sign is the
// machine's (0xffc00000 on amd64, 0x7fc00000 on arm64: silu(-Inf) is
// -Inf/Inf), taken as 0x7fc00000 so that the sums written on amd64 hold on
// arm64 (TestExpNEON compares those bits exactly, with the twin on arm64).
func expAllBits(v float32) uint32 {
	if b := math.Float32bits(v); b != 0xffc00000 {
		return b
	}
	return 0x7fc00000
}

// expAllSums returns the CRC-32 of f's results on each block in blocks,
// on all CPUs.
func expAllSums(f func(d, x []float32), blocks []int) []uint32 {
	sums := make([]uint32, len(blocks))
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			const chunk = 1 << 16
			x, d := make([]float32, chunk), make([]float32, chunk)
			buf := make([]byte, 4*chunk)
			for i := range next {
				sum := uint32(0)
				for c := range uint32(expAllBlock / chunk) {
					lo := uint32(blocks[i])*expAllBlock + c*chunk
					for j := range x {
						x[j] = math.Float32frombits(lo + uint32(j))
					}
					f(d, x)
					for j, v := range d {
						binary.LittleEndian.PutUint32(buf[4*j:], expAllBits(v))
					}
					sum = crc32.Update(sum, crc32.IEEETable, buf)
				}
				sums[i] = sum
			}
		}()
	}
	for i := range blocks {
		next <- i
	}
	close(next)
	wg.Wait()
	return sums
}

// TestExpAll compares the kernels of expAllOps in use with their twins through per-block CRC-32s of the twins' results kept in
// testdata. Unset, GOATEN_EXP_ALL checks the kernels on the sample blocks
// (-short: the first) against the files. =1 checks all 2^32 float32 bit
// patterns and first re-runs the twin on the sample blocks (on arm64 under
// qemu-aarch64 5 to 40 minutes an op on this 2-core machine, natively
// seconds; where a block differs, its first differing pattern is
// reported); =write writes the twins' sums to testdata (run natively, 1 to
// 6 minutes an op). GOATEN_EXP_ALL_OPS=sigmoid,tanh limits it to those ops.
func TestExpAll(t *testing.T) {
	mode := os.Getenv("GOATEN_EXP_ALL")
	blocks := make([]int, 1<<32/expAllBlock)
	for i := range blocks {
		blocks[i] = i
	}
	if mode == "" {
		blocks = expAllTwinBlocks
		if testing.Short() {
			blocks = expAllTwinBlocks[:1]
		}
	}
	for _, op := range expAllOps {
		if o := os.Getenv("GOATEN_EXP_ALL_OPS"); o != "" && !slices.Contains(strings.Split(o, ","), unaryNames[op]) {
			continue
		}
		name, file := unaryNames[op], expAllFile(op)
		start := time.Now()
		if mode == "write" {
			var b strings.Builder
			for i, s := range expAllSums(unaryGo[op], blocks) {
				fmt.Fprintf(&b, "%02x %08x\n", i, s)
			}
			if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s in %v", file, time.Since(start))
			continue
		}
		want := readExpAllFile(t, file)
		if mode != "" {
			for i, s := range expAllSums(unaryGo[op], expAllTwinBlocks) {
				if s != want[expAllTwinBlocks[i]] {
					t.Fatalf("%s block %02x: the twin here sums to %08x, %s says %08x (rewrite it with GOATEN_EXP_ALL=write)",
						name, expAllTwinBlocks[i], s, file, want[expAllTwinBlocks[i]])
				}
			}
			t.Logf("%s: the twin here agrees with %s on blocks %x (%v)", name, file, expAllTwinBlocks, time.Since(start))
			start = time.Now()
		}
		for i, s := range expAllSums(un32[op], blocks) {
			if b := blocks[i]; s != want[b] {
				t.Errorf("%s block %02x: kernel sums to %08x, the twin to %08x; first difference %s", name, b, s, want[b], expAllFirstDiff(op, b))
			}
		}
		t.Logf("%s (path %s): the kernel's sums equal the twin's on %d blocks of 2^24 patterns (%v)", name, Path(), len(blocks), time.Since(start))
	}
}

func readExpAllFile(t *testing.T, file string) []uint32 {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var sums []uint32
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		s, err := strconv.ParseUint(fields[len(fields)-1], 16, 32)
		if err != nil {
			t.Fatal(err)
		}
		sums = append(sums, uint32(s))
	}
	if len(sums) != 1<<32/expAllBlock {
		t.Fatalf("%s: %d sums, want %d", file, len(sums), 1<<32/expAllBlock)
	}
	return sums
}

// expAllFirstDiff finds the first pattern of block i where op's kernel
// and twin differ.
func expAllFirstDiff(op unaryOp, i int) string {
	const chunk = 1 << 16
	x, d, w := make([]float32, chunk), make([]float32, chunk), make([]float32, chunk)
	for c := range uint32(expAllBlock / chunk) {
		lo := uint32(i)*expAllBlock + c*chunk
		for j := range x {
			x[j] = math.Float32frombits(lo + uint32(j))
		}
		un32[op](d, x)
		unaryGo[op](w, x)
		for j, v := range d {
			if math.Float32bits(v) != math.Float32bits(w[j]) {
				return fmt.Sprintf("f(%#x) = %#x, twin %#x", lo+uint32(j), math.Float32bits(v), math.Float32bits(w[j]))
			}
		}
	}
	return "none found"
}

// TestSigmoidRecip checks the division of sigmoid's NEON kernel
// (SIGMOIDV in unary_exp_arm64.s), modelled with fma32, on every divisor
// b in [1, 2): the seed 0x7ef311c3 - bits(b) and four Newton steps give
// y = RN(1/b) for every b but 2 - 2^-23 (which the kernel sets apart),
// and with y = RN(1/b) Markstein's q + r·y is RN(num/b) for every num
// (checked here for num = 1).
func TestSigmoidRecip(t *testing.T) {
	for m := uint32(0); m < 1<<23; m++ {
		b := math.Float32frombits(0x3f800000 | m)
		y := math.Float32frombits(0x7ef311c3 - math.Float32bits(b))
		for range 4 {
			y = fma32(fma32(-b, y, 1), y, y)
		}
		want := float32(1 / float64(b)) // 1/b rounded twice, harmlessly (53 ≥ 2·24 + 2)
		if math.Float32bits(b) == 0x3fffffff {
			if y != 0.5 {
				t.Fatalf("y(2 - 2^-23) = %v, the kernel expects 0.5", y)
			}
			y = want
		}
		if y != want {
			t.Fatalf("b = %#x: y = %#x, RN(1/b) = %#x", math.Float32bits(b), math.Float32bits(y), math.Float32bits(want))
		}
		q := y // 1·y
		if q = fma32(fma32(-b, q, 1), y, q); q != want {
			t.Fatalf("b = %#x: 1/b = %#x, RN = %#x", math.Float32bits(b), math.Float32bits(q), math.Float32bits(want))
		}
	}
}

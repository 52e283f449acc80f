package bench

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/compile/export"
	"github.com/goaten/goaten/examples/models"
)

// BenchmarkExportLoad loads the GPT of BenchmarkGPT (13 MB of float32
// weights), exported with a dynamic batch and sequence length and saved
// to a file, with export.LoadFile: MB/s of the file, the bytes allocated
// per load (B/op, and alloc/weights: what a load allocates for each byte
// of weights; one copy of the weights is 1), and peak-heap-MB, the heap a
// load grows with the collector off (what it allocates and frees included:
// a bound on its peak). read/file is os.ReadFile of the same file, the
// cost of one copy from the page cache.
func BenchmarkExportLoad(b *testing.B) {
	gt.ManualSeed(0)
	m, err := models.NewGPT(gptWeights(gptConfig), gptConfig)
	if err != nil {
		b.Fatal(err)
	}
	tok := gt.Rand(8, gptConfig.Block).MulScalar(float64(gptConfig.Vocab)).To(gt.Int64)
	ep, err := export.Export(m, []*gt.Tensor{tok}, export.Options{
		InputNames: []string{"tokens"},
		DynamicShapes: []map[int]*export.Dimension{{
			0: export.Dim("batch", 1, 64), 1: export.Dim("seq", 1, gptConfig.Block),
		}},
	})
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "gpt.pt2")
	if err := export.Save(ep, path); err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	weights := 0
	for _, t := range ep.StateDict {
		weights += t.Numel() * t.DType().ItemSize()
	}
	b.Run("goaten/load", func(b *testing.B) {
		b.SetBytes(st.Size())
		b.ReportAllocs()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for b.Loop() {
			if _, err := export.LoadFile(path); err != nil {
				b.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(weights), "alloc/weights")
		b.ReportMetric(peakHeap(func() {
			if _, err := export.LoadFile(path); err != nil {
				b.Fatal(err)
			}
		})/1e6, "peak-heap-MB")
	})
	b.Run("read/file", func(b *testing.B) {
		b.SetBytes(st.Size())
		b.ReportAllocs()
		for b.Loop() {
			if _, err := os.ReadFile(path); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// peakHeap is how much the heap grows while f runs with the collector
// off: what f allocates, freed or not, a bound on its peak heap.
func peakHeap(f func()) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	old := debug.SetGCPercent(-1)
	f()
	runtime.ReadMemStats(&after)
	debug.SetGCPercent(old)
	return float64(after.HeapAlloc - before.HeapAlloc)
}

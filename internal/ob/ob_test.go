package ob
import (
	"testing"
	_ "github.com/goaten/goaten"
	"github.com/goaten/goaten/tensor"
)
func BenchmarkAdd1(b *testing.B) {
	x := tensor.FromSlice([]float32{1})
	y := tensor.FromSlice([]float32{2})
	b.ReportAllocs()
	for b.Loop() { _ = x.Add(y) }
}
func BenchmarkAdd4096(b *testing.B) {
	x := tensor.FromSlice(make([]float32, 4096), 64, 64)
	y := tensor.FromSlice(make([]float32, 4096), 64, 64)
	b.ReportAllocs()
	for b.Loop() { _ = x.Add(y) }
}

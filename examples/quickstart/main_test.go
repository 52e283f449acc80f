package main

import (
	"strings"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/examples/newdevice"
)

// TestTourOnDevices runs the tour on the CPU and on the example device and
// checks they print the same, but for the device named in each tensor.
func TestTourOnDevices(t *testing.T) {
	var cpu, dev strings.Builder
	tour(&cpu, gt.CPU)
	tour(&dev, newdevice.Device)
	got := strings.ReplaceAll(dev.String(), ", device='gonum'", "")
	if got != cpu.String() {
		t.Errorf("the tour on gonum differs from the CPU's:\n--- cpu\n%s\n--- gonum (device annotations removed)\n%s", cpu.String(), got)
	}
	if !strings.Contains(dev.String(), "device='gonum'") {
		t.Error("the tensors of the gonum tour do not say they are on gonum")
	}
}

// TestTourOnMeta runs the tour on the meta device: shapes and dtypes only.
func TestTourOnMeta(t *testing.T) {
	var b strings.Builder
	tour(&b, gt.Meta)
	if !strings.Contains(b.String(), "device='meta', size=(2, 3)") {
		t.Errorf("unexpected meta tour:\n%s", b.String())
	}
}

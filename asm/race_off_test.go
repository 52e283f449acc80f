//go:build !race

package asm

// raceEnabled trims the slow differential sweeps under -race, where the
// point is the parallel code, not more shapes.
const raceEnabled = false

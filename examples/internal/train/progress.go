// Package train holds what the training examples share: a terminal progress
// bar, loss and accuracy curves drawn to a PNG, and checkpoints (a model's
// state dict and its optimizer's state in safetensors files).
package train

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Bar is a one-line progress bar with the rate and the time left, redrawn
// with a carriage return: plain terminal output, no dependency.
type Bar struct {
	w     io.Writer
	label string
	total int
	done  int
	start time.Time
	last  time.Time
}

// NewBar starts a bar of total steps labelled label.
func NewBar(w io.Writer, label string, total int) *Bar {
	now := time.Now()
	return &Bar{w: w, label: label, total: total, start: now}
}

// Add advances the bar by n steps and redraws it (at most every 100 ms, and
// at the last step) with note (e.g. the running loss) at its end.
func (b *Bar) Add(n int, note string) { b.AddFunc(n, func() string { return note }) }

// AddFunc is Add with the note made by note only when the bar is redrawn
// (a training step need not format its loss each time).
func (b *Bar) AddFunc(n int, note func() string) {
	b.done += n
	now := time.Now()
	if b.done < b.total && now.Sub(b.last) < 100*time.Millisecond {
		return
	}
	b.last = now
	const width = 24
	filled := width * b.done / max(b.total, 1)
	el := now.Sub(b.start).Seconds()
	rate := float64(b.done) / max(el, 1e-9)
	eta := time.Duration(float64(b.total-b.done) / max(rate, 1e-9) * float64(time.Second))
	fmt.Fprintf(b.w, "\r%s [%s%s] %d/%d %.1f it/s ETA %s %s", b.label,
		strings.Repeat("=", filled), strings.Repeat(" ", width-filled),
		b.done, b.total, rate, eta.Round(time.Second), note())
}

// Done ends the bar's line and returns the time since NewBar.
func (b *Bar) Done() time.Duration {
	fmt.Fprintln(b.w)
	return time.Since(b.start)
}

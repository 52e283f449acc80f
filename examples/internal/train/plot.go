package train

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// History is what an epoch loop records: the mean training loss and the
// test accuracy (a fraction) of each epoch.
type History struct {
	Loss     []float64 `json:"loss"`
	Accuracy []float64 `json:"accuracy"`
}

// Plot draws the curves of h (loss and accuracy against the epoch, the
// accuracy left out when empty) to a PNG file at path.
func Plot(path, title string, h History) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "epoch"
	var lines []any
	xy := func(v []float64) plotter.XYs {
		pts := make(plotter.XYs, len(v))
		for i, y := range v {
			pts[i] = plotter.XY{X: float64(i + 1), Y: y}
		}
		return pts
	}
	lines = append(lines, "train loss", xy(h.Loss))
	if len(h.Accuracy) > 0 {
		lines = append(lines, "test accuracy", xy(h.Accuracy))
	}
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return err
	}
	p.Legend.Top = true // the loss falls and the accuracy rises towards the bottom right
	p.Add(plotter.NewGrid())
	return p.Save(6*vg.Inch, 4*vg.Inch, path)
}

package changepoint

type Options struct {
	Window       int
	PValue       float64
	MinMagnitude float64
}
type ChangePoint struct {
	Index         int
	PValue        float64
	Before, After float64
}

func Detect(xs []float64, o Options) []ChangePoint { return nil }

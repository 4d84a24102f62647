package scenarios

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// axes types the values of each matrix axis.
func (d *decoder) axes(raw []rawAxis) []Axis {
	var out []Axis
	for _, ra := range raw {
		ax := Axis{Key: ra.key.Value}
		first := map[string]*yaml.Node{}
		for _, n := range ra.values {
			if f, dup := first[n.Value]; dup {
				d.errorf(n, "matrix.%s: value %s appears twice (first at line %d)", ax.Key, n.Value, f.Line)
				continue
			}
			first[n.Value] = n
			ax.Values = append(ax.Values, MatrixValue{Key: ax.Key, Text: n.Value, Value: scalarValue(n)})
		}
		out = append(out, ax)
	}
	return out
}

// scalarValue types a scalar the way YAML resolved it.
func scalarValue(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!int":
		var v int64
		if n.Decode(&v) == nil {
			return v
		}
	case "!!float":
		var v float64
		if n.Decode(&v) == nil {
			return v
		}
	case "!!bool":
		var v bool
		if n.Decode(&v) == nil {
			return v
		}
	}
	return n.Value
}

// combinations lists every choice of one value per axis, in axis order,
// the last axis varying fastest. No axes make one empty combination.
func combinations(axes []Axis) [][]MatrixValue {
	idx := make([]int, len(axes))
	var out [][]MatrixValue
	for _, ax := range axes {
		if len(ax.Values) == 0 {
			return nil
		}
	}
	for {
		combo := make([]MatrixValue, len(axes))
		for i, ax := range axes {
			combo[i] = ax.Values[idx[i]]
		}
		out = append(out, combo)
		i := len(axes) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(axes[i].Values) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return out
		}
	}
}

// caseCount returns targets × combinations, saturating above MaxCases.
func caseCount(axes []Axis, targets int) int {
	n := max(targets, 1)
	for _, ax := range axes {
		n *= len(ax.Values)
		if n > MaxCases {
			return MaxCases + 1
		}
	}
	return n
}

// caseID names a case: the target, then key=value per axis.
func caseID(target string, combo []MatrixValue) string {
	if len(combo) == 0 {
		return target
	}
	parts := make([]string, len(combo))
	for i, mv := range combo {
		parts[i] = mv.Key + "=" + mv.Text
	}
	return target + " " + strings.Join(parts, ",")
}

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

// caseCount returns targets × combinations, saturating above maxCases.
func caseCount(axes []Axis, targets int) int {
	n := max(targets, 1)
	for _, ax := range axes {
		n *= len(ax.Values)
		if n > maxCases {
			return maxCases + 1
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

type rawAxis struct {
	key    *yaml.Node
	values []*yaml.Node
}

// matrix reads `matrix:`: axes in file order, each a non-empty list of scalars.
func (d *decoder) matrix(n *yaml.Node) []rawAxis {
	n = d.deref(n)
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "matrix: expected a mapping from names to lists of values, got %s", describe(n))
		return nil
	}
	var axes []rawAxis
	for _, kv := range d.pairs(n, 0) {
		if d.exhausted() {
			break
		}
		key := kv.key.Value
		if !validVarName(key) {
			d.errorf(kv.key, "matrix: %q is not a valid variable name (letters, digits and _, not starting with a digit)", key)
			continue
		}
		list := d.deref(kv.val)
		values := d.seq(list, "matrix."+key)
		if len(values) == 0 {
			if list.Kind == yaml.SequenceNode {
				d.errorf(kv.key, "matrix.%s: needs at least one value", key)
			}
			continue
		}
		ax := rawAxis{key: kv.key}
		for _, v := range values {
			if s := d.scalar(v, "matrix."+key, aValue); s != nil {
				if isNull(s) {
					d.errorf(s, "matrix.%s: expected a value, got nothing", key)
					continue
				}
				ax.values = append(ax.values, s)
			}
		}
		axes = append(axes, ax)
	}
	return axes
}

// maxCases bounds targets × matrix combinations. Each case is a full run
// of every phase, so more than this is a typo, not a plan.
const maxCases = 10_000

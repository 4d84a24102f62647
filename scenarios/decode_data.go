package scenarios

import "go.yaml.in/yaml/v3"

// rawData is one named entry of `data:`.
type rawData struct {
	key, node                       *yaml.Node
	ok                              bool
	file, format, mode, onExhausted *yaml.Node
}

var dataFields = []field[rawData]{
	scalarField("file", aString, func(r *rawData) **yaml.Node { return &r.file }),
	scalarField("format", aString, func(r *rawData) **yaml.Node { return &r.format }),
	scalarField("mode", aString, func(r *rawData) **yaml.Node { return &r.mode }),
	scalarField("on_exhausted", aString, func(r *rawData) **yaml.Node { return &r.onExhausted }),
}

// dataList reads `data:`, a mapping from source names to their settings.
func (d *decoder) dataList(n *yaml.Node) []*rawData {
	return namedEntries(d, n, "data", "a mapping from names to data sources", func(kv pair) *rawData {
		r := &rawData{key: kv.key, node: d.deref(kv.val)}
		r.ok = fields(d, kv.val, "data."+kv.key.Value, "data source", dataFields, r)
		return r
	})
}

package conform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"github.com/modex/modex/engine/model"
	"go.starlark.net/starlark"
)

// In process (InProcess) the same shapes are Go values: ints arrive as
// int64 and may be returned as int, int64 or float64.
//
// Values cross the adapter protocol as JSON (docs/adapter-protocol.md):
// None is null, bool, int (a JSON number), string, a tuple or list is an
// array, a dict is {"dict": [[k, v], ...]}, a set {"set": [...]}, bytes
// {"bytes": "..."}. A model object travels as the implementation value it is
// bound to: the first implementation value seen at an object's place is
// bound to it, and the binding is a bijection for the rest of the run.

// Binding maps model objects to implementation values and back.
type Binding struct {
	toImpl  map[model.Object]string // canonical JSON of the implementation value
	toModel map[string]model.Object
}

// NewBinding returns an empty binding.
func NewBinding() *Binding {
	return &Binding{toImpl: map[model.Object]string{}, toModel: map[string]model.Object{}}
}

// Len is the number of bound objects.
func (b *Binding) Len() int { return len(b.toImpl) }

// String lists the bindings, sorted.
func (b *Binding) String() string {
	var parts []string
	for o, v := range b.toImpl {
		parts = append(parts, o.String()+"="+v)
	}
	sort.Strings(parts)
	return fmt.Sprint(parts)
}

// CanonJSON prints a wire value canonically (integers of any Go type alike).
func CanonJSON(x any) string {
	switch y := x.(type) {
	case int:
		x = float64(y)
	case int64:
		x = float64(y)
	}
	data, _ := json.Marshal(x)
	return string(data)
}

// ToWire converts a model value for the implementation.
func (b *Binding) ToWire(v model.Value) (any, error) {
	switch x := v.(type) {
	case nil, starlark.NoneType:
		return nil, nil
	case starlark.Bool:
		return bool(x), nil
	case starlark.Int:
		n, ok := x.Int64()
		if !ok {
			return nil, fmt.Errorf("integer %s is too large for the adapter protocol", x)
		}
		return n, nil
	case starlark.String:
		return string(x), nil
	case starlark.Bytes:
		return map[string]any{"bytes": string(x)}, nil
	case model.Object:
		w, ok := b.toImpl[x]
		if !ok {
			return nil, fmt.Errorf("object %s is not bound to an implementation value yet", x)
		}
		var out any
		json.Unmarshal([]byte(w), &out)
		return out, nil
	case starlark.Tuple:
		return b.seqToWire(x)
	case *starlark.List:
		elems := make([]model.Value, x.Len())
		for i := range elems {
			elems[i] = x.Index(i)
		}
		return b.seqToWire(elems)
	case *starlark.Dict:
		var items [][]any
		for _, kv := range x.Items() {
			k, err := b.ToWire(kv[0])
			if err != nil {
				return nil, err
			}
			v, err := b.ToWire(kv[1])
			if err != nil {
				return nil, err
			}
			items = append(items, []any{k, v})
		}
		return map[string]any{"dict": items}, nil
	case *starlark.Set:
		var elems []model.Value
		it := x.Iterate()
		var e model.Value
		for it.Next(&e) {
			elems = append(elems, e)
		}
		it.Done()
		arr, err := b.seqToWire(elems)
		return map[string]any{"set": arr}, err
	}
	return nil, fmt.Errorf("cannot send a %s to the implementation", v.Type())
}

func (b *Binding) seqToWire(xs []model.Value) ([]any, error) {
	out := make([]any, len(xs))
	for i, x := range xs {
		w, err := b.ToWire(x)
		if err != nil {
			return nil, err
		}
		out[i] = w
	}
	return out, nil
}

// FromWire converts an implementation value to a model value: values bound
// to objects become those objects; arrays become tuples.
func (b *Binding) FromWire(x any) (model.Value, error) {
	if o, ok := b.toModel[CanonJSON(x)]; ok {
		return o, nil
	}
	switch y := x.(type) {
	case nil:
		return starlark.None, nil
	case bool:
		return starlark.Bool(y), nil
	case int:
		return starlark.MakeInt(y), nil
	case int64:
		return starlark.MakeInt64(y), nil
	case float64:
		if y != math.Trunc(y) || math.Abs(y) > 1<<53 {
			return nil, fmt.Errorf("number %v is not an integer", y)
		}
		return starlark.MakeInt64(int64(y)), nil
	case json.Number:
		n, err := y.Int64()
		if err != nil {
			return nil, fmt.Errorf("number %s is not an integer", y)
		}
		return starlark.MakeInt64(n), nil
	case string:
		return starlark.String(y), nil
	case []any:
		out := make(starlark.Tuple, len(y))
		for i, e := range y {
			v, err := b.FromWire(e)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case map[string]any:
		if s, ok := y["bytes"].(string); ok && len(y) == 1 {
			return starlark.Bytes(s), nil
		}
		if items, ok := y["dict"].([]any); ok && len(y) == 1 {
			d := starlark.NewDict(len(items))
			for _, it := range items {
				kv, ok := it.([]any)
				if !ok || len(kv) != 2 {
					return nil, fmt.Errorf("a dict entry must be [key, value]")
				}
				k, err := b.FromWire(kv[0])
				if err != nil {
					return nil, err
				}
				v, err := b.FromWire(kv[1])
				if err != nil {
					return nil, err
				}
				if err := d.SetKey(k, v); err != nil {
					return nil, err
				}
			}
			return d, nil
		}
		if elems, ok := y["set"].([]any); ok && len(y) == 1 {
			s := starlark.NewSet(len(elems))
			for _, e := range elems {
				v, err := b.FromWire(e)
				if err != nil {
					return nil, err
				}
				if err := s.Insert(v); err != nil {
					return nil, err
				}
			}
			return s, nil
		}
		return nil, fmt.Errorf("unknown value object %s (want dict, set or bytes)", CanonJSON(y))
	}
	return nil, fmt.Errorf("unsupported JSON value %s", CanonJSON(x))
}

// Match reports whether the implementation value x matches the model value
// v, binding objects met for the first time (on success only).
func (b *Binding) Match(v model.Value, x any) bool {
	tentative := map[model.Object]string{}
	if !b.match(v, x, tentative) {
		return false
	}
	for o, w := range tentative {
		b.toImpl[o] = w
		b.toModel[w] = o
	}
	return true
}

func (b *Binding) match(v model.Value, x any, tent map[model.Object]string) bool {
	if o, ok := v.(model.Object); ok {
		w := CanonJSON(x)
		if bound, ok := b.toImpl[o]; ok {
			return bound == w
		}
		if t, ok := tent[o]; ok {
			return t == w
		}
		if _, taken := b.toModel[w]; taken {
			return false
		}
		for _, t := range tent {
			if t == w {
				return false
			}
		}
		tent[o] = w
		return true
	}
	var elems []model.Value
	switch s := v.(type) {
	case starlark.Tuple:
		elems = s
	case *starlark.List:
		for i := 0; i < s.Len(); i++ {
			elems = append(elems, s.Index(i))
		}
	default:
		got, err := b.FromWire(x)
		if err != nil {
			return false
		}
		k1, err1 := model.Key(v)
		k2, err2 := model.Key(got)
		return err1 == nil && err2 == nil && k1 == k2
	}
	arr, ok := x.([]any)
	if !ok || len(arr) != len(elems) {
		return false
	}
	for i := range elems {
		if !b.match(elems[i], arr[i], tent) {
			return false
		}
	}
	return true
}

// DecodeJSON decodes one JSON value keeping numbers exact.
func DecodeJSON(data []byte) (any, error) {
	if v, ok := decodeFast(data); ok {
		return v, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var x any
	err := dec.Decode(&x)
	return normalizeNumbers(x), err
}

// normalizeNumbers turns json.Number into float64 for integral values that
// fit, keeping canonical JSON stable.
func normalizeNumbers(x any) any {
	switch y := x.(type) {
	case json.Number:
		if n, err := y.Int64(); err == nil {
			return float64(n)
		}
		f, _ := y.Float64()
		return f
	case []any:
		for i := range y {
			y[i] = normalizeNumbers(y[i])
		}
	case map[string]any:
		for k := range y {
			y[k] = normalizeNumbers(y[k])
		}
	}
	return x
}

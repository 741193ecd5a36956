package model

import (
	"fmt"
	"sort"
	"strings"

	"go.starlark.net/starlark"
)

type objCount struct {
	kind string
	n    int
}

// sstate is a decoded Starlark model state: frozen variable values plus the
// per-kind object counters.
type sstate struct {
	key  string
	vals []starlark.Value // nil until decoded
	encs []string         // per-variable encodings (substrings of key)
	objs []objCount
}

func (s *sstate) Key() string { return s.key }

// lazyState returns a state that is decoded only when its values are needed.
func lazyState(key string) *sstate { return &sstate{key: key} }

// ensure decodes a lazy state.
func (m *StarModel) ensure(st State) (*sstate, error) {
	s := st.(*sstate)
	if s.vals != nil || len(m.info.Vars) == 0 && s.objs != nil {
		return s, nil
	}
	d, err := m.decode(s.key)
	if err != nil {
		return nil, err
	}
	*s = *d
	return s, nil
}

func (m *StarModel) decode(key string) (*sstate, error) {
	d := decoder{b: key}
	st := &sstate{key: key, vals: make([]starlark.Value, len(m.info.Vars)), encs: make([]string, len(m.info.Vars)), objs: []objCount{}}
	for i := range st.vals {
		start := d.pos
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		st.vals[i] = v
		st.encs[i] = key[start:d.pos]
	}
	n, err := d.uvarint()
	if err != nil {
		return nil, err
	}
	for i := uint64(0); i < n; i++ {
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		c, err := d.uvarint()
		if err != nil {
			return nil, err
		}
		st.objs = append(st.objs, objCount{k, int(c)})
	}
	if d.pos != len(key) {
		return nil, d.fail("trailing bytes")
	}
	return st, nil
}

// rec is the state record s seen by actions and expressions.
type rec struct {
	m        *StarModel
	st       *sstate
	cur      []starlark.Value
	touched  []bool
	readonly bool
	objs     []objCount
	objsOwn  bool
}

var _ starlark.HasSetField = (*rec)(nil)

func (r *rec) String() string {
	var sb strings.Builder
	sb.WriteString("state(")
	for i, n := range r.m.info.Vars {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(n)
		sb.WriteString("=")
		sb.WriteString(r.value(i).String())
	}
	sb.WriteString(")")
	return sb.String()
}

func (r *rec) Type() string { return "state" }

func (r *rec) Freeze() {}

func (r *rec) Truth() starlark.Bool { return true }

func (r *rec) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: state") }

func (r *rec) AttrNames() []string { return r.m.info.Vars }

func (r *rec) value(i int) starlark.Value {
	if r.touched != nil && r.touched[i] {
		return r.cur[i]
	}
	if r.st == nil {
		return starlark.None
	}
	return r.st.vals[i]
}

func (r *rec) Attr(name string) (starlark.Value, error) {
	i, ok := r.m.varIndex[name]
	if !ok {
		return nil, starlark.NoSuchAttrError(fmt.Sprintf("the state has no variable %q (variables: %s)", name, strings.Join(r.m.info.Vars, ", ")))
	}
	if r.readonly {
		return r.st.vals[i], nil
	}
	if !r.touched[i] {
		r.cur[i] = deepCopy(r.st.vals[i])
		r.touched[i] = true
	}
	return r.cur[i], nil
}

func (r *rec) SetField(name string, v starlark.Value) error {
	i, ok := r.m.varIndex[name]
	if !ok {
		return starlark.NoSuchAttrError(fmt.Sprintf("the state has no variable %q (variables: %s)", name, strings.Join(r.m.info.Vars, ", ")))
	}
	if r.readonly {
		return fmt.Errorf("the state is read-only here: cannot set s.%s", name)
	}
	r.cur[i] = v
	r.touched[i] = true
	return nil
}

func (r *rec) newObject(kind string) Object {
	if !r.objsOwn {
		r.objs = append([]objCount(nil), r.objs...)
		r.objsOwn = true
	}
	for i := range r.objs {
		if r.objs[i].kind == kind {
			r.objs[i].n++
			return Object{Kind: kind, N: r.objs[i].n}
		}
	}
	r.objs = append(r.objs, objCount{kind, 1})
	sort.Slice(r.objs, func(a, b int) bool { return r.objs[a].kind < r.objs[b].kind })
	return Object{Kind: kind, N: 1}
}

// encode builds the key of the state the record now holds.
func (r *rec) encode(buf []byte) ([]byte, error) {
	var err error
	for i, name := range r.m.info.Vars {
		if r.touched[i] || r.st == nil {
			if buf, err = AppendValuePath(buf, r.cur[i], name); err != nil {
				return nil, err
			}
		} else {
			buf = append(buf, r.st.encs[i]...)
		}
	}
	buf = appendUvarint(buf, uint64(len(r.objs)))
	for _, o := range r.objs {
		buf = appendStr(buf, o.kind)
		buf = appendUvarint(buf, uint64(o.n))
	}
	return buf, nil
}

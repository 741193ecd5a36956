package projects

import (
	"bytes"
	"reflect"
	"regexp"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// tomlBlock is a stretch of a TOML document: a table (its header, its keys,
// the comments and blank lines before the header) or, with path "", the
// top-level keys before the first table.
type tomlBlock struct {
	path string // table path with spaces removed, e.g. configs.figure1.domains
	lead string // comment and blank lines before the header
	text string // the header line and the body
}

var tableHeader = regexp.MustCompile(`^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$`)

// splitTOML cuts a document into blocks at its table headers; the comment
// and blank lines right before a header go with that header.
func splitTOML(doc []byte) []tomlBlock {
	lines := strings.SplitAfter(string(doc), "\n")
	blocks := []tomlBlock{{}}
	var body []string
	flush := func() {
		// Trailing comments and blank lines belong to the next header.
		cut := len(body)
		for cut > 0 {
			t := strings.TrimSpace(body[cut-1])
			if t != "" && !strings.HasPrefix(t, "#") {
				break
			}
			cut--
		}
		b := &blocks[len(blocks)-1]
		b.text += strings.Join(body[:cut], "")
		body = body[cut:]
	}
	for _, l := range lines {
		if m := tableHeader.FindStringSubmatch(strings.TrimRight(l, "\r\n")); m != nil {
			flush()
			blocks = append(blocks, tomlBlock{path: strings.ReplaceAll(m[1], " ", ""), lead: strings.Join(body, ""), text: l})
			body = nil
			continue
		}
		body = append(body, l)
	}
	flush()
	blocks[len(blocks)-1].text += strings.Join(body, "")
	return blocks
}

// blockValues reads the keys of a block's body (its header left out).
func blockValues(b tomlBlock) (map[string]any, bool) {
	body := b.text
	if b.path != "" {
		if i := strings.IndexByte(body, '\n'); i >= 0 {
			body = body[i+1:]
		} else {
			body = ""
		}
	}
	m := map[string]any{}
	if err := toml.Unmarshal([]byte(body), &m); err != nil {
		return nil, false
	}
	return m, true
}

// preserveLayout returns fresh (the project marshaled anew) written in the
// shape of orig (the file as it was). Each table of orig whose own content
// (its keys and inline tables, not the tables that have headers of their
// own) did not change keeps its text, comments and formatting; a changed
// table takes the fresh text (and the fresh sub-tables that stand for its
// inline tables) after its original leading comments; tables that are new
// go at the end; removed ones go. The result is checked to mean exactly
// what fresh means; if not, fresh is returned.
func preserveLayout(orig, fresh []byte) []byte {
	var origTree, freshTree map[string]any
	if toml.Unmarshal(orig, &origTree) != nil || toml.Unmarshal(fresh, &freshTree) != nil {
		return fresh
	}
	ob, fb := splitTOML(orig), splitTOML(fresh)
	var paths []string
	isPath := map[string]bool{}
	for _, o := range ob[1:] {
		paths = append(paths, o.path)
		isPath[o.path] = true
	}
	// separate holds every orig table path and each of its ancestors: a
	// key whose path is in it has a table of its own (see own). Sets, not
	// scans of every path for every key: a project of 8,000
	// configurations saved in seconds otherwise.
	separate := map[string]bool{}
	for _, p := range paths {
		for q := p; q != ""; {
			if separate[q] {
				break
			}
			separate[q] = true
			i := strings.LastIndexByte(q, '.')
			if i < 0 {
				break
			}
			q = q[:i]
		}
	}
	// owner is the orig table a fresh table belongs to ("" for none): the
	// longest orig path that is the table or one of its ancestors.
	owner := func(f string) string {
		for q := f; q != ""; {
			if isPath[q] {
				return q
			}
			i := strings.LastIndexByte(q, '.')
			if i < 0 {
				break
			}
			q = q[:i]
		}
		return ""
	}
	var out []tomlBlock
	ov, ok1 := blockValues(ob[0])
	fv, ok2 := blockValues(fb[0])
	if ok1 && ok2 && sameTOML(ov, fv) {
		out = append(out, ob[0])
	} else {
		out = append(out, fb[0])
	}
	for _, o := range ob[1:] {
		if subtree(freshTree, o.path) == nil {
			continue // removed (a deleted configuration, an emptied table)
		}
		if sameTOML(own(origTree, o.path, separate), own(freshTree, o.path, separate)) {
			out = append(out, o)
			continue
		}
		lead := o.lead
		for _, f := range fb[1:] {
			if owner(f.path) == o.path && !impliedTable(f, fb) {
				out = append(out, tomlBlock{path: f.path, lead: lead, text: f.text})
				lead = "\n"
			}
		}
	}
	for _, f := range fb[1:] {
		if owner(f.path) != "" || impliedTable(f, fb) {
			continue
		}
		// After the last table of the same kind ([configs.x] after the
		// other configurations), else at the end.
		at, top := len(out), strings.SplitN(f.path, ".", 2)[0]
		for i := len(out) - 1; i > 0; i-- {
			if strings.SplitN(out[i].path, ".", 2)[0] == top {
				at = i + 1
				break
			}
		}
		nb := tomlBlock{path: f.path, lead: "\n", text: f.text}
		out = append(out[:at], append([]tomlBlock{nb}, out[at:]...)...)
	}
	var buf bytes.Buffer
	for _, b := range out {
		if buf.Len() > 0 && !bytes.HasSuffix(buf.Bytes(), []byte("\n")) {
			buf.WriteByte('\n')
		}
		buf.WriteString(b.lead)
		buf.WriteString(b.text)
	}
	if !sameMeaning(buf.Bytes(), fresh) {
		return fresh
	}
	return buf.Bytes()
}

// own is a table's content without the sub-tables that have headers of
// their own in the original (paths).
func own(tree map[string]any, path string, separate map[string]bool) any {
	m, ok := subtree(tree, path).(map[string]any)
	if !ok {
		return subtree(tree, path)
	}
	out := map[string]any{}
	for k, v := range m {
		if !separate[path+"."+k] && !zeroScalar(v) {
			out[k] = v
		}
	}
	return out
}

// impliedTable reports whether a block only names a table that its
// sub-tables imply anyway ([configs] before [configs.x]).
func impliedTable(f tomlBlock, fb []tomlBlock) bool {
	if v, ok := blockValues(f); !ok || len(v) > 0 {
		return false
	}
	for _, g := range fb {
		if strings.HasPrefix(g.path, f.path+".") {
			return true
		}
	}
	return false
}

// subtree is the value at a dotted table path (nil when absent).
func subtree(tree map[string]any, path string) any {
	var cur any = tree
	for _, k := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[strings.Trim(k, `"'`)]
	}
	return cur
}

// sameParent reports whether two table paths share their parent table.
func sameParent(a, b string) bool {
	pa, pb := a[:max(strings.LastIndexByte(a, '.'), 0)], b[:max(strings.LastIndexByte(b, '.'), 0)]
	return pa != "" && pa == pb
}

// sameMeaning reports whether two documents hold the same data (a key set
// to 0, "" or false means what its absence means).
func sameMeaning(a, b []byte) bool {
	var ma, mb map[string]any
	if toml.Unmarshal(a, &ma) != nil || toml.Unmarshal(b, &mb) != nil {
		return false
	}
	return sameTOML(dropZero(ma), dropZero(mb))
}

// zeroScalar reports whether v is 0, "" or false (what the project format
// writes by leaving the key out).
func zeroScalar(v any) bool {
	switch x := v.(type) {
	case int64:
		return x == 0
	case float64:
		return x == 0
	case string:
		return x == ""
	case bool:
		return !x
	}
	return false
}

// dropZero removes zero scalars from nested tables.
func dropZero(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	for k, x := range m {
		if !zeroScalar(x) {
			out[k] = dropZero(x)
		}
	}
	return out
}

// sameTOML compares decoded TOML values, an integer and a float of the
// same value alike (time_budget = 60 is saved as 60.0: the same setting,
// so the table keeps its text).
func sameTOML(a, b any) bool {
	return reflect.DeepEqual(numbersAsFloats(a), numbersAsFloats(b))
}

// numbersAsFloats is a copy of a decoded TOML value with its integers as
// floats.
func numbersAsFloats(v any) any {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = numbersAsFloats(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = numbersAsFloats(e)
		}
		return out
	}
	return v
}

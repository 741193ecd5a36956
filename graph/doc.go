// Package graph turns state graphs into documents: JSON, DOT, SVG and PNG
// (through go-graphviz), plus layout and hit-testing helpers for viewers.
// It has no UI dependencies.
package graph

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
	"github.com/modex/modex/internal/safetext"
)

// Var is a state variable printed as a Starlark literal.
type Var struct {
	Name  string
	Value string
}

// Vars is an ordered list of variables; it marshals as a JSON object in
// order.
type Vars []Var

// MarshalJSON writes the variables as an object, in order.
func (vs Vars) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, v := range vs {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(v.Name)
		val, _ := json.Marshal(v.Value)
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// State is a state of a graph document.
type State struct {
	ID        string `json:"id"`
	Label     string `json:"label"`
	Initial   bool   `json:"initial"`
	Accepting bool   `json:"accepting"`
	Kind      string `json:"kind"`
	Error     string `json:"error"`
	Frontier  bool   `json:"frontier"`
	// Rim marks a state of a part of a graph (a neighbourhood, an opened
	// class, a path view's folded moves) with transitions to states left
	// out of the part: drawn dashed like the frontier, but explored.
	Rim  bool `json:"rim,omitempty"`
	Vars Vars `json:"vars"`
	// Count is the number of model states a quotient's node stands for
	// (absent in state graphs).
	Count int `json:"count,omitempty"`
}

// Transition is a transition of a graph document.
type Transition struct {
	From   string   `json:"from"`
	To     string   `json:"to"`
	Action string   `json:"action"`
	Args   []string `json:"args"`
	Output string   `json:"output"`
	Kind   string   `json:"kind"`
	Label  string   `json:"label"`
}

// Doc is a state graph ready for export or display.
type Doc struct {
	States      []State       `json:"states"`
	Transitions []Transition  `json:"transitions"`
	Stats       explore.Stats `json:"stats"`
}

// VarsFunc returns the variables of a graph state (by index), or nil.
type VarsFunc func(state int) []model.Var

// FromGraph builds a document from an engine graph; vars may be nil.
// Transitions with the same label share their strings, and states their
// variables' printed values: a graph of millions of transitions repeats
// a few thousand labels.
func FromGraph(g *explore.Graph, vars VarsFunc) *Doc {
	d := &Doc{Stats: g.Stats, States: make([]State, len(g.States)), Transitions: make([]Transition, len(g.Trans))}
	values := map[string]string{}
	for i, s := range g.States {
		ds := State{ID: s.ID, Label: s.Label, Initial: s.Initial, Accepting: s.Accepting, Kind: string(s.Kind), Error: s.Error, Frontier: s.Frontier, Vars: Vars{}, Count: s.Count}
		if vars != nil {
			vs := vars(i)
			ds.Vars = make(Vars, 0, len(vs))
			for _, v := range vs {
				ds.Vars = append(ds.Vars, Var{Name: v.Name, Value: intern(values, model.Format(v.Value))})
			}
		}
		d.States[i] = ds
	}
	type printed struct {
		args         []string
		output, labl string
	}
	labels := map[string]printed{}
	for i := range g.Trans {
		t := &g.Trans[i]
		label := t.Label()
		p, ok := labels[label]
		if !ok || t.Text != "" {
			p = printed{t.ArgStrings(), t.OutputString(), label}
			if t.Text == "" {
				labels[label] = p
			}
		}
		d.Transitions[i] = Transition{From: g.States[t.From].ID, To: g.States[t.To].ID, Action: t.Action, Args: p.args, Output: p.output, Kind: t.Kind.String(), Label: p.labl}
	}
	return d
}

// intern returns the copy of s kept in seen, keeping s there when it is
// the first.
func intern(seen map[string]string, s string) string {
	if v, ok := seen[s]; ok {
		return v
	}
	seen[s] = s
	return s
}

// JSONOptions tune the JSON export.
type JSONOptions struct {
	// NoTiming writes 0 for stats.seconds, making the export byte-identical
	// from run to run.
	NoTiming bool
}

// WriteJSON writes the document as indented JSON.
func (d *Doc) WriteJSON(w io.Writer, opt JSONOptions) error {
	c := *d
	if opt.NoTiming {
		c.Stats.Seconds = 0
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(&c)
}

// ReadJSON reads a document written by WriteJSON.
func ReadJSON(r io.Reader) (*Doc, error) {
	var d Doc
	if err := json.NewDecoder(r).Decode(&d); err != nil {
		return nil, err
	}
	return &d, nil
}

// StateFontSize and ArcFontSize are the sizes, in layout points, of the
// states' and the arcs' labels.
const (
	StateFontSize = 11
	ArcFontSize   = 10
)

// WrapWidth is the width, in characters, past which a state's label is
// broken over lines for the layout: a wide node widens the whole graph,
// which then fits a window only at a scale too small to read.
const WrapWidth = 28

// WrapLabel breaks a label over lines of at most width characters where it
// can: after a ", " or before a " | " (between grouping values). A piece
// longer than width stays whole.
func WrapLabel(label string, width int) string {
	if utf8.RuneCountInString(label) <= width || strings.Contains(label, "\n") {
		return label
	}
	var pieces []string
	rest := label
	for rest != "" {
		i := strings.Index(rest, ", ")
		j := strings.Index(rest, " | ")
		switch {
		case i < 0 && j < 0:
			pieces, rest = append(pieces, rest), ""
		case j < 0 || i >= 0 && i < j:
			pieces, rest = append(pieces, rest[:i+1]), rest[i+2:]
		default:
			pieces, rest = append(pieces, rest[:j]), rest[j+1:] // the next piece starts with "| "
		}
	}
	var b strings.Builder
	line := 0
	for k, p := range pieces {
		n := utf8.RuneCountInString(p)
		if k > 0 {
			if line+1+n > width {
				b.WriteByte('\n')
				line = 0
			} else {
				b.WriteByte(' ')
				line++
			}
		}
		b.WriteString(p)
		line += n
	}
	return b.String()
}

// dotQuote quotes a string for DOT, to be drawn as it is: Graphviz reads
// HTML entities in labels and tooltips (&lt; would be drawn <), so & is
// written &amp;; control characters, bidi overrides and bytes that are
// not UTF-8 are written as visible escapes (safetext.TermText; and U+FFFE,
// U+FFFF): Graphviz would copy them into the SVG, which no XML reader then
// accepts. Line breaks are DOT's \n.
func dotQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range safetext.TermText(s) {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '&':
			b.WriteString("&amp;")
		case 0xfffe, 0xffff: // not characters in XML either
			fmt.Fprintf(&b, `\\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Tooltip returns a state's variables, one per line, as name = value.
func (s *State) Tooltip() string {
	var b strings.Builder
	if s.Error != "" {
		b.WriteString("error: " + s.Error + "\n")
	}
	for _, v := range s.Vars {
		fmt.Fprintf(&b, "%s = %s\n", v.Name, v.Value)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// WriteDOT writes the document in Graphviz DOT with the Modex conventions:
// active states as ellipses, passive as diamonds, accepting with a double
// border, the initial state pointed at by an arrow from a dot, error states
// red, frontier states dashed; observable actions prefixed with ?, timeout
// edges unlabelled. Transitions between the same two states are drawn as
// one arc with their labels stacked (see Arcs); the arc's id is "t" and the
// index of its first transition.
func (d *Doc) WriteDOT(w io.Writer) error {
	b := bufio.NewWriterSize(w, 1<<16) // streamed: a large graph is not held twice
	// overlap and sep matter to the force-directed layouts used for large
	// graphs (dot ignores them): without them sfdp piles nodes on each other.
	// Unconnected parts (the states of one class of an overview often have
	// no transitions between them) are packed in a grid, not laid side by
	// side in one row too wide to read.
	fmt.Fprintf(b, "digraph modex {\n  rankdir=TB;\n  overlap=scale;\n  sep=\"+4\";\n  pack=true;\n  pad=\"0.3\";\n  packmode=\"array\";\n  node [fontname=\"Helvetica\", fontsize=%d];\n  edge [fontname=\"Helvetica\", fontsize=%d];\n", StateFontSize, ArcFontSize)
	starts := 0
	for _, s := range d.States {
		shape := "ellipse"
		if s.Kind == string(explore.Passive) {
			shape = "diamond"
		}
		label := WrapLabel(s.Label, WrapWidth)
		if s.Count > 0 {
			label += "\n" + explore.Count(s.Count, "state")
		}
		attrs := []string{"label=" + dotQuote(label), "shape=" + shape}
		if s.Accepting {
			attrs = append(attrs, "peripheries=2")
		}
		if s.Initial {
			attrs = append(attrs, "penwidth=2")
		}
		if s.Error != "" {
			attrs = append(attrs, "color=red", "fontcolor=red")
		}
		if s.Frontier || s.Rim {
			attrs = append(attrs, "style=dashed")
		}
		if tt := s.Tooltip(); tt != "" {
			attrs = append(attrs, "tooltip="+dotQuote(tt))
		}
		fmt.Fprintf(b, "  %s [%s];\n", s.ID, strings.Join(attrs, ", "))
		if s.Initial {
			// One start point for each initial state (a model may have
			// several); the first keeps its old name.
			start := "__start"
			if starts > 0 {
				start = fmt.Sprintf("__start%d", starts)
			}
			starts++
			fmt.Fprintf(b, "  %s [shape=point, label=\"\"];\n  %s -> %s;\n", start, start, s.ID)
		}
	}
	for _, arc := range d.Arcs() {
		i, t := arc[0], d.Transitions[arc[0]]
		if t.Kind == model.Timeout.String() {
			fmt.Fprintf(b, "  %s -> %s [id=\"t%d\", tooltip=\"timeout\"];\n", t.From, t.To, i)
			continue
		}
		attrs := []string{fmt.Sprintf("id=\"t%d\"", i), "label=" + dotQuote(d.ArcLabel(arc))}
		if t.Kind == model.Internal.String() {
			attrs = append(attrs, "style=dashed")
		}
		fmt.Fprintf(b, "  %s -> %s [%s];\n", t.From, t.To, strings.Join(attrs, ", "))
	}
	b.WriteString("}\n")
	return b.Flush()
}

// FromExploration builds the document of an exploration's state graph,
// with every state's variables.
func FromExploration(x *explore.Exploration) (*Doc, error) {
	return FromExplorationGraph(x, x.Graph())
}

// FromExplorationGraph is FromExploration for g, x's graph built already.
func FromExplorationGraph(x *explore.Exploration, g *explore.Graph) (*Doc, error) {
	w, err := x.Model.NewWorker()
	if err != nil {
		return nil, err
	}
	return FromGraph(g, ExplorationVars(x, g, w)), nil
}

// ExplorationVars returns the variables of the states of g, the graph of
// x, decoded with the worker w.
func ExplorationVars(x *explore.Exploration, g *explore.Graph, w model.Worker) VarsFunc {
	return func(i int) []model.Var {
		vs, _ := x.StateVars(w, int(g.States[i].Model))
		return vs
	}
}

// UnmarshalJSON reads a JSON object of variables, keeping their order.
func (vs *Vars) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("vars: want an object")
	}
	*vs = Vars{}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return err
		}
		var v string
		if err := dec.Decode(&v); err != nil {
			return err
		}
		*vs = append(*vs, Var{Name: k.(string), Value: v})
	}
	_, err := dec.Token()
	return err
}

// Restrict returns the part of the document made of the given states and
// the transitions between them; states with transitions to or from the
// rest are marked frontier.
func (d *Doc) Restrict(keep map[string]bool) *Doc {
	out := &Doc{Stats: d.Stats}
	rim := map[string]bool{}
	for _, t := range d.Transitions {
		switch a, b := keep[t.From], keep[t.To]; {
		case a && b:
			out.Transitions = append(out.Transitions, t)
		case a:
			rim[t.From] = true
		case b:
			rim[t.To] = true
		}
	}
	for _, s := range d.States {
		if keep[s.ID] {
			s.Rim = s.Rim || rim[s.ID]
			out.States = append(out.States, s)
		}
	}
	return out
}

// Neighbourhood returns the part of the document within k steps (either
// direction) of the state with the given id. States on the rim that have
// transitions leading out of the part are marked frontier.
func (d *Doc) Neighbourhood(center string, k int) *Doc {
	adj := map[string][]string{}
	for _, t := range d.Transitions {
		adj[t.From] = append(adj[t.From], t.To)
		adj[t.To] = append(adj[t.To], t.From)
	}
	dist := map[string]int{center: 0}
	queue := []string{center}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if dist[s] == k {
			continue
		}
		for _, n := range adj[s] {
			if _, ok := dist[n]; !ok {
				dist[n] = dist[s] + 1
				queue = append(queue, n)
			}
		}
	}
	keep := make(map[string]bool, len(dist))
	for id := range dist {
		keep[id] = true
	}
	return d.Restrict(keep)
}

// StateIndex returns the index of the state with the given id, or -1.
func (d *Doc) StateIndex(id string) int {
	for i, s := range d.States {
		if s.ID == id {
			return i
		}
	}
	return -1
}

// MaxArcLabels is the number of labels stacked on one arc; more are
// summarized as "+N more" (the tooltip lists them all).
const MaxArcLabels = 6

// Arcs groups the transitions (by index) into the arcs drawn: one arc per
// pair of states and kind of line (timeouts unlabelled, internal dashed,
// the others solid), in the order of their first transitions.
func (d *Doc) Arcs() [][]int {
	type key struct {
		from, to string
		line     int
	}
	at := map[key]int{}
	var arcs [][]int
	for i, t := range d.Transitions {
		k := key{t.From, t.To, 0}
		switch t.Kind {
		case model.Timeout.String():
			k.line = 1
		case model.Internal.String():
			k.line = 2
		}
		j, ok := at[k]
		if !ok {
			j = len(arcs)
			at[k] = j
			arcs = append(arcs, nil)
		}
		arcs[j] = append(arcs[j], i)
	}
	return arcs
}

// ArcShort is an arc's short form, drawn where its label would be too
// small to read: its transitions' distinct action names (observable ones
// prefixed with ?; a quotient's arc, which has no action, names those of its
// label), at most two and "+N" for the rest; "" for a timeout.
func (d *Doc) ArcShort(arc []int) string {
	var names []string
	add := func(name string) {
		if name != "" && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	for _, i := range arc {
		t := &d.Transitions[i]
		switch {
		case t.Kind == model.Timeout.String():
		case t.Action == "":
			// A quotient's arc: "A ×2, ?B ×1" names its actions.
			// Other arcs with a label only (a campaign failure's run,
			// "?Deliver(Client1, …)") are named by it up to the arguments;
			// a failure's arc ("✗ kind") leads to a node that says it.
			quotient := false
			for _, part := range strings.Split(t.Label, ", ") {
				if name, _, ok := strings.Cut(part, " ×"); ok {
					add(name)
					quotient = true
				}
			}
			if !quotient && !strings.HasPrefix(t.Label, "✗") {
				name, _, _ := strings.Cut(t.Label, "(")
				add(name)
			}
		case t.Kind == model.Observable.String():
			add("?" + t.Action)
		default:
			add(t.Action)
		}
	}
	if len(names) > 2 {
		return fmt.Sprintf("%s %s +%d", names[0], names[1], len(names)-2)
	}
	return strings.Join(names, " ")
}

// ArcLabel is the stacked label of an arc: its transitions' labels one per
// line, distinct, at most MaxArcLabels of them.
func (d *Doc) ArcLabel(arc []int) string {
	var labels []string
	seen := map[string]bool{}
	for _, i := range arc {
		l := d.Transitions[i].Label
		if !seen[l] {
			seen[l] = true
			labels = append(labels, l)
		}
	}
	if len(labels) > MaxArcLabels {
		more := len(labels) - (MaxArcLabels - 1)
		labels = append(labels[:MaxArcLabels-1], fmt.Sprintf("+%d more", more))
	}
	return strings.Join(labels, "\n")
}

package graph

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// WriteGraphJSON writes the document FromGraph(g, vars) would make, byte
// for byte as its WriteJSON, but state by state: the document is never held
// in memory whole (a graph of 131,071 states would take hundreds of MB of
// strings), and writing starts at once.
func WriteGraphJSON(w io.Writer, g *explore.Graph, vars VarsFunc, opt JSONOptions) error {
	src := jsonSource{
		n:     len(g.States),
		state: func(i int) explore.GState { return g.States[i] },
		id:    func(i int) string { return g.States[i].ID },
		trans: func(f func(*explore.GTrans) bool) {
			for i := range g.Trans {
				if !f(&g.Trans[i]) {
					return
				}
			}
		},
		stats: g.Stats,
	}
	return writeJSON(w, &src, vars, opt)
}

// WriteExplorationJSON writes what WriteGraphJSON writes for x.Graph(),
// with the variables w decodes, without building the graph: its states and
// transitions are made one at a time (explore.GraphStream). LamportMutex's
// graph of 724,274 states and 2.5 million transitions took 1.6 GB at its
// peak through Graph.
func WriteExplorationJSON(out io.Writer, x *explore.Exploration, w model.Worker, opt JSONOptions) error {
	s := x.GraphStream()
	src := jsonSource{n: s.Len(), state: s.State, id: func(i int) string { return "S" + strconv.Itoa(i) }, trans: s.Trans, stats: s.Stats()}
	vars := func(i int) []model.Var {
		vs, _ := x.StateVars(w, s.Model(i))
		return vs
	}
	return writeJSON(out, &src, vars, opt)
}

// jsonSource is a graph to write: its n states, each state's ID, its
// transitions and statistics.
type jsonSource struct {
	n     int
	state func(i int) explore.GState
	id    func(i int) string
	trans func(f func(*explore.GTrans) bool)
	stats explore.Stats
}

func writeJSON(w io.Writer, g *jsonSource, vars VarsFunc, opt JSONOptions) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var buf []byte
	put := func(first bool) error {
		if !first {
			bw.WriteString(",")
		}
		bw.WriteString("\n  ")
		_, err := bw.Write(buf)
		return err
	}
	bw.WriteString("{\n \"states\": [")
	var ds State
	for i := 0; i < g.n; i++ {
		s := g.state(i)
		ds = State{ID: s.ID, Label: s.Label, Initial: s.Initial, Accepting: s.Accepting, Kind: string(s.Kind), Error: s.Error, Frontier: s.Frontier, Vars: ds.Vars[:0], Count: s.Count}
		if vars != nil {
			for _, v := range vars(i) {
				ds.Vars = append(ds.Vars, Var{Name: v.Name, Value: model.Format(v.Value)})
			}
		}
		buf = appendStateJSON(buf[:0], &ds)
		if err := put(i == 0); err != nil {
			return err
		}
	}
	closeArray(bw, g.n)
	bw.WriteString(",\n \"transitions\": [")
	n := 0
	var err error
	g.trans(func(t *explore.GTrans) bool {
		dt := Transition{From: g.id(t.From), To: g.id(t.To), Action: t.Action, Args: t.ArgStrings(), Output: t.OutputString(), Kind: t.Kind.String(), Label: t.Label()}
		buf = appendTransitionJSON(buf[:0], &dt)
		err = put(n == 0)
		n++
		return err == nil
	})
	if err != nil {
		return err
	}
	closeArray(bw, n)
	stats := g.stats
	if opt.NoTiming {
		stats.Seconds = 0
	}
	b, err := json.MarshalIndent(stats, " ", " ")
	if err != nil {
		return err
	}
	bw.WriteString(",\n \"stats\": ")
	bw.Write(b)
	bw.WriteString("\n}\n")
	return bw.Flush()
}

func closeArray(bw *bufio.Writer, n int) {
	if n > 0 {
		bw.WriteString("\n ")
	}
	bw.WriteString("]")
}

package graph

import (
	"bufio"
	"encoding/json"
	"io"

	"github.com/modex/modex/engine/explore"
	"github.com/modex/modex/engine/model"
)

// WriteGraphJSON writes the document FromGraph(g, vars) would make, byte
// for byte as its WriteJSON, but state by state: the document is never held
// in memory whole (a graph of 131,071 states would take hundreds of MB of
// strings), and writing starts at once.
func WriteGraphJSON(w io.Writer, g *explore.Graph, vars VarsFunc, opt JSONOptions) error {
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
	for i, s := range g.States {
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
	closeArray(bw, len(g.States))
	bw.WriteString(",\n \"transitions\": [")
	for i := range g.Trans {
		t := &g.Trans[i]
		dt := Transition{From: g.States[t.From].ID, To: g.States[t.To].ID, Action: t.Action, Args: t.ArgStrings(), Output: t.OutputString(), Kind: t.Kind.String(), Label: t.Label()}
		buf = appendTransitionJSON(buf[:0], &dt)
		if err := put(i == 0); err != nil {
			return err
		}
	}
	closeArray(bw, len(g.Trans))
	stats := g.Stats
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

package cgraph

import "github.com/goccy/go-graphviz/internal/wasm"

// setEnums gives the package's variables that copy the WASM module's enum
// values (declared with upstream's initialisers, which ran before the
// module was loaded and so hold placeholders) their loaded values (Modex;
// see MODEX.md). Load calls it once, after wasm.Load.
func setEnums() {
	GRAPH = ObjectTag(wasm.GRAPH)
	NODE = ObjectTag(wasm.NODE)
	OUTEDGE = ObjectTag(wasm.OUT_EDGE)
	INEDGE = ObjectTag(wasm.IN_EDGE)
	EDGE = ObjectTag(wasm.EDGE)
}

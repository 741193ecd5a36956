package projects

import (
	"context"
	"strings"
	"testing"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/engine/model"
)

// earliest is compiled like timeout, with file:line:col errors, and
// inherited through extends.
func TestEarliestConfig(t *testing.T) {
	const head = "name = \"x\"\nmodel = \"chat.star\"\n[configs.a]\n"
	for _, tc := range []struct {
		name, text, pos, msg string
	}{
		{"syntax", head + "earliest = \"0.1 if\"\n", ":4:", "in expression `0.1 if`"},
		{"undefined", head + "earliest = \"0.1 if pendng(s) else 0\"\n", ":4:20", "undefined: pendng"},
		{"wrong type", head + "earliest = 0.1\n", ":4:", "earliest"},
		{"in extended", head + "earliest = \"(\"\n[configs.b]\nextends = \"a\"\n", ":4:", "in expression `(`"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeProject(t, tc.text)
			err := buildAll(path)
			if err == nil {
				t.Fatal("accepted a bad earliest")
			}
			if !strings.HasPrefix(err.Error(), path+tc.pos) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error:\n  %v\nwant it to start with %s%s and mention %q", err, path, tc.pos, tc.msg)
			}
		})
	}
	path := writeProject(t, head+"earliest = \"0.1 if pending(s) else 0\"\n[configs.b]\nextends = \"a\"\n[configs.c]\n")
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.LoadModel()
	if err != nil {
		t.Fatal(err)
	}
	for conf, want := range map[string]string{"a": "0.1 if pending(s) else 0", "b": "0.1 if pending(s) else 0", "c": ""} {
		cfg, err := p.Build(m, conf)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if cfg.Earliest != nil {
			got = cfg.Earliest.Source()
		}
		if got != want {
			t.Errorf("configuration %s: earliest %q, want %q", conf, got, want)
		}
	}
}

// [replay] time_attr and time_unit reach the replay configuration; a
// time_unit that is no number of seconds above 0, or one without
// time_attr, is an error at its place.
func TestReplayTimeConfig(t *testing.T) {
	const head = "name = \"x\"\nmodel = \"chat.star\"\n[configs.a]\n[replay]\n"
	for _, tc := range []struct {
		name, text, pos, msg string
	}{
		{"negative", head + "time_attr = \"time\"\ntime_unit = -1.0\n", ":6:13", "time_unit must be"},
		{"zero", head + "time_attr = \"time\"\ntime_unit = 0.0\n", ":6:13", "time_unit must be"},
		{"infinite", head + "time_attr = \"time\"\ntime_unit = inf\n", ":6:13", "time_unit must be"},
		{"no attribute", head + "time_unit = 0.001\n", ":5:1", "time_unit without time_attr"},
		{"not a number", head + "time_attr = \"time\"\ntime_unit = \"ms\"\n", ":6:", "time_unit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := replayConfigOf(t, tc.text)
			if err == nil {
				t.Fatal("accepted a bad time_unit")
			}
			if !strings.Contains(err.Error(), "p.toml"+tc.pos) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error:\n  %v\nwant p.toml%s and %q", err, tc.pos, tc.msg)
			}
		})
	}
	rc, err := replayConfigOf(t, head+"time_attr = \"time\"\ntime_unit = 0.000001\n")
	if err != nil || rc.TimeAttr != "time" || rc.TimeUnit != 0.000001 {
		t.Errorf("time_attr/time_unit: %+v, %v", rc, err)
	}
	if rc, err = replayConfigOf(t, head+"time_attr = \"t\"\n"); err != nil || rc.TimeAttr != "t" || rc.TimeUnit != 0 {
		t.Errorf("time_attr alone (unit: the default, seconds): %+v, %v", rc, err)
	}
}

// replayConfigOf loads a project written next to the chat model and
// builds its replay configuration.
func replayConfigOf(t *testing.T, text string) (conform.ReplayConfig, error) {
	t.Helper()
	p, err := Load(writeProject(t, text))
	if err != nil {
		return conform.ReplayConfig{}, err
	}
	m, err := p.LoadModel()
	if err != nil {
		t.Fatal(err)
	}
	return p.ReplayConfig(m)
}

// The thread pool's traces give times in microseconds (time_unit =
// 0.000001): with no earliest they replay as before; with an earliest of
// a second every event of the pool comes too soon, the first one judged
// (its second record) failing.
func TestThreadPoolTimes(t *testing.T) {
	p, m, cfg := sample(t, "threadpool", "")
	p.Replay.TimeAttr, p.Replay.TimeUnit = "time", 0.000001
	rc, err := p.ReplayConfig(m)
	if err != nil {
		t.Fatal(err)
	}
	replay := func() *conform.ReplayResult {
		t.Helper()
		tr, closer, err := conform.OpenTrace("threadpool/traces/correct-1.xml")
		if err != nil {
			t.Fatal(err)
		}
		defer closer.Close()
		res, err := conform.ReplayTrace(context.Background(), m, cfg, tr, rc)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := replay(); res.Verdict != conform.Pass {
		t.Fatalf("no earliest: %s %+v", res.Verdict, res.Failure)
	}
	if cfg.Earliest, err = m.Compile("1", model.Pos{File: "t"}); err != nil {
		t.Fatal(err)
	}
	res := replay()
	if f := res.Failure; res.Verdict != conform.Fail || f == nil || f.Line != 3 ||
		!strings.HasPrefix(f.Message, "?starting(") || !strings.Contains(f.Message, " µs; the model says not before 1 s (earliest `1` in this state)") {
		t.Errorf("earliest 1 s: %s %+v", res.Verdict, f)
	}
}

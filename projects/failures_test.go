package projects

import (
	"testing"

	"github.com/modex/modex/engine/conform"
)

// The command lines printed to run a failure again quote every word that a
// shell would not take as it is.
func TestRerunCommands(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{RerunCommand("projects/chat/chat.toml", "", "/home/u/.cache/modex/failures/chat/chat-hi_bye-seed3-run1-1a2b3c.json"),
			"modex test projects/chat/chat.toml --rerun /home/u/.cache/modex/failures/chat/chat-hi_bye-seed3-run1-1a2b3c.json"},
		{RerunCommand("my projects/chat.toml", "x; touch /tmp/pwned #", "it's.json"),
			`modex test 'my projects/chat.toml' --config 'x; touch /tmp/pwned #' --rerun 'it'\''s.json'`},
		{SameChoicesCommand("chat.toml", "hi_bye", 42, 100, conform.StrategyRandom),
			"modex test chat.toml --config hi_bye --runs 1 --seed 42 --steps 100 --strategy random"},
		{SameChoicesCommand("$(id).toml", "esc\x1b[31m", 1, 5, conform.StrategyCoverage),
			`modex test '$(id).toml' --config $'esc\x1b[31m' --runs 1 --seed 1 --steps 5 --strategy coverage`},
	} {
		if c.got != c.want {
			t.Errorf("got  %s\nwant %s", c.got, c.want)
		}
	}
}

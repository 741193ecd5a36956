package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every numeric flag of every command refuses a value out of its range:
// exit 2, and a message that names the flag and what it takes — never a
// default put in its place.
func TestNumericFlagsRefuseOutOfRange(t *testing.T) {
	const (
		chat  = "../projects/chat/chat.toml"
		reg   = "../projects/register/register.toml"
		hist  = "../projects/register/histories/etcd_000.log"
		suite = "suite.json" // refused before it is read
	)
	for _, tc := range []struct {
		args []string
		want string // after `invalid value "V" for flag --NAME: `
	}{
		{[]string{"explore", chat, "--workers", "-1"}, "must be 0 (the number of CPUs) to 1024"},
		{[]string{"explore", chat, "--workers", "1025"}, "must be 0 (the number of CPUs) to 1024"},
		{[]string{"test", chat, "--runs", "0"}, "must be at least 1 (leave it out for the project's [test] runs"},
		{[]string{"test", chat, "--runs", "-3"}, "must be at least 1"},
		{[]string{"test", chat, "--runs", "many"}, "not an integer: must be at least 1"},
		{[]string{"test", chat, "--steps", "-5"}, "must be at least 1 (leave it out for the project's [test] steps, or 100)"},
		{[]string{"test", chat, "--steps", "0"}, "must be at least 1"},
		{[]string{"test", chat, "--total-steps", "-1"}, "must be 0 (no bound) or more"},
		{[]string{"test", chat, "--seed", "-2"}, "must be -1 (the project's seed, else one from the clock) or a seed of 0 or more"},
		{[]string{"test", chat, "--end-wait", "0"}, "must be a number of seconds above 0, at most a week"},
		{[]string{"test", chat, "--end-wait", "-1"}, "must be a number of seconds above 0"},
		{[]string{"test", chat, "--end-wait", "NaN"}, "not a number"},
		{[]string{"test", chat, "--end-wait", "+Inf"}, "not a number"},
		{[]string{"test", chat, "--end-wait", "1e10"}, "must be a number of seconds above 0, at most a week"},
		{[]string{"test", chat, "--shrink-repeats", "0"}, "must be at least 1"},
		{[]string{"test", chat, "--shrink-runs", "-1"}, "must be 0 (no bound) or more"},
		{[]string{"test", chat, "--shrink-time", "0"}, "must be a number of seconds above 0"},
		{[]string{"run", chat, suite, "--end-wait", "0"}, "must be a number of seconds above 0"},
		{[]string{"run", chat, suite, "--end-wait", "-2.5"}, "must be a number of seconds above 0"},
		{[]string{"replay", reg, hist, "--window", "-2"}, "must be -1 (the project's window) or 0 or more"},
		{[]string{"replay", reg, hist, "--max-states", "0"}, "must be at least 1 (leave it out for the project's max_states, else 1000)"},
		{[]string{"replay", reg, hist, "--max-states", "-1"}, "must be at least 1"},
		{[]string{"replay", reg, hist, "--time-budget", "0s"}, "must be a duration above 0, as 30s or 5m (leave it out for the project's time_budget, else 60s)"},
		{[]string{"replay", reg, hist, "--time-budget", "-5s"}, "must be a duration above 0"},
		{[]string{"replay", reg, hist, "--time-budget", "5"}, "not a duration (as 30s or 5m)"},
		{[]string{"campaign", chat, "--runs", "0"}, "must be at least 1"},
		{[]string{"campaign", chat, "--steps", "-1"}, "must be at least 1"},
		{[]string{"campaign", chat, "--seed", "-3"}, "must be -1"},
		{[]string{"campaign", chat, "--workers", "-1"}, "must be 0 to 1024 (0 with --nats only: no local worker)"},
		{[]string{"campaign", chat, "--job-runs", "0"}, "must be at least 1"},
		{[]string{"campaign", chat, "--runs", "1000000001"}, "must be at least 1 and at most 1000000000"},
		{[]string{"campaign", chat, "--job-runs", "100001"}, "must be at least 1 and at most 100000"},
		{[]string{"campaign", chat, "--job-ttl", "0s"}, "must be above 0, at most 720h0m0s"},
		{[]string{"campaign", chat, "--ack-wait", "0"}, "must be a number of seconds above 0"},
		{[]string{"campaign", chat, "--max-deliver", "0"}, "must be at least 1"},
		{[]string{"campaign", chat, "--replicas", "0"}, "must be 1 to 5"},
		{[]string{"campaign", chat, "--replicas", "6"}, "must be 1 to 5"},
		{[]string{"campaign", chat, "--shrink-time", "-1"}, "must be a number of seconds above 0"},
	} {
		flagName, value := tc.args[len(tc.args)-2], tc.args[len(tc.args)-1]
		t.Run(tc.args[0]+" "+flagName+" "+value, func(t *testing.T) {
			_, errOut, code := cli(tc.args...)
			want := `invalid value "` + value + `" for flag ` + flagName + ": " + tc.want
			if code != 2 || !strings.Contains(errOut, want) {
				t.Errorf("exit %d, %q\nwant exit 2 and %q", code, firstLine(errOut), want)
			}
		})
	}
	// A campaign on the embedded server without workers would never end.
	if _, errOut, code := cli("campaign", chat, "--workers", "0"); code != 2 || !strings.Contains(errOut, "--workers 0 runs no job") {
		t.Errorf("campaign --workers 0: exit %d %q", code, firstLine(errOut))
	}
	// The values that stand for a default or none are taken.
	for _, args := range [][]string{
		{"explore", chat, "--workers", "0"},
		{"replay", reg, "../projects/register/histories/etcd_002.log", "--window", "-1", "--max-states", "1", "--time-budget", "1ms"},
	} {
		if _, errOut, code := cli(args...); code == 2 {
			t.Errorf("modex %s: exit 2: %s", strings.Join(args, " "), firstLine(errOut))
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// No command declares a numeric flag that takes any value: they are all
// declared with their range (flags.go).
func TestNumericFlagsAreRanged(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	bare := regexp.MustCompile(`\.(Int|Int64|Uint|Uint64|Float64|Duration)(Var)?\(`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		for i, line := range strings.Split(string(readFile(t, f)), "\n") {
			if bare.MatchString(line) && strings.Contains(line, "fs.") {
				t.Errorf("%s:%d: a numeric flag without its range: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}

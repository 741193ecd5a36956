package safetext

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTerm(t *testing.T) {
	for _, c := range []struct{ in, term, text string }{
		{"", "", ""},
		{"plain name-1.2", "plain name-1.2", "plain name-1.2"},
		{"a\x1b[31mred\x1b[0m", `a\x1b[31mred\x1b[0m`, `a\x1b[31mred\x1b[0m`},
		{"title\x1b]0;pwned\x07", `title\x1b]0;pwned\x07`, `title\x1b]0;pwned\x07`},
		{"two\nlines\tand\rback", `two\nlines\tand\rback`, "two\nlines\tand\\rback"},
		{"nul\x00del\x7f", `nul\x00del\x7f`, `nul\x00del\x7f`},
		{"c1\u009b31m\u0085", `c1\u009b31m\u0085`, `c1\u009b31m\u0085`},
		{"bidi\u202egnp.exe\u202c\u2066x\u2069", `bidi\u202egnp.exe\u202c\u2066x\u2069`, `bidi\u202egnp.exe\u202c\u2066x\u2069`},
		{"bad\xff\x9butf8\xe2\x80", `bad\xff\x9butf8\xe2\x80`, `bad\xff\x9butf8\xe2\x80`},
		{"kept: é ü 日本 \u200f \\x1b \"q\"", "kept: é ü 日本 \u200f \\x1b \"q\"", "kept: é ü 日本 \u200f \\x1b \"q\""},
		{"\u2029 \u00a0 \ufffd", "\u2029 \u00a0 \ufffd", "\u2029 \u00a0 \ufffd"},
	} {
		if got := Term(c.in); got != c.term {
			t.Errorf("Term(%q) = %q, want %q", c.in, got, c.term)
		}
		if got := TermText(c.in); got != c.text {
			t.Errorf("TermText(%q) = %q, want %q", c.in, got, c.text)
		}
	}
}

func TestTermIndented(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"one line", "one line"},
		{"exited; stderr:\npanic: \x1b[31mboom\n\tat main.go:3\n\n", "exited; stderr:\n    panic: \\x1b[31mboom\n    \tat main.go:3"},
		{"refused\r\nrun 2/2: pass", "refused\\r\n    run 2/2: pass"},
	} {
		if got := TermIndented(c.in, "    "); got != c.want {
			t.Errorf("TermIndented(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestTermPlainNoCopy(t *testing.T) {
	s := "run 1/10 (seed 4): pass, 12 steps"
	if n := testing.AllocsPerRun(100, func() { _ = Term(s); _ = TermText(s); _ = XML(s) }); n != 0 {
		t.Errorf("plain text allocates %.0f times", n)
	}
}

func TestTermWriter(t *testing.T) {
	var b bytes.Buffer
	w := &TermWriter{W: &b}
	n, err := io.WriteString(w, "verdict\x1b[2K: pass\n\tindented\u202e\n")
	if err != nil || n != len("verdict\x1b[2K: pass\n\tindented\u202e\n") {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if want := "verdict\\x1b[2K: pass\n\tindented\\u202e\n"; b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
	b.Reset()
	if n, err := io.WriteString(w, "run 1/2 (seed 3): pass\n\tplain\n"); err != nil || n != 30 || b.String() != "run 1/2 (seed 3): pass\n\tplain\n" {
		t.Errorf("plain text: %d, %v, %q", n, err, b.String())
	}
	if _, err := (&TermWriter{W: failWriter{}}).Write([]byte("x")); err == nil {
		t.Error("an error of W is not returned")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("closed") }

func TestShell(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "''"},
		{"hi_bye", "hi_bye"},
		{"projects/chat/chat.toml", "projects/chat/chat.toml"},
		{"/home/u/.cache/modex/failures/chat-x-seed1.json", "/home/u/.cache/modex/failures/chat-x-seed1.json"},
		{"a=b,c+d@e:f%g", "a=b,c+d@e:f%g"},
		{"x; touch /tmp/pwned #", "'x; touch /tmp/pwned #'"},
		{"it's", `'it'\''s'`},
		{"$(id) `id` $HOME ~ * ? [a] {b,c} !x & | > <", "'$(id) `id` $HOME ~ * ? [a] {b,c} !x & | > <'"},
		{"back\\slash", `'back\slash'`},
		{"über", "'über'"},
		{"esc\x1b[31m", `$'esc\x1b[31m'`},
		{"new\nline 'q' \\", `$'new\x0aline \'q\' \\'`},
		{"rlo\u202e", `$'rlo\xe2\x80\xae'`},
		{"bad\xff", `$'bad\xff'`},
	} {
		if got := Shell(c.in); got != c.want {
			t.Errorf("Shell(%q) = %s, want %s", c.in, got, c.want)
		}
	}
	if got := Command("modex", "test", "p.toml", "--config", "x; y"); got != "modex test p.toml --config 'x; y'" {
		t.Errorf("Command = %s", got)
	}
}

// TestShellRoundTrip runs quoted words through real shells: each comes out
// as the word it was. The $'...' form needs bash (dash 0.5.12 does
// not know it).
func TestShellRoundTrip(t *testing.T) {
	words := []string{"", "plain", "x; touch /tmp/pwned #", "it's", `a\b`, "$(id) `id` $HOME * ~ !x", "  spaced  ", "'", "''", "über 日本",
		"esc\x1b[31m", "new\nline", "tab\there", "rlo\u202e'q'\\", "bad\xff\xfe", "del\x7f c1\u0085"}
	for _, sh := range []string{"/bin/sh", "bash"} {
		path, err := exec.LookPath(sh)
		if err != nil {
			t.Logf("no %s: %v", sh, err)
			continue
		}
		for _, w := range words {
			q := Shell(w)
			if sh == "/bin/sh" && strings.HasPrefix(q, "$'") {
				continue
			}
			if Term(q) != q {
				t.Errorf("Shell(%q) = %q puts raw control characters on the terminal", w, q)
			}
			out, err := exec.Command(path, "-c", "printf '%s|' "+q).Output()
			if err != nil {
				t.Errorf("%s -c printf %s: %v", sh, q, err)
				continue
			}
			if got := strings.TrimSuffix(string(out), "|"); got != w {
				t.Errorf("%s: %s gave %q, want %q", sh, q, got, w)
			}
		}
	}
}

func TestXML(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{`<script>&amp;"'`, "&lt;script&gt;&amp;amp;&#34;&#39;"},
		{"ctl\x01\x1b\x7f\u0085\u202e", `ctl\x01\x1b\x7f\u0085\u202e`},
		{"ws\t\n\r", "ws\t\n\r"},
		{"non\ufffe\uffff", `non\ufffe\uffff`},
		{"bad\xff\xc3", "bad\ufffd\ufffd"},
		{"日本 é", "日本 é"},
	} {
		if got := XML(c.in); got != c.want {
			t.Errorf("XML(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// parseXML parses doc with encoding/xml, to its end.
func parseXML(doc string) error {
	d := xml.NewDecoder(strings.NewReader(doc))
	for {
		if _, err := d.Token(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// FuzzSafeText checks the escapers on any input: Term leaves no control
// character, bidi character or invalid UTF-8, and TermText none but \n and
// \t, both leaving safe text as it is; TermIndented's later lines all
// start with its indent; Shell's word is terminal-safe and
// round-trips through a shell's quoting rules (checked by unquote); XML's
// text parses with encoding/xml, in an element and in an attribute.
func FuzzSafeText(f *testing.F) {
	for _, s := range []string{"", "plain", "x; touch /tmp/pwned #", "it's", "a\x1b[31mb", "\u202e\u2066", "\xff\xfe", "\u009b",
		"line\nnext\ttab\r", "&lt;script&gt;", "\ufffe\uffff", "\x00", "'\\'", "日本"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, out := range map[string]string{"Term": Term(s), "TermText": TermText(s)} {
			if !utf8.ValidString(out) {
				t.Errorf("%s(%q) = %q is not UTF-8", name, s, out)
			}
			for _, r := range out {
				if unsafeRune(r) && !(name == "TermText" && keepLayout(r)) {
					t.Fatalf("%s(%q) = %q holds %U", name, s, out, r)
				}
			}
		}
		for i, line := range strings.Split(TermIndented(s, "  | "), "\n") {
			if i > 0 && !strings.HasPrefix(line, "  | ") {
				t.Fatalf("TermIndented(%q): line %d %q is not indented", s, i, line)
			}
		}
		if Term(Term(s)) != Term(s) || TermText(TermText(s)) != TermText(s) {
			t.Errorf("escaping %q twice changes it", s)
		}
		q := Shell(s)
		if Term(q) != q {
			t.Errorf("Shell(%q) = %q is not terminal-safe", s, q)
		}
		if got, ok := unquote(q); !ok || got != s {
			t.Errorf("Shell(%q) = %s reads back as %q (%v)", s, q, got, ok)
		}
		x := XML(s)
		if err := parseXML("<a b=\"" + x + "\">" + x + "</a>"); err != nil {
			t.Errorf("XML(%q) = %q: %v", s, x, err)
		}
	})
}

// unquote reads one word written by Shell as a shell would: bare, '...'
// pieces with \' between them, or $'...' with \\, \' and \xNN.
func unquote(q string) (string, bool) {
	var b strings.Builder
	if strings.HasPrefix(q, "$'") && strings.HasSuffix(q, "'") && len(q) >= 3 {
		body := q[2 : len(q)-1]
		for i := 0; i < len(body); i++ {
			c := body[i]
			switch {
			case c == '\'':
				return "", false
			case c != '\\':
				b.WriteByte(c)
			case i+1 < len(body) && (body[i+1] == '\\' || body[i+1] == '\''):
				b.WriteByte(body[i+1])
				i++
			case i+3 < len(body) && body[i+1] == 'x':
				v := 0
				for _, h := range body[i+2 : i+4] {
					d := strings.IndexRune(hexDigits, h)
					if d < 0 {
						return "", false
					}
					v = v*16 + d
				}
				b.WriteByte(byte(v))
				i += 3
			default:
				return "", false
			}
		}
		return b.String(), true
	}
	for i := 0; i < len(q); {
		switch c := q[i]; {
		case c == '\'':
			end := strings.IndexByte(q[i+1:], '\'')
			if end < 0 {
				return "", false
			}
			b.WriteString(q[i+1 : i+1+end])
			i += end + 2
		case c == '\\' && i+1 < len(q):
			b.WriteByte(q[i+1])
			i += 2
		case shellBare(c):
			b.WriteByte(c)
			i++
		default:
			return "", false
		}
	}
	return b.String(), true
}

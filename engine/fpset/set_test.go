package fpset

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// spread maps a number to a fingerprint-like value, uniform over 64 bits
// (splitmix64's finaliser, a bijection), never 0.
func spread(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return max(x, 1)
}

// XXH64's reference values (seed 0), from xxHash's own tests.
func TestFingerprintIsXXH64(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
	}{
		{"", 0xef46db3751d8e999},
		{"a", 0xd24ec4f1a98c6e5b},
		{"as", 0x1c330fb2d66be179},
		{"asd", 0x631c37ce72a97393},
		{"asdf", 0x415872f599cea71e},
		{"Call me Ishmael. Some years ago--never mind how long precisely-", 0x02a2e85470d6fd96},
	} {
		if got := Fingerprint(tc.in); got != tc.want {
			t.Errorf("Fingerprint(%q) = %#x, want %#x", tc.in, got, tc.want)
		}
	}
}

// checker adds fingerprints to a set as the checking mode does (resolving
// when the set is full and at the end), and keeps a map of what it added,
// to compare every answer with.
type checker struct {
	t       *testing.T
	s       *Set
	seen    map[uint64]bool
	pending map[uint64]bool // pending in the set, with the map's answer
	added   int             // answered new (Added, or Pending and then new)
}

func newChecker(t *testing.T, opts Options) *checker {
	t.Helper()
	opts.Dir = t.TempDir()
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return &checker{t: t, s: s, seen: map[uint64]bool{}, pending: map[uint64]bool{}}
}

func (c *checker) add(fp uint64) {
	c.t.Helper()
	r, err := c.s.Add(fp)
	if err != nil {
		c.t.Fatal(err)
	}
	was := c.seen[fp]
	c.seen[fp] = true
	switch r {
	case Known:
		if !was {
			c.t.Fatalf("%#x: Known, but never added", fp)
		}
	case Added:
		if was {
			c.t.Fatalf("%#x: Added, but added before", fp)
		}
		c.added++
	case Pending:
		if _, dup := c.pending[fp]; dup {
			c.t.Fatalf("%#x: Pending twice in a batch", fp)
		}
		c.pending[fp] = !was
	}
	if c.s.Full() {
		c.resolve()
	}
}

func (c *checker) resolve() {
	c.t.Helper()
	err := c.s.Resolve(func(v *Verdict) error {
		if v.Len() != len(c.pending) {
			c.t.Fatalf("verdict on %d fingerprints, %d pending", v.Len(), len(c.pending))
		}
		for fp, isNew := range c.pending {
			if v.New(fp) != isNew {
				c.t.Fatalf("%#x: new %v, want %v", fp, v.New(fp), isNew)
			}
			if isNew {
				c.added++
			}
		}
		return nil
	})
	if err != nil {
		c.t.Fatal(err)
	}
	clear(c.pending)
}

// finish resolves the rest and checks the whole set against the map.
func (c *checker) finish() Summary {
	c.t.Helper()
	c.resolve()
	if c.added != len(c.seen) {
		c.t.Errorf("%d answered new, %d distinct added", c.added, len(c.seen))
	}
	sum, err := c.s.Finish()
	if err != nil {
		c.t.Fatal(err)
	}
	if sum.Distinct != int64(len(c.seen)) {
		c.t.Errorf("Finish counts %d distinct, %d added", sum.Distinct, len(c.seen))
	}
	return sum
}

// Random fingerprints, many of them repeated, through a table of a few
// thousand slots: the set spills dozens of times and merges its files;
// every answer (Known, Added, a verdict) is the map's.
func TestSetAgainstMap(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	for _, tc := range []struct {
		name           string
		n              int
		memory, spread int64
		maxFiles       int
	}{
		// About 130 spills, each merged with the last.
		{"tiny table, few files", n / 10, 8 << 10, 1 << 62, 2},
		{"repeats", n, 64 << 10, int64(n) / 3, 4},
		{"large files, sparse lookups", n, int64(n), 1 << 62, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newChecker(t, Options{MemoryBytes: tc.memory, PendingBytes: tc.memory / 4, MaxFiles: tc.maxFiles})
			r := rand.New(rand.NewPCG(1, uint64(tc.memory)))
			for i := range tc.n {
				x := uint64(r.Int64N(tc.spread))
				if i%2 == 0 {
					c.add(Fingerprint("key " + strconv.FormatUint(x, 10))) // a key's fingerprint
				} else {
					c.add(spread(x))
				}
			}
			c.finish()
			st := c.s.Stats()
			if st.Spills < 2 || st.Merges < 1 || st.Files > tc.maxFiles {
				t.Errorf("%d spills, %d merges, %d files: the case did not exercise the disk", st.Spills, st.Merges, st.Files)
			}
			if st.LookedUp == 0 || st.PagesRead == 0 {
				t.Errorf("%+v: nothing looked up on disk", st)
			}
			dir := c.s.opts.Dir
			if err := c.s.Close(); err != nil {
				t.Fatal(err)
			}
			if es, _ := os.ReadDir(dir); len(es) != 0 {
				t.Errorf("%d files left after Close", len(es))
			}
		})
	}
}

// A fingerprint pending twice in one batch is Known the second time (the
// table has it); one on disk and in the table again (a pending one found
// on disk stays in the table, which is spilled later) is in two files,
// and the merge keeps one.
func TestSetDuplicates(t *testing.T) {
	c := newChecker(t, Options{MemoryBytes: 16 * 8, PendingBytes: 1 << 10, MaxFiles: 100})
	for fp := uint64(1); fp <= 12; fp++ {
		c.add(fp * 1000)
	}
	if c.s.Stats().Spills != 1 {
		t.Fatalf("%+v: the full table was not spilled", c.s.Stats())
	}
	c.add(5000) // on disk: pending, then not new
	c.add(5000) // the table has it now
	c.add(7)
	c.add(7)
	if c.s.PendingLen() != 2 {
		t.Fatalf("%d pending, want 2", c.s.PendingLen())
	}
	c.resolve()
	for fp := uint64(100); len(c.seen) < 30; fp++ {
		c.add(fp)
	}
	c.resolve()
	if err := c.s.Spill(); err != nil {
		t.Fatal(err)
	}
	if c.s.Stats().Files < 3 {
		t.Fatalf("%d files", c.s.Stats().Files)
	}
	if err := c.s.mergeFiles(); err != nil { // 5000 is in two of them
		t.Fatal(err)
	}
	if got := c.s.files[0].n; got != int64(len(c.seen)) {
		t.Errorf("the merged file holds %d fingerprints, %d distinct were added", got, len(c.seen))
	}
	c.finish()
}

// A verdict answers false for a fingerprint that was not pending; Add
// refuses 0, and a full table until it is resolved.
func TestSetRefusals(t *testing.T) {
	s, err := New(Options{Dir: t.TempDir(), MemoryBytes: 16 * 8, PendingBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Add(0); err == nil {
		t.Error("Add(0) accepted")
	}
	for fp := uint64(1); fp <= 12; fp++ {
		s.Add(fp)
	}
	if err := s.Resolve(nil); err != nil {
		t.Fatal(err)
	}
	full := 0
	for fp := uint64(100); fp < 200; fp++ {
		if _, err := s.Add(fp); err == ErrFull {
			full++
		}
	}
	if full == 0 {
		t.Error("a full table took every fingerprint")
	}
	err = s.Resolve(func(v *Verdict) error {
		if v.New(12345) || !v.New(100) {
			t.Errorf("verdict: 12345 new %v, 100 new %v", v.New(12345), v.New(100))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(Options{Dir: "/nonexistent/folder"}); err == nil {
		t.Error("a set in a missing folder")
	}
}

func TestCollision(t *testing.T) {
	// 10^8 distinct among 8·10^8 generated: 10^8·7·10^8/2^64.
	if p := Collision(1e8, 8e8); p < 3.7e-3 || p > 3.9e-3 {
		t.Errorf("Collision(1e8, 8e8) = %g", p)
	}
	if Collision(10, 5) != 0 || CollisionFromGap(0) != 0 || CollisionFromGap(4) != 0.25 {
		t.Error("degenerate cases")
	}
}

// A doubling that would hold the old and the new table past the bound
// goes through a file: the table never takes more than the bound, and
// keeps every fingerprint.
func TestSetGrowsThroughDisk(t *testing.T) {
	var lived, most int64
	c := newChecker(t, Options{MemoryBytes: 100_000 * 8, OnMemory: func(d int64) {
		lived += d
		most = max(most, lived)
	}})
	for i := range uint64(70_000) {
		c.add(spread(i))
	}
	st := c.s.Stats()
	if st.GrownOnDisk != 1 || st.Spills != 0 || st.MemoryBytes != 100_000*8 || most > 100_000*8 {
		t.Errorf("%+v, at most %d bytes", st, most)
	}
	for i := range uint64(70_000) {
		if !c.s.Contains(spread(i)) {
			t.Fatalf("%d lost", i)
		}
	}
	if es, _ := os.ReadDir(c.s.opts.Dir); len(es) != 0 {
		t.Errorf("%d files left", len(es))
	}
	c.finish()
	c.s.Close()
	if lived != 0 {
		t.Errorf("%d bytes still counted after Close", lived)
	}
}

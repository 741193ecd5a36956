package campaign

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/modex/modex/engine/conform"
	"github.com/modex/modex/projects"
)

// These tests play the attacker of docs/campaigns.md: another local
// account, or another client of a shared server, trying to read a
// campaign, run its own code on a worker, or forge results.

// The embedded server listens on no port at all, and even a client in the
// same process needs its fresh credentials.
func TestEmbeddedServerAdmitsOnlyItsCampaign(t *testing.T) {
	e, err := StartEmbedded(filepath.Join(t.TempDir(), "nats"))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Shutdown()
	if addr := e.srv.Addr(); addr != nil {
		t.Fatalf("the embedded server listens on %v", addr)
	}
	if st, err := os.Stat(filepath.Join(filepath.Dir(e.srv.StoreDir()))); err == nil && st.Mode().Perm()&0o077 != 0 {
		t.Errorf("the streams' folder is open to others: %v", st.Mode().Perm())
	}
	for name, auth := range map[string]Auth{
		"no credentials":     {inProcess: e.srv},
		"a wrong password":   {inProcess: e.srv, User: e.auth.User, Password: "guess"},
		"another user's one": {inProcess: e.srv, User: "modex", Password: e.auth.Password},
	} {
		nc, err := nats.Connect("", nats.InProcessServer(e.srv), nats.UserInfo(auth.User, auth.Password), nats.MaxReconnects(0))
		if err == nil {
			nc.Close()
			t.Errorf("%s: connected", name)
		}
	}
	nc, err := connect("", "campaign", e.Auth())
	if err != nil {
		t.Fatalf("with its credentials: %v", err)
	}
	nc.Close()
}

// jobOn publishes a job signed by key for a bundle made of files (put in
// the project store), and returns the job.
func jobOn(t *testing.T, url string, signer interface {
	Sign([]byte) ([]byte, error)
	PublicKey() (string, error)
}, b bundle, job Job) Job {
	t.Helper()
	nc, err := connect(url, "attacker", Auth{})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, obj, err := setup(ctx, js, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(&b)
	sum := sha256.Sum256(raw)
	hash := hex.EncodeToString(sum[:])
	if _, err := obj.PutBytes(ctx, hash, raw); err != nil {
		t.Fatal(err)
	}
	job.Bundle = hash
	if job.Expires == 0 {
		job.Expires = time.Now().Add(time.Hour).Unix()
	}
	data, _ := json.Marshal(&job)
	m := nats.NewMsg("modex.jobs." + job.Campaign)
	m.Data = data
	if signer != nil {
		sig, _ := signer.Sign(data)
		pub, _ := signer.PublicKey()
		m.Header.Set(hdrSigner, pub)
		m.Header.Set(hdrSignature, base64.RawURLEncoding.EncodeToString(sig))
	}
	if _, err := js.PublishMsg(ctx, m); err != nil {
		t.Fatal(err)
	}
	return job
}

// worker runs a worker with the chat adapter until the test ends; its
// results and notes come on the channels.
func worker(t *testing.T, url string, adapter string) (*Worker, chan Result, chan string) {
	t.Helper()
	results, notes := make(chan Result, 10), make(chan string, 10)
	w := &Worker{Name: "honest", Command: strings.Fields(adapter), Trust: testTrust, Key: testWorkerKey, CacheDir: t.TempDir(),
		OnJob: func(j Job, r Result) { results <- r }, OnIgnored: func(why string) { notes <- why }}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := w.Run(ctx, url, Auth{}); err != nil {
			t.Error(err)
		}
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
	return w, results, notes
}

// chatFiles is the chat project as a bundle's files, its [adapter]
// replaced by adapter (a TOML section) and its model changed by edit.
func chatFiles(t *testing.T, adapter string, edit func(string) string) map[string][]byte {
	t.Helper()
	toml, err := os.ReadFile("../projects/chat/chat.toml")
	if err != nil {
		t.Fatal(err)
	}
	star, err := os.ReadFile("../projects/chat/chat.star")
	if err != nil {
		t.Fatal(err)
	}
	text := string(toml)
	i := strings.Index(text, "[adapter]")
	j := strings.Index(text, "[test]")
	text = text[:i] + adapter + "\n" + text[j:]
	model := string(star)
	if edit != nil {
		model = edit(model)
	}
	return map[string][]byte{"chat.toml": []byte(text), "chat.star": []byte(model)}
}

// A job signed by a key the worker does not trust, or not signed at all,
// is dropped and counted, never run; the worker goes on with trusted ones.
// A trusted job whose project names its own adapter (sh -c ...) runs the
// worker's own adapter, and the operator is told the project's is ignored.
func TestWorkerRunsOnlyTrustedJobsWithItsOwnAdapter(t *testing.T) {
	bin := buildChat(t)
	url := embedded(t)
	w, results, notes := worker(t, url, bin+" adapter --fixed")
	marker := filepath.Join(t.TempDir(), "pwned")
	evil := "[adapter]\ncommand = [\"sh\", \"-c\", \"touch " + marker + "\"]\ndir = \"/\"\n"
	files := chatFiles(t, evil, nil)
	attacker, _ := NewKey()
	job := Job{Campaign: "cevil", Config: "hi_bye", Runs: 2, Steps: 10, Seed: 1}
	jobOn(t, url, attacker, bundle{Project: "chat.toml", Files: files}, job)
	jobOn(t, url, nil, bundle{Project: "chat.toml", Files: files}, Job{Campaign: "cevil", ID: 1, Config: "hi_bye", Runs: 2, Steps: 10})
	honest := Job{Campaign: "cgood", ID: 0, Config: "hi_bye", Runs: 3, Steps: 10, Seed: 5, Nonce: "n"}
	jobOn(t, url, testKey, bundle{Project: "chat.toml", Files: files}, honest)
	var r Result
	select {
	case r = <-results:
	case <-time.After(time.Minute):
		t.Fatal("the trusted job was not run")
	}
	if r.Campaign != "cgood" || r.Runs != 3 || r.Error != "" || r.Tally[conform.Pass] != 3 || r.Nonce != "n" {
		t.Errorf("the trusted job's result: %+v", r)
	}
	if n := w.Ignored.Load(); n != 2 {
		t.Errorf("%d jobs ignored, want 2", n)
	}
	var said []string
	for len(notes) > 0 {
		said = append(said, <-notes)
	}
	all := strings.Join(said, "\n")
	if !strings.Contains(all, "signed by "+short(PublicKey(attacker))) || !strings.Contains(all, "unsigned") ||
		!strings.Contains(all, "names its own adapter (sh -c touch") {
		t.Errorf("the operator was told:\n%s", all)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the project's own adapter command ran on the worker")
	}
}

// Bundles are data with bounds: project names leaving the bundle, a model
// outside it, an object larger than a worker takes, and a model that
// builds a value containing itself each end their job with a clear error
// (or model-error verdicts), and the worker goes on.
func TestHostileBundles(t *testing.T) {
	bin := buildChat(t)
	url := embedded(t)
	_, results, _ := worker(t, url, bin+" adapter --fixed")
	outside := filepath.Join(t.TempDir(), "outside.star")
	os.WriteFile(outside, []byte("SECRET = 1\n"), 0o644)
	fifo := filepath.Join(t.TempDir(), "pipe.toml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	plain := chatFiles(t, "", nil)
	withModel := func(model string) map[string][]byte {
		f := chatFiles(t, "", nil)
		f["chat.toml"] = []byte(strings.Replace(string(f["chat.toml"]), `model = "chat.star"`, "model = "+strconvQuote(model), 1))
		return f
	}
	cyclic := chatFiles(t, "", func(m string) string {
		return strings.Replace(m, "    s.clients.append(c)\n", "    s.clients.append(c)\n    s.clients.append(s.clients)\n", 1)
	})
	cases := []struct {
		name string
		b    bundle
		want string
	}{
		{"project ../", bundle{Project: "../../outside.toml", Files: plain}, "outside its folder"},
		{"project absolute", bundle{Project: "/etc/passwd", Files: plain}, "outside its folder"},
		{"project a named pipe", bundle{Project: fifo, Files: plain}, "outside its folder"},
		{"project not in the bundle", bundle{Project: "other.toml", Files: plain}, "lacks its project file"},
		{"file ../", bundle{Project: "chat.toml", Files: map[string][]byte{"chat.toml": plain["chat.toml"], "../x.star": nil}}, "outside its folder"},
		{"model outside", bundle{Project: "chat.toml", Files: withModel(outside)}, "outside its bundle"},
		{"model ../", bundle{Project: "chat.toml", Files: withModel("../../x/chat.star")}, "not in its bundle"},
	}
	for i, tc := range cases {
		jobOn(t, url, testKey, tc.b, Job{Campaign: "chostile", ID: i, Config: "hi_bye", Runs: 1, Steps: 5, Nonce: "n"})
		select {
		case r := <-results:
			if !strings.Contains(r.Error, tc.want) {
				t.Errorf("%s: %q, want %q", tc.name, r.Error, tc.want)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s: no result (the worker hangs or died)", tc.name)
		}
	}
	// A model error in every run, and the worker still there for the
	// next job.
	jobOn(t, url, testKey, bundle{Project: "chat.toml", Files: cyclic}, Job{Campaign: "ccyclic", Config: "hi_bye", Runs: 3, Steps: 10, Seed: 1, Nonce: "n"})
	select {
	case r := <-results:
		if r.Error == "" && r.Tally[conform.ModelError] == 0 {
			t.Errorf("the cyclic model's job: %+v", r)
		}
	case <-time.After(time.Minute):
		t.Fatal("the cyclic model's job: no result (the worker died?)")
	}
	jobOn(t, url, testKey, bundle{Project: "chat.toml", Files: plain}, Job{Campaign: "cafter", Config: "hi_bye", Runs: 2, Steps: 10, Seed: 1, Nonce: "n"})
	select {
	case r := <-results:
		if r.Error != "" || r.Runs != 2 {
			t.Errorf("the job after the hostile ones: %+v", r)
		}
	case <-time.After(time.Minute):
		t.Fatal("the worker did no job after the hostile ones")
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// An object larger than a worker takes is refused from its metadata,
// before it is read.
func TestOversizedBundleRefusedBeforeReading(t *testing.T) {
	url := embedded(t)
	nc, err := connect(url, "attacker", Auth{})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, obj, err := setup(ctx, js, nil)
	if err != nil {
		t.Fatal(err)
	}
	hash := strings.Repeat("ab", 32)
	if _, err := obj.Put(ctx, jetstream.ObjectMeta{Name: hash}, io.LimitReader(zeros{}, maxBundleObject+1<<20)); err != nil {
		t.Fatal(err)
	}
	w := &Worker{CacheDir: t.TempDir()}
	_, err = w.project(ctx, obj, hash)
	if err == nil || !strings.Contains(err.Error(), "MiB, more than the 64 MiB a worker takes") {
		t.Errorf("a 65 MiB bundle: %v", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// Forged results count for nothing: unsigned, signed by a key the
// coordinator does not trust, without the job's nonce, or with runs that do
// not add up. A campaign no worker served never reports a pass. (See
// trust_test.go for the rest of issue 51's attacks.)
func TestForgedResultsIgnored(t *testing.T) {
	url := embedded(t)
	honest, _ := NewKey()
	spec := Spec{Key: testKey, ProjectFile: "../projects/chat/chat.toml", Config: "hi_bye", Runs: 20, Steps: 10, Seed: 3, JobRuns: 10,
		TrustWorkers: Trust{PublicKey(honest): true}}
	id := spec.ID(bundleHash(t, spec.ProjectFile))
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	// The attacker watches the jobs (as a client of a shared server may)
	// and answers each with forged results.
	nc, err := connect(url, "attacker", Auth{})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	attacker, _ := NewKey()
	go func() {
		for job := 0; ctx.Err() == nil; job = (job + 1) % 2 {
			pass := Result{Campaign: id, Job: job, Worker: "forger", Runs: 10, Tally: map[conform.Verdict]int{conform.Pass: 10}}
			unsigned, _ := json.Marshal(&pass)
			js.Publish(ctx, "modex.results."+id, unsigned)
			pass.Nonce = nonce(testKey, id, job) // as if read from the job
			data, _ := json.Marshal(&pass)
			m, _ := signedMsg(attacker, "modex.results."+id, data)
			js.PublishMsg(ctx, m)
			bad := pass
			bad.Nonce = "guess"
			data, _ = json.Marshal(&bad)
			m, _ = signedMsg(honest, "modex.results."+id, data) // even a trusted key needs the nonce
			js.PublishMsg(ctx, m)
			odd := pass
			odd.Runs, odd.Tally = 1000, map[conform.Verdict]int{conform.Pass: 1000}
			data, _ = json.Marshal(&odd)
			m, _ = signedMsg(honest, "modex.results."+id, data)
			js.PublishMsg(ctx, m)
			time.Sleep(300 * time.Millisecond)
		}
	}()
	sum, err := Coordinate(ctx, url, Auth{}, spec, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the campaign no worker served ended: %v, %+v", err, sum)
	}
	if sum.Runs != 0 || sum.Done != 0 || sum.Tally[conform.Pass] != 0 || sum.Untrusted < 4 {
		t.Fatalf("forged results counted: %d runs, %d done, %v, %d ignored", sum.Runs, sum.Done, sum.Tally, sum.Untrusted)
	}
	why := strings.Join(sum.UntrustedWhy, "\n")
	for _, want := range []string{"unsigned", "signed by " + short(PublicKey(attacker)), "without the job's nonce", "runs of verdict pass, not 0 to 10"} {
		if !strings.Contains(why, want) {
			t.Errorf("the reasons given do not say %q:\n%s", want, why)
		}
	}
	if !strings.Contains(sum.String(), "results from untrusted senders ignored") {
		t.Errorf("the summary does not say so: %s", sum)
	}
}

func bundleHash(t testing.TB, project string) string {
	_, hash, err := makeBundle(project)
	if err != nil {
		t.Fatal(err)
	}
	return hash
}

// A bundle holds the project, its model and the .star files beside it:
// not the implementation, scripts or a key lying in the folder.
func TestBundleCarriesNoCode(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"p.toml":       "name = \"p\"\nmodel = \"m/model.star\"\n[adapter]\ncommand = [\"./server\"]\n",
		"m/model.star": "def init():\n    return {\"n\": 0}\ndef A(s):\n    s.n = 1\nactions = [A]\n",
		"m/lib.star":   "X = 1\n", "server": "#!/bin/sh\n", "id_ed25519": "KEY", "m/.hidden.star": "",
		"impl/main.go": "package main\n",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
	}
	data, _, err := makeBundle(filepath.Join(dir, "p.toml"))
	if err != nil {
		t.Fatal(err)
	}
	var b bundle
	json.Unmarshal(data, &b)
	var names []string
	for n := range b.Files {
		names = append(names, n)
	}
	got := strings.Join(sortStrings(names), " ")
	if got != "m/lib.star m/model.star p.toml" || b.Project != "p.toml" {
		t.Errorf("bundle %q holds %s", b.Project, got)
	}
}

func sortStrings(s []string) []string {
	t := Trust{}
	for _, x := range s {
		t[x] = true
	}
	return t.Keys()
}

// Names made from a project's or configuration's name never leave the
// folder they are saved in, and two saves of one run keep both.
func TestSavedFailureNames(t *testing.T) {
	dir := t.TempDir()
	f := Failure{Seed: 7, Saved: savedRun(t)}
	var files []string
	for range 2 {
		file, err := SaveFailure("../../evil", "../x/y", dir, f)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, file)
	}
	for _, file := range files {
		if filepath.Dir(file) != dir || strings.Contains(filepath.Base(file), "/") {
			t.Errorf("saved outside the folder: %s", file)
		}
	}
	if files[0] == files[1] {
		t.Errorf("the second save replaced the first: %s", files[0])
	}
	if !strings.HasPrefix(filepath.Base(files[0]), "_._.._evil-_._x_y-campaign-seed7-") {
		t.Errorf("name: %s", filepath.Base(files[0]))
	}
}

// savedRun is a real saved run of the chat model (one passing step).
func savedRun(t *testing.T) json.RawMessage {
	t.Helper()
	p, err := projects.Load("../projects/chat/chat.toml")
	if err != nil {
		t.Fatal(err)
	}
	tc, _, err := p.TestSetup(projects.TestOverrides{Runs: 1, Steps: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	conform.SaveRun("chat", "hi_bye", tc, conform.RunResult{Seed: 1}).Write(&b)
	return json.RawMessage(b.String())
}

// Credentials in a --nats URL never appear in an error.
func TestRedact(t *testing.T) {
	for _, url := range []string{
		"nats://alice:s3cret@127.0.0.1:1,nats://bob:hunter22@[::1",
		"nats://alice:s3cret@host:notaport",
		"tls://token-abcdef@example.invalid:4222",
	} {
		_, err := connect(url, "t", Auth{})
		if err == nil {
			t.Fatalf("%s connected", url)
		}
		msg := redact(err, url).Error()
		for _, secret := range []string{"s3cret", "hunter22", "alice", "bob", "token-abcdef"} {
			if strings.Contains(msg, secret) {
				t.Errorf("%q shows %q", msg, secret)
			}
		}
	}
}

// A server on another machine must ask for credentials and speak TLS; one
// on this machine is taken as it is (jobs and results are signed).
func TestSecureEnough(t *testing.T) {
	for _, tc := range []struct {
		addr      string
		auth, tls bool
		want      string
	}{
		{"127.0.0.1:4222", false, false, ""},
		{"[::1]:4222", false, false, ""},
		{"10.1.2.3:4222", true, true, ""},
		{"10.1.2.3:4222", false, true, "asks for no credentials"},
		{"10.1.2.3:4222", true, false, "speaks no TLS"},
		{"192.0.2.7:4222", false, false, "asks for no credentials and speaks no TLS"},
	} {
		err := secureEnough(tc.addr, tc.auth, tc.tls)
		if (err == nil) != (tc.want == "") || (err != nil && (!strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "--insecure"))) {
			t.Errorf("%s auth %v tls %v: %v", tc.addr, tc.auth, tc.tls, err)
		}
	}
}

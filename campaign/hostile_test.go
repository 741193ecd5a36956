package campaign

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/modex/modex/engine/conform"
)

// What a peer on the NATS server writes — its Modex-Signer header, the
// worker name in its results, a job's error — reaches modex campaign's
// and modex worker's output escaped: no escape sequence, no line break
// that starts a line of its own.
func TestHostilePeerTextEscaped(t *testing.T) {
	const evil = "W\x1b]0;pwned\x07\x1b[2K\ncampaign x: 10 of 10 jobs done\u202e"
	honest, _ := NewKey()
	id := "c1"
	spec := Spec{Key: testKey, Runs: 2, JobRuns: 1, TrustWorkers: Trust{PublicKey(honest): true}}
	if err := spec.defaults(); err != nil {
		t.Fatal(err)
	}
	st := newState(spec, id, "h")
	s := st.sum
	s.Campaign = id + "\x1b[8m"
	result := func(job int, worker, errText string) []byte {
		data, _ := json.Marshal(&Result{Campaign: id, Job: job, Worker: worker, Runs: 1, Nonce: nonce(testKey, id, job),
			Tally: map[conform.Verdict]int{conform.Pass: 1}, Error: errText})
		return data
	}
	// A trusted worker naming itself with escapes; another's job error.
	data := result(0, evil, "")
	m, _ := signedMsg(honest, "", data)
	st.merge(m.Header, data)
	data = result(1, "w2", "adapter said: "+evil)
	m, _ = signedMsg(honest, "", data)
	st.merge(m.Header, data)
	// Senders the coordinator does not trust, with forged signer headers.
	for _, signer := range []string{evil, "U\x1b[31m" + strings.Repeat("A", 60)} {
		h := nats.Header{}
		h.Set(hdrSigner, signer)
		h.Set(hdrSignature, "c2ln")
		st.merge(h, result(0, "x", ""))
		if _, err := verify(h, nil, Trust{PublicKey(honest): true}); err == nil || strings.ContainsAny(err.Error(), "\x1b\x07\n\u202e") {
			t.Errorf("verify's error shows the signer raw: %v", err)
		}
	}
	if s.Untrusted != 2 || len(s.JobErrors) != 1 || s.Runs != 1 {
		t.Fatalf("merged: %d untrusted, %d job errors, %d runs", s.Untrusted, len(s.JobErrors), s.Runs)
	}
	texts := append(append([]string{s.String()}, s.JobErrors...), s.UntrustedWhy...)
	for _, text := range texts {
		if strings.ContainsAny(text, "\x1b\x07\n\u202e") {
			t.Errorf("raw peer text: %q", text)
		}
	}
	if !strings.Contains(s.String(), `W\x1b]0;pwned\x07\x1b[2K\ncampaign x`) {
		t.Errorf("the summary does not show the worker's name escaped: %s", s)
	}
}

package campaign

import (
	"bufio"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"github.com/modex/modex/internal/safetext"
)

// Jobs and results are signed with ed25519 keys in NATS's nkeys form (a
// public key reads "U…", its seed "SU…"): a coordinator signs each job,
// with its expiry, a worker runs only jobs signed by a coordinator it
// trusts and signs its results, bound to the job by a nonce, and the
// coordinator takes only results signed by a worker it trusts (always a
// list of keys: there is no "any signer"). The signature and the signer's
// public key travel in the message's headers; what is signed is the
// message's body.
const (
	hdrSigner    = "Modex-Signer"
	hdrSignature = "Modex-Signature"
)

// NewKey makes a fresh signing key.
func NewKey() (nkeys.KeyPair, error) { return nkeys.CreateUser() }

// PublicKey is a key's public half as text (U…).
func PublicKey(kp nkeys.KeyPair) string {
	pub, _ := kp.PublicKey()
	return pub
}

// maxKeyFile bounds a key or trust file.
const maxKeyFile = 64 << 10

// WriteKeyFile writes a fresh key's seed to path, readable by its owner
// only (created, never overwritten), and returns the key.
func WriteKeyFile(path string) (nkeys.KeyPair, error) {
	kp, err := NewKey()
	if err != nil {
		return nil, err
	}
	seed, err := kp.Seed()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if _, err := fmt.Fprintf(f, "%s\n", seed); err != nil {
		f.Close()
		return nil, err
	}
	return kp, f.Close()
}

// ReadKeyFile reads a signing key's seed (SU…) from path. The file must be
// a regular file of this user (or root) that only its owner may read or
// write, in folders no other account may write (see readChecked), as ssh
// asks of its keys: anyone who can read it can sign jobs or results in its
// name, anyone who can write it or its folders can choose the key.
func ReadKeyFile(path string) (nkeys.KeyPair, error) {
	data, _, err := readChecked(path, "key file", true)
	if err != nil {
		return nil, err
	}
	kp, err := nkeys.FromSeed([]byte(strings.TrimSpace(string(data))))
	if err != nil {
		return nil, fmt.Errorf("key file %s holds no signing key (a seed SU…, as modex keygen writes): %v", path, err)
	}
	return kp, nil
}

// DefaultKeyFile is the coordinator key a campaign on the user's own NATS
// server signs with when none is given: modex/coordinator.nk in the user's
// configuration folder, made on first use.
func DefaultKeyFile() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "modex", "coordinator.nk"), nil
}

// LoadOrCreateKey reads the key at path, making it first when there is
// none yet.
func LoadOrCreateKey(path string) (nkeys.KeyPair, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		kp, err := WriteKeyFile(path)
		if err == nil || !errors.Is(err, os.ErrExist) { // another process may make it meanwhile
			return kp, err
		}
	}
	return ReadKeyFile(path)
}

// Trust is a set of public keys (U…) whose signatures are accepted.
type Trust map[string]bool

// ParseTrust reads trusted keys: each item is a public key (U…), or a file
// of public keys, one a line ('#' starts a comment), or a key file (its
// seed's public half is trusted). Items may be lists separated by commas.
func ParseTrust(items []string) (Trust, error) {
	t := Trust{}
	for _, item := range items {
		for _, one := range strings.Split(item, ",") {
			one = strings.TrimSpace(one)
			if one == "" {
				continue
			}
			if nkeys.IsValidPublicUserKey(one) {
				t[one] = true
				continue
			}
			if err := t.readFile(one); err != nil {
				return nil, err
			}
		}
	}
	return t, nil
}

// readFile adds the keys of a trust file. Whoever can write it chooses
// whom this process trusts: it is checked as readChecked says, and one
// that holds a seed (a key file) as a key file.
func (t Trust) readFile(path string) error {
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%q is neither a public key (U…) nor a file of them", path)
	}
	data, mode, err := readChecked(path, "trust file", false)
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		line = strings.TrimSpace(line)
		switch {
		case line == "":
		case nkeys.IsValidPublicUserKey(line):
			t[line] = true
		case strings.HasPrefix(line, "SU"):
			if mode&0o077 != 0 {
				return fmt.Errorf("trust file %s holds a key's seed and may be read by others (mode %v): anyone who reads it can sign in its name; chmod 600 %s",
					path, mode, path)
			}
			kp, err := nkeys.FromSeed([]byte(line))
			if err != nil {
				return fmt.Errorf("%s:%d: not a key seed: %v", path, n, err)
			}
			t[PublicKey(kp)] = true
		default:
			return fmt.Errorf("%s:%d: not a public key (U…)", path, n)
		}
	}
	return nil
}

// Keys lists the trusted keys, sorted.
func (t Trust) Keys() []string {
	var out []string
	for k := range t {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// signedMsg is a message to subject with data, signed by kp.
func signedMsg(kp nkeys.KeyPair, subject string, data []byte) (*nats.Msg, error) {
	sig, err := kp.Sign(data)
	if err != nil {
		return nil, err
	}
	m := nats.NewMsg(subject)
	m.Data = data
	m.Header.Set(hdrSigner, PublicKey(kp))
	m.Header.Set(hdrSignature, base64.RawURLEncoding.EncodeToString(sig))
	return m, nil
}

// errUntrusted marks a message that is not signed by a trusted key.
var errUntrusted = errors.New("not signed by a trusted key")

// verify checks a message's signature and returns its signer, who must be
// in trust (an empty trust accepts no one: there is no "any signer").
func verify(h nats.Header, data []byte, trust Trust) (string, error) {
	signer, sig := h.Get(hdrSigner), h.Get(hdrSignature)
	if signer == "" || sig == "" {
		return "", fmt.Errorf("%w: unsigned", errUntrusted)
	}
	if !trust[signer] {
		return signer, fmt.Errorf("%w: signed by %s", errUntrusted, short(signer))
	}
	raw, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil {
		return signer, fmt.Errorf("%w: a malformed signature", errUntrusted)
	}
	pub, err := nkeys.FromPublicKey(signer)
	if err != nil {
		return signer, fmt.Errorf("%w: a malformed signer", errUntrusted)
	}
	if err := pub.Verify(data, raw); err != nil {
		return signer, fmt.Errorf("%w: a bad signature from %s", errUntrusted, short(signer))
	}
	return signer, nil
}

// short is a public key's start, enough to tell keys apart in messages,
// escaped for a terminal: the key comes in a message's Modex-Signer
// header, which any sender writes.
func short(key string) string {
	if len(key) > 12 {
		key = key[:12] + "…"
	}
	return safetext.Term(key)
}

// nonce is the job's nonce: a value only the coordinator's key can make
// (ed25519 signatures are deterministic, so a coordinator started again
// with the same key makes the same nonces and resumes its campaign), which
// a result must carry to count.
func nonce(kp nkeys.KeyPair, campaign string, job int) string {
	sig, _ := kp.Sign([]byte(fmt.Sprintf("modex job nonce %s/%d", campaign, job)))
	sum := sha256.Sum256(sig)
	return hex.EncodeToString(sum[:16])
}

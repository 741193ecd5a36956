package campaign

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/modex/modex/engine/conform"
)

// certs makes a certificate authority and, signed by it, a certificate for
// 127.0.0.1 (server) and one for a client, as PEM files in dir.
func certs(t *testing.T, dir string) (ca, serverCert, serverKey, clientCert, clientKey string) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "modex test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	write := func(name, kind string, der []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	leaf := func(name string, serial int64, usage x509.ExtKeyUsage) (string, string) {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		kder, _ := x509.MarshalECPrivateKey(key)
		return write(name+".pem", "CERTIFICATE", der), write(name+"-key.pem", "EC PRIVATE KEY", kder)
	}
	ca = write("ca.pem", "CERTIFICATE", caDER)
	serverCert, serverKey = leaf("server", 2, x509.ExtKeyUsageServerAuth)
	clientCert, clientKey = leaf("client", 3, x509.ExtKeyUsageClientAuth)
	return
}

// A campaign on a NATS server that speaks only TLS and asks clients for
// certificates: with the CA and a client certificate it runs; without them
// the connection is refused, with a message that does not show the URL.
func TestCampaignOverTLS(t *testing.T) {
	dir := t.TempDir()
	ca, sc, sk, cc, ck := certs(t, dir)
	pair, err := tls.LoadX509KeyPair(sc, sk)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	caPEM, _ := os.ReadFile(ca)
	pool.AppendCertsFromPEM(caPEM)
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoSigs: true, NoLog: true,
		TLS: true, TLSVerify: true, TLSTimeout: 5,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{pair}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12}})
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	t.Cleanup(srv.Shutdown)
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("the TLS server did not start")
	}
	url := strings.Replace(srv.ClientURL(), "nats://", "tls://", 1)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	spec := Spec{Key: testKey, ProjectFile: "../projects/chat/chat.toml", Config: "hi_bye", Runs: 10, Steps: 20, Seed: 3, JobRuns: 5, TrustWorkers: testWorkers}
	for _, bad := range []Auth{{}, {CA: ca}, {CA: ca, Cert: cc}} {
		_, err := Coordinate(ctx, url, bad, spec, nil)
		t.Logf("auth %+v: %v", bad, err)
		if err == nil || strings.Contains(err.Error(), url) {
			t.Errorf("auth %+v: %v", bad, err)
		}
	}
	bin := buildChat(t)
	good := Auth{CA: ca, Cert: cc, Key: ck}
	var wg = make(chan error, 1)
	wctx, stop := context.WithCancel(ctx)
	go func() {
		w := &Worker{Name: "tls", Command: strings.Fields(bin + " adapter --fixed"), Trust: testTrust, Key: testWorkerKey, CacheDir: t.TempDir()}
		wg <- w.Run(wctx, url, good)
	}()
	sum, err := Coordinate(ctx, url, good, spec, nil)
	stop()
	if werr := <-wg; werr != nil {
		t.Errorf("worker: %v", werr)
	}
	if err != nil {
		t.Fatal(err)
	}
	if sum.Runs != 10 || sum.Tally[conform.Pass] != 10 {
		t.Errorf("%d runs: %v %v", sum.Runs, sum.Tally, sum.JobErrors)
	}
}

package campaign

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/modex/modex/engine/conform"
)

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// cluster starts three NATS servers with JetStream, routed on 127.0.0.1,
// and returns them and a URL list of all three.
func cluster(t *testing.T) ([]*server.Server, string) {
	t.Helper()
	ports := []int{freePort(t), freePort(t), freePort(t)}
	var servers []*server.Server
	var urls []string
	for i := range 3 {
		var routes []*url.URL
		for j, p := range ports {
			if j != i {
				routes = append(routes, &url.URL{Scheme: "nats", Host: fmt.Sprintf("127.0.0.1:%d", p)})
			}
		}
		s, err := server.NewServer(&server.Options{ServerName: fmt.Sprintf("n%d", i+1), Host: "127.0.0.1", Port: -1,
			JetStream: true, StoreDir: t.TempDir(), NoSigs: true, NoLog: true,
			Cluster: server.ClusterOpts{Name: "modex-test", Host: "127.0.0.1", Port: ports[i]}, Routes: routes})
		if err != nil {
			t.Fatal(err)
		}
		s.Start()
		if !s.ReadyForConnections(10 * time.Second) {
			t.Fatal("a cluster node did not start")
		}
		servers = append(servers, s)
		urls = append(urls, s.ClientURL())
	}
	t.Cleanup(func() {
		for _, s := range servers {
			s.Shutdown()
		}
	})
	list := strings.Join(urls, ",")
	// Wait for JetStream's meta leader.
	nc, err := connect(list, "probe", Auth{})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := js.AccountInfo(ctx)
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("JetStream never became ready in the cluster: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	return servers, list
}

// On a three-node cluster with streams kept by all three, killing a node in
// the middle of a campaign loses nothing: every job is done, once.
func TestCampaignSurvivesANode(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node NATS cluster")
	}
	bin := buildChat(t)
	servers, urls := cluster(t)
	spec := Spec{Key: testKey, ProjectFile: "../projects/chat/chat.toml", Config: "hi_bye", Runs: 120, Steps: 20, Seed: 21, JobRuns: 5, Replicas: 3, TrustWorkers: testWorkers}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// The workers start once the coordinator has made the streams (kept by
	// all three nodes).
	go func() {
		nc, err := connect(urls, "probe", Auth{})
		if err != nil {
			return
		}
		defer nc.Close()
		js, _ := jetstream.New(nc)
		for ctx.Err() == nil {
			c, stop := context.WithTimeout(ctx, 5*time.Second)
			s, err := js.Stream(c, jobsStream)
			stop()
			if err == nil && s.CachedInfo().Config.Replicas == 3 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		startWorkers(t, urls, 2, bin+" adapter --fixed")
	}()
	killed := false
	sum, err := Coordinate(ctx, urls, Auth{}, spec, func(p Progress) {
		if !killed && p.Done >= 4 {
			killed = true
			servers[0].Shutdown()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !killed || sum.Runs != 120 || sum.Done != 24 || sum.Tally[conform.Pass] != 120 {
		t.Errorf("killed %v: %d runs, %d of %d jobs done, %v, errors %v", killed, sum.Runs, sum.Done, sum.Jobs, sum.Tally, sum.JobErrors)
	}
}

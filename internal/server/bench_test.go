package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/server"
	"github.com/foresight-dev/foresight/internal/tickets"
)

// BenchmarkJobToCompleted measures one job from submission to completed
// with the heuristic engine on an idle server with the default queue
// settings: it submits over HTTP and then reads the job's status from the
// store every millisecond. median-ms is the number docs/performance.md
// records.
func BenchmarkJobToCompleted(b *testing.B) {
	forEachDatabaseB(b, func(b *testing.B, db string) {
		w := newWorld(b, db, worldOptions{noContractCheck: true, config: func(c *server.Config) {
			*c = defaultsOnly(*c)
		}})
		var took []time.Duration
		b.ResetTimer()
		for i := range b.N {
			start := time.Now()
			id := w.submit(fmt.Sprint("bench-", i), sampleSpec, nil)
			for {
				st, err := w.srv.Tickets().Store().JobStatus(context.Background(), id)
				if err != nil {
					b.Fatal(err)
				}
				if st == tickets.StatusCompleted {
					break
				}
				if st.Terminal() {
					b.Fatalf("job %s", st)
				}
				time.Sleep(time.Millisecond) // the latency's resolution; waitfor's growing interval would distort it
			}
			took = append(took, time.Since(start))
		}
		b.StopTimer()
		slices.Sort(took)
		b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "median-ms")
	})
}

// defaultsOnly undoes the test speed-ups of testConfig, keeping the
// database and the admin token.
func defaultsOnly(c server.Config) server.Config {
	d := server.DefaultConfig()
	d.DatabaseURL, d.AdminToken, d.RateLimit = c.DatabaseURL, c.AdminToken, 0
	d.Tickets.MaxActiveJobs = 1 << 20
	return d
}

// BenchmarkBettorPriceHistory measures GET /api/v1/markets/{id}/price-history
// over HTTP for a market with as many points as the retention keeps for a
// market a feed reprices every 15 s (about 2,300), thinned to 120: cold
// (the market changed since the last read, so the history is read from
// the database), warm (the answer kept for the market's version) and with
// another points value each read (2 to 120 in turn: answers not kept yet,
// derived from the market's kept history), beside the event read, from the
// same run. ms/read is the number
// docs/performance.md records.
func BenchmarkBettorPriceHistory(b *testing.B) {
	forEachDatabaseB(b, func(b *testing.B, db string) {
		bw := newBettingWorld(b, db)
		token := bw.bettor("bench", "10.00")
		ctx := context.Background()
		svc := bw.srv.Betting()
		_, e := bw.admin("POST", "/admin/v1/events", `{"category":"sports","title":{"en":"Bench"},"markets":[{"question":{"en":"Who wins?"},
			"outcomes":[{"name":{"en":"Home"},"probability":"0.5"},{"name":{"en":"Away"},"probability":"0.5"}]}]}`)
		m := e["markets"].([]any)[0].(map[string]any)
		market := m["id"].(string)
		home := m["outcomes"].([]any)[0].(map[string]any)["id"].(string)
		away := m["outcomes"].([]any)[1].(map[string]any)["id"].(string)
		changes := 0
		change := func() {
			changes++
			p := decimal.New(int64(3000+changes%4000), -4)
			if _, err := svc.SetPrices(ctx, market, map[string]decimal.Decimal{home: p, away: decimal.NewFromInt(1).Sub(p)}); err != nil {
				b.Fatal(err)
			}
		}
		for range 2299 {
			change()
		}
		get := func(b *testing.B, path string) time.Duration {
			req, _ := http.NewRequest("GET", bw.url+path, nil)
			req.Header.Set("Authorization", "Bearer "+token)
			start := time.Now()
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			took := time.Since(start)
			if resp.StatusCode != 200 {
				b.Fatalf("GET %s = %d", path, resp.StatusCode)
			}
			return took
		}
		history := "/api/v1/markets/" + market + "/price-history?outcome_id=" + home
		ev := bw.api("GET", "/api/v1/events", token, "").json(b)["items"].([]any)[0].(map[string]any)["id"].(string)
		for _, c := range []struct {
			name, path string
			cold       bool
			// otherPoints asks each read for another points value (2 to
			// 120, then again) of the same version: each is an answer
			// not kept yet.
			otherPoints bool
		}{
			{name: "history-2300-cold", path: history, cold: true},
			{name: "history-2300-warm", path: history},
			{name: "history-2300-other-points", path: history, otherPoints: true},
			{name: "event-read", path: "/api/v1/events/" + ev},
		} {
			b.Run(c.name, func(b *testing.B) {
				var took time.Duration
				for i := range b.N {
					path := c.path
					switch {
					case c.cold:
						change()
					case c.otherPoints:
						if i%119 == 0 {
							change()
						}
						path += "&points=" + strconv.Itoa(2+i%119)
					}
					took += get(b, path)
				}
				b.ReportMetric(float64(took.Microseconds())/1000/float64(b.N), "ms/read")
			})
		}
	})
}

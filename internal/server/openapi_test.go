package server_test

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/foresight-dev/foresight/api"
)

// The OpenAPI documents are served byte for byte at /openapi/{name}.
func TestOpenAPIDocumentsServed(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "sqlite:"+t.TempDir()+"/o.db", worldOptions{noContractCheck: true, noWorkers: true})
	for _, name := range []string{"tickets.yaml", "admin.yaml", "bettor.yaml"} {
		want, err := api.Documents.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.Get(w.url + "/openapi/" + name)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/yaml" || !bytes.Equal(got, want) {
			t.Errorf("GET /openapi/%s = %d %q, %d bytes; want the embedded %d bytes", name, resp.StatusCode, resp.Header.Get("Content-Type"), len(got), len(want))
		}
	}
	resp, err := http.Get(w.url + "/openapi/nope.yaml")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("unknown document = %d, want 404", resp.StatusCode)
	}
}

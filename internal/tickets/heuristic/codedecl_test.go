package heuristic

import (
	"slices"
	"testing"
)

// TestDeclarations reads what code blocks of public specs declare, each
// shape as the spec wrote it (go-2981's types, CockroachDB's
// web_sessions table and UserLogout RPC), and nothing of code that
// declares nothing.
func TestDeclarations(t *testing.T) {
	for _, c := range []struct {
		name, code string
		want       []string
	}{
		{"go struct", "type TestResult struct {\t\n    Package string // package of test\n    Result  State\n    Stdout, Stderr string\n    *BenchmarkResult\n}\n",
			[]string{"`TestResult` has the fields Package, Result, Stdout, Stderr and BenchmarkResult."}},
		{"go named type", "type State int\n\nconst (\n    PASS State = iota\n)\n", []string{"`State` is a type of `int`."}},
		{"sql table", "CREATE TABLE system.web_sessions (\n  id INT NOT NULL DEFAULT unique_rowid(),\n  \"hashedSecret\" BYTES NOT NULL,\n  username STRING NOT NULL,\n  PRIMARY KEY (id),\n  INDEX(expiresAt),\n);\nCREATE INDEX ON system.web_sessions (username);\n",
			[]string{"Table `system.web_sessions` has the columns id, hashedSecret and username.", "Table `system.web_sessions` has an index on (expiresAt).", "Table `system.web_sessions` has an index on (username)."}},
		{"protobuf", "service Authentication {\n  rpc UserLogin(UserLoginRequest) returns (UserLoginResponse) {}\n  rpc UserLogout(UserLogoutRequest) returns (UserLogoutResponse) {}\n}\nmessage UserLoginRequest {\n  string username = 1;\n  string password = 2;\n}\n",
			[]string{"RPC `UserLogin` takes `UserLoginRequest` and returns `UserLoginResponse`.", "RPC `UserLogout` takes `UserLogoutRequest` and returns `UserLogoutResponse`.", "Message `UserLoginRequest` has the fields username and password."}},
		{"typescript", "export interface Session {\n  id: string;\n  expiresAt?: Date;\n}\n", []string{"`Session` has the fields id and expiresAt."}},
		{"example output", "{\"Package\": \"fmt\", \"Result\": \"PASS\"}\n", nil},
		{"command", "$ go test -json ./...\nkubectl delete sts web --cascade=false\n", nil},
		{"yaml", "apiVersion: apps/v1\nkind: StatefulSet\nspec:\n  replicas: 3\n", nil},
	} {
		var got []string
		for _, d := range declarations(c.code) {
			got = append(got, d.criterion)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: declarations = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestDeclaredNames names what a declaration declares and those of its
// fields that join two words, which work that uses them names.
func TestDeclaredNames(t *testing.T) {
	for _, c := range []struct {
		code string
		want []string
	}{
		{"type JobStatus struct {\n    CompletedIndexes string\n    Active int32\n}\n", []string{"jobstatus", "completedindexes"}},
		{"CREATE TABLE web_sessions (\n  id INT,\n  hashed_secret BYTES\n);\n", []string{"web_sessions", "hashed_secret"}},
		{"rpc UserLogout(UserLogoutRequest) returns (UserLogoutResponse) {}\n", []string{"userlogout"}},
	} {
		ds := declarations(c.code)
		if len(ds) == 0 || !slices.Equal(ds[0].names, c.want) {
			t.Errorf("declarations(%q) = %+v, want names %q first", c.code, ds, c.want)
		}
	}
}

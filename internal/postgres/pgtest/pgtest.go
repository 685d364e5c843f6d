// Package pgtest gives tests a throwaway PostgreSQL database: from
// FORESIGHT_TEST_DATABASE_URL when set, otherwise from a cluster it starts
// with the local PostgreSQL binaries (initdb, pg_ctl) in a temporary
// directory, as the unprivileged user "nobody" when running as root.
//
// Without PostgreSQL the tests that need it fail with the reason, or are
// skipped when FORESIGHT_TEST_SKIP_MISSING=1 (see package testprereq).
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/foresight-dev/foresight/internal/testprereq"
)

var (
	once     sync.Once
	baseURL  string
	setupErr error
	stop     func()
)

// Main runs a package's tests and stops the cluster Main's tests started.
// Use it from TestMain: os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if stop != nil {
		stop()
	}
	return code
}

// NewDatabase creates an empty database for one test and returns its URL.
// The database is dropped when the test ends.
func NewDatabase(t testing.TB) string {
	t.Helper()
	once.Do(func() { baseURL, setupErr = setup() })
	if setupErr != nil {
		testprereq.Missing(t, "PostgreSQL", setupErr.Error())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, baseURL)
	if err != nil {
		t.Fatalf("connect to test cluster: %v", err)
	}
	defer admin.Close(ctx)
	b := make([]byte, 6)
	rand.Read(b)
	name := "test_" + hex.EncodeToString(b)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		admin, err := pgx.Connect(ctx, baseURL)
		if err != nil {
			return
		}
		defer admin.Close(ctx)
		admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	return replaceDatabase(baseURL, name)
}

func replaceDatabase(url, name string) string {
	i := strings.LastIndex(url, "/")
	rest := ""
	if q := strings.Index(url[i:], "?"); q >= 0 {
		rest = url[i+q:]
	}
	return url[:i+1] + name + rest
}

func setup() (string, error) {
	if u := os.Getenv("FORESIGHT_TEST_DATABASE_URL"); u != "" {
		return u, nil
	}
	bin, err := findBinDir()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "foresight-pg-")
	if err != nil {
		return "", err
	}
	runAs, err := unprivileged(dir)
	if err != nil {
		return "", err
	}
	data := filepath.Join(dir, "data")
	if out, err := runAs(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8").CombinedOutput(); err != nil {
		return "", fmt.Errorf("initdb: %v: %s", err, out)
	}
	port, err := freePort()
	if err != nil {
		return "", err
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300", port, dir)
	if out, err := runAs(filepath.Join(bin, "pg_ctl"), "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		return "", fmt.Errorf("pg_ctl start: %v: %s %s", err, out, log)
	}
	stop = func() {
		runAs(filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "stop").Run()
		os.RemoveAll(dir)
	}
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port), nil
}

// findBinDir returns the directory of initdb and pg_ctl: PATH first, then
// Debian's /usr/lib/postgresql/<version>/bin.
func findBinDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Dir(r), nil
		}
		return filepath.Dir(p), nil
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) == 0 {
		return "", fmt.Errorf("initdb not found (install Debian's postgresql package or set FORESIGHT_TEST_DATABASE_URL)")
	}
	return filepath.Dir(matches[len(matches)-1]), nil
}

// unprivileged returns a command factory that runs as the current user, or
// as "nobody" when the current user is root (PostgreSQL refuses root).
func unprivileged(dir string) (func(name string, args ...string) *exec.Cmd, error) {
	if os.Geteuid() != 0 {
		return exec.Command, nil
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		return nil, fmt.Errorf("running as root and no user nobody: %w", err)
	}
	if out, err := exec.Command("chown", u.Uid+":"+u.Gid, dir).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("chown %s: %v: %s", dir, err, out)
	}
	return func(name string, args ...string) *exec.Cmd {
		cmd := exec.Command("setpriv", append([]string{"--reuid=" + u.Uid, "--regid=" + u.Gid, "--clear-groups", name}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+dir)
		return cmd
	}, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

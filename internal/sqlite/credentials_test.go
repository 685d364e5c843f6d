package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/bettingtest"
	"github.com/foresight-dev/foresight/internal/sqlite"
)

func TestCredentialStore(t *testing.T) {
	t.Parallel()
	bettingtest.RunCredentials(t, func(t *testing.T) (betting.Store, betting.CredentialStore) {
		db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "test.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db.BettingStore(), db.CredentialStore()
	})
}

package postgres_test

import (
	"context"
	"testing"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/bettingtest"
	"github.com/foresight-dev/foresight/internal/postgres"
	"github.com/foresight-dev/foresight/internal/postgres/pgtest"
)

func TestCredentialStore(t *testing.T) {
	t.Parallel()
	bettingtest.RunCredentials(t, func(t *testing.T) (betting.Store, betting.CredentialStore) {
		db, err := postgres.Open(context.Background(), pgtest.NewDatabase(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db.BettingStore(), db.CredentialStore()
	})
}

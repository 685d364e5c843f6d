package bearerkey_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/bearerkey"
)

func TestNewAndParseID(t *testing.T) {
	id := uuid.NewString()
	key, hash := bearerkey.New("abc_", id)
	if !strings.HasPrefix(key, "abc_"+strings.ReplaceAll(id, "-", "")+"_") || len(key) < 4+32+1+43 {
		t.Fatalf("key %q", key)
	}
	if !bytes.Equal(hash, bearerkey.Hash(key)) || len(hash) != 32 {
		t.Errorf("hash %x is not the key's SHA-256", hash)
	}
	if again, _ := bearerkey.New("abc_", id); again == key {
		t.Error("two keys of one id are equal")
	}
	if got, ok := bearerkey.ParseID("abc_", key); !ok || got != id {
		t.Errorf("ParseID = %q, %v; want %s", got, ok, id)
	}
	for _, bad := range []string{"", "abc_", "xyz_" + key[4:], "abc_" + strings.Repeat("z", 32) + "_s", "abc_" + strings.ReplaceAll(id, "-", "") + "_", "abc_12_secret"} {
		if got, ok := bearerkey.ParseID("abc_", bad); ok {
			t.Errorf("ParseID(%q) = %q, want refused", bad, got)
		}
	}
}

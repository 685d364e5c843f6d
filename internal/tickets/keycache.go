package tickets

import (
	"context"
	"sync"
	"time"
)

// keyCacheTTL bounds how long a key and its client, once read from the
// store, answer Authenticate without another read. This node's
// revocations and client updates (RevokeKey, UpdateClient) drop their
// entries at once; another node's take effect here within keyCacheTTL.
// Every other check (the secret's hash, expiry, suspension, the feature
// switch) is made on every request as before.
const keyCacheTTL = time.Second

// keyCacheSize is how many keys the cache holds before a put drops the
// expired ones, and everything when none has expired.
const keyCacheSize = 10_000

// keyCache remembers recently read API keys by key id. Only keys the store
// found are remembered: an unknown or malformed key costs a read each time.
type keyCache struct {
	mu      sync.Mutex
	entries map[string]cachedKey
	// gen counts the drops: a read that started before a drop does not put
	// what it read, which may be older than the drop.
	gen uint64
}

type cachedKey struct {
	key    APIKey
	client Client
	at     time.Time
}

func newKeyCache() *keyCache { return &keyCache{entries: map[string]cachedKey{}} }

// lookup returns the key with id and its client, from the cache when it
// has them from less than keyCacheTTL ago, else from read.
func (c *keyCache) lookup(ctx context.Context, id string, read func(context.Context, string) (APIKey, Client, error)) (APIKey, Client, error) {
	now := time.Now()
	c.mu.Lock()
	e, ok := c.entries[id]
	gen := c.gen
	c.mu.Unlock()
	if ok && now.Sub(e.at) < keyCacheTTL {
		return e.key, e.client, nil
	}
	k, cl, err := read(ctx, id)
	if err != nil {
		return k, cl, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return k, cl, nil
	}
	if len(c.entries) >= keyCacheSize {
		for id, e := range c.entries {
			if now.Sub(e.at) >= keyCacheTTL {
				delete(c.entries, id)
			}
		}
		if len(c.entries) >= keyCacheSize {
			clear(c.entries)
		}
	}
	c.entries[id] = cachedKey{key: k, client: cl, at: now}
	return k, cl, nil
}

// dropKey forgets the key with id.
func (c *keyCache) dropKey(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	delete(c.entries, id)
}

// dropClient forgets every key of the client with id.
func (c *keyCache) dropClient(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for k, e := range c.entries {
		if e.client.ID == id {
			delete(c.entries, k)
		}
	}
}

package sandboxweb

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The sizes of the pages and lists every Site's ledger page and control
// API show.
const (
	// LedgerPageSize is the number of entries on one ledger page.
	LedgerPageSize = 50
	// StoredPageSize is the number of stored answers the ledger page lists.
	StoredPageSize = 50
	// WalletsPageSize is the number of wallets the ledger page lists.
	WalletsPageSize = 100
	// StateListSize is the most items of each list the control API's
	// state shows (the newest ledger entries first).
	StateListSize = 100
)

// IDsPage returns the sorted ids of wallets that filter selects (every id
// when filter is ""), at most size, and how many more there are.
func IDsPage[V any](wallets map[string]V, filter string, size int) (ids []string, more int) {
	for id := range wallets {
		if filter == "" || id == filter {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	if len(ids) > size {
		return ids[:size], len(ids) - size
	}
	return ids, 0
}

// WalletRow is a wallet as a ledger page's table shows it.
type WalletRow struct {
	ID, Balance, Currency string
	Blocked               bool
	// BetLimit is shown when the page's BetLimits is set.
	BetLimit string
}

// ListWallets sets the wallets part of the ledger page l: the rows of the
// wallets l.Filter selects, a page of at most size (IDsPage), how many
// more there are, and the blocked ids without a wallet (BlockedOnly).
func ListWallets[W, E, S any](l *Ledger[E, S], wallets map[string]W, blocked map[string]bool, size int, row func(id string) WalletRow) {
	ids, more := IDsPage(wallets, l.Filter, size)
	for _, id := range ids {
		l.Wallets = append(l.Wallets, row(id))
	}
	l.MoreWallets, l.Blocked = more, BlockedOnly(blocked, wallets, l.Filter)
}

// BlockedOnly returns, sorted, the blocked ids that filter selects and that
// have no wallet yet.
func BlockedOnly[V any](blocked map[string]bool, wallets map[string]V, filter string) []string {
	var out []string
	for id := range blocked {
		if _, ok := wallets[id]; !ok && (filter == "" || id == filter) {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// LedgerPage returns the ledger entries (kept oldest first) of the wallet
// filter (every wallet when ""), newest first, before the sequence number
// before (0: from the newest), at most size; and the link to the older
// ones on /sandbox/ledger, whose filter parameter is param, or "" when
// there are none.
func LedgerPage[E any](ledger []E, seq func(E) int64, wallet func(E) string, filter string, before int64, size int, param string) (page []E, older string) {
	for i := len(ledger) - 1; i >= 0; i-- {
		e := ledger[i]
		if (before > 0 && seq(e) >= before) || (filter != "" && wallet(e) != filter) {
			continue
		}
		if len(page) == size {
			return page, "/sandbox/ledger?" + url.Values{param: {filter}, "before": {strconv.FormatInt(seq(page[len(page)-1]), 10)}}.Encode()
		}
		page = append(page, e)
	}
	return page, ""
}

// NewestFirst sorts items by descending sequence number and keeps at most
// size; more is how many it left out.
func NewestFirst[E any](items []E, seq func(E) int64, size int) (page []E, more int) {
	sort.Slice(items, func(i, j int) bool { return seq(items[i]) > seq(items[j]) })
	if len(items) > size {
		return items[:size], len(items) - size
	}
	return items, 0
}

// Ledger is what both ledger pages show beside their wallets: one page of
// ledger entries E, the stored answers S and the journal's failure.
type Ledger[E, S any] struct {
	// Subject is the noun of a wallet's owner ("bettor"), Param the query
	// parameter naming one ("bettor_id").
	Subject, Param string
	// Filter is the wallet id the page shows; "" for every wallet.
	Filter string
	// Wallets are the rows of the wallets Filter selects, MoreWallets how
	// many more there are (ListWallets); BetLimits shows their bet limits.
	Wallets     []WalletRow
	MoreWallets int
	BetLimits   bool
	// Blocked are the blocked ids without a wallet (BlockedOnly).
	Blocked []string
	// Entries and Older: LedgerPage.
	Entries []E
	Older   string
	// Stored and MoreStored: NewestFirst of the stored answers.
	Stored     []S
	MoreStored int
	// Failed says that the journal failed for good and the sandbox must be
	// restarted (a fixed text: the journal logs why); "" when it did not.
	Failed string
}

// Read sets Subject and Param, and Filter from the request's param, and
// returns its before= (0 when absent).
func (l *Ledger[E, S]) Read(r *http.Request, subject, param string) (before int64) {
	q := r.URL.Query()
	l.Subject, l.Param = subject, param
	l.Filter = q.Get(param)
	before, _ = strconv.ParseInt(q.Get("before"), 10, 64)
	return before
}

// SubjectTitle is Subject capitalised ("Bettor").
func (l *Ledger[E, S]) SubjectTitle() string {
	if l.Subject == "" {
		return ""
	}
	return strings.ToUpper(l.Subject[:1]) + l.Subject[1:]
}

// Fail notes the journal's failure for good, if err is one.
func (l *Ledger[E, S]) Fail(err error) {
	if err != nil {
		l.Failed = "The journal failed and the state could not be read back from it: restart the sandbox (its log says why)."
	}
}

// Snapshot is what a control API's GET /sandbox/api/state shows of a
// partner's wallets: the view of every wallet, sorted by id; every blocked
// id, sorted; and the newest entries of the ledger (kept oldest first), at
// most newest, newest first. None of the three is nil. view is the
// partner's lookup of a wallet's view; it is asked only for ids of
// wallets, so its bool is not read.
func Snapshot[W, V, E any](wallets map[string]W, view func(id string) (V, bool), blocked map[string]bool, ledger []E, newest int) (views []V, blockedIDs []string, entries []E) {
	views = make([]V, 0, len(wallets))
	for _, id := range slices.Sorted(maps.Keys(wallets)) {
		v, _ := view(id)
		views = append(views, v)
	}
	blockedIDs = slices.Sorted(maps.Keys(blocked))
	if blockedIDs == nil {
		blockedIDs = []string{}
	}
	n := min(len(ledger), newest)
	entries = make([]E, 0, n)
	for i := len(ledger) - 1; i >= len(ledger)-n; i-- {
		entries = append(entries, ledger[i])
	}
	return views, blockedIDs, entries
}

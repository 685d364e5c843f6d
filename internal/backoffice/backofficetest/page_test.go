package backofficetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestPage: data is shown as text, never run as markup; the texts and
// translations of an event are saved; Escape leaves a confirmation
// without acting; the screens fit a phone's width; a token the server
// refuses sends the user back to sign in.
func TestPage(t *testing.T) {
	w := newSandboxWorld(t)
	const markup = `<img src=x onerror="window.__injected=1">Final`
	ev := w.createEvent("sports", markup, "Who wins?")
	tb := w.signIn()

	tb.WaitFor("the event listed", fmt.Sprintf("document.querySelector('tr[data-event=%q] a')", ev.ID))
	if got := tb.Text(fmt.Sprintf("tr[data-event=%q] a", ev.ID)); got != markup {
		t.Errorf("the title shows as %q, want the text %q", got, markup)
	}
	tb.Click(fmt.Sprintf("tr[data-event=%q] a", ev.ID))
	tb.WaitFor("the event page", "document.body.dataset.view === 'events'")
	var injected bool
	tb.Eval("window.__injected === 1 || document.querySelectorAll('#view img').length > 0", &injected)
	if injected {
		t.Fatal("markup in an event's title became elements")
	}

	// Texts and translations.
	tb.Click("details:has(form[data-texts]) > summary")
	tb.Click("form[data-texts] fieldset:first-of-type > button")
	tb.TypeIn("form[data-texts] fieldset:first-of-type .text-row:last-child [data-locale]", "de")
	tb.TypeIn("form[data-texts] fieldset:first-of-type .text-row:last-child [data-text]", "Finale")
	tb.Click("form[data-texts] button[type=submit]")
	tb.WaitText(".texts-status", "Texts saved.")
	var got struct {
		Title map[string]string `json:"title"`
	}
	w.call("GET", "/admin/v1/events/"+ev.ID, nil, &got)
	if got.Title["de"] != "Finale" || got.Title["en"] != markup {
		t.Errorf("titles after saving: %v", got.Title)
	}

	// Escape leaves the resolve dialog; nothing changes and the focus is
	// back on the button.
	m := ev.Markets[0].ID
	tb.Click(inMarket(m, "[data-action=resolve]"))
	tb.WaitFor("the dialog", "document.querySelector('dialog[open]')")
	tb.Do(chromedp.KeyEvent(kb.Escape))
	tb.WaitFor("the dialog gone", "!document.querySelector('dialog')")
	var focused string
	tb.Eval("document.activeElement?.dataset.action ?? ''", &focused)
	if focused != "resolve" || w.event(ev.ID).Markets[0].Status != "open" {
		t.Errorf("after Escape: focus on %q, market %s", focused, w.event(ev.ID).Markets[0].Status)
	}

	// Phone width: nothing but tables scrolls sideways.
	tb.Viewport(360, 740)
	for _, screen := range []string{"markets", "events/" + ev.ID, "bets", "bettors", "operators", "operators/sandbox", "tickets"} {
		var done bool
		tb.Eval("(document.body.dataset.view = '', true)", &done)
		tb.Navigate(w.URL + "/backoffice/#/" + screen)
		tb.WaitFor(screen, fmt.Sprintf("document.body.dataset.view === %q", strings.Split(screen, "/")[0]))
		if screen == "events/"+ev.ID {
			tb.WaitFor("the exposure", "document.querySelector('[data-exposure]')")
		}
		if wide := tb.pageWidth(); wide > 360 {
			var culprits []string
			tb.Eval(`Array.from(document.querySelectorAll('body *')).filter(e => e.scrollWidth > 361 && getComputedStyle(e).overflowX !== 'auto' && !e.closest('.table-wrap')).slice(0, 8).map(e => e.tagName + '.' + (e.getAttribute('class') ?? '') + ' ' + e.scrollWidth)`, &culprits)
			t.Errorf("#/%s is %d px wide at a phone's 360; too wide: %v", screen, wide, culprits)
		}
	}

	// A token the server no longer takes.
	var done bool
	tb.Eval("(sessionStorage.setItem('foresight.backoffice.token', 'stale'), true)", &done)
	tb.Do(chromedp.Reload())
	tb.WaitText("#signin-status", "The admin token was refused: sign in again.")
	var stored int
	tb.Eval("sessionStorage.length", &stored)
	if stored != 0 {
		t.Error("the refused token is still stored")
	}
}

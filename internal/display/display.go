// Package display holds the one display rule for odds and amounts that the
// bettor widget and the backoffice share: format.js, a plain ES module
// that both serve as js/format.js from this one embedded file (neither has
// a build step, and go:embed cannot reach outside a package's directory,
// so the pages' one handler, internal/webpage, adds it to each page's
// files beside the other modules they share).
//
// The rule: an amount shows in its currency's minor units (USD 2, JPY 0,
// KWD 3), rounded half to even as settlement rounds, with grouping
// ("1,000.00 USD", "12.50 USD", "0.00 USD"); odds show at 2 decimals,
// rounded down as the platform rounds display odds (entry odds 4.5694 show
// as 4.56); the exact value (4-decimal entry odds, an unrounded payout)
// goes in a title or in details. See docs/decisions.md.
package display

import _ "embed"

// Module is the text of format.js.
//
//go:embed format.js
var Module []byte

// ModulePath is where the widget and the backoffice serve Module, relative
// to their own root (/widget/js/format.js, /backoffice/js/format.js).
const ModulePath = "js/format.js"

package betting

// ThinPrices exposes thinPrices to the package's black-box tests.
var ThinPrices = thinPrices

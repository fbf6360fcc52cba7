package matcher

// FoldTypography folds s as oldText is folded for the loose tiers: compatibility
// forms to their plain ones (NFKC), curly quotes and primes to straight ones, dashes
// to '-', odd spaces to ' ', zero-width characters left out. A name a model sends
// drifts as its text does; the files' names are compared in this form too.
func FoldTypography(s string) string { return foldString(s) }

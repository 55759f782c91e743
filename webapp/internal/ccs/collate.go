package ccs

import (
	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// nameOrder compares team names as the CCS requirements order them
// (results.tsv: "according to the Unicode Collation Algorithm, by default
// using the en-US locale"): accents and case are secondary and tertiary
// differences, so "Ångström" sorts with the A's and "beta" before
// "Gamma". A collator is not safe for concurrent use: each call makes
// one, for one sort.
func nameOrder() func(a, b string) int {
	c := collate.New(language.AmericanEnglish)
	return c.CompareString
}

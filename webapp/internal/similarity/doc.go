// Package similarity is the built-in similarity check (plagiarism
// detection) of the staff tools: pure code, no I/O, no outside service.
//
// # The pipeline
//
//  1. Normalise. A per-language tokenizer (C and C++, Java, Python, Go;
//     [FamilyOf] maps a judge language id such as "cpp20" or "java17" to
//     its family by prefix, so a language added in judge/internal/lang's
//     configuration under a known family's name is checked too) drops
//     comments and whitespace and reduces every token to a symbol:
//     keywords and operators keep their text, every identifier becomes the
//     same symbol (so renaming variables, functions and types changes
//     nothing), numbers, strings and characters collapse to one symbol
//     each, and C preprocessor lines to their directive. Python's
//     indentation is syntax, so it becomes INDENT and DEDENT symbols.
//     Every token keeps its byte range in the original source, which is
//     how matches map back to lines.
//  2. Fingerprint by winnowing (S. Schleimer, D. S. Wilkerson, A. Aiken,
//     "Winnowing: Local Algorithms for Document Fingerprinting", SIGMOD
//     2003, https://doi.org/10.1145/872757.872770): hash every k-gram of
//     symbols (a rolling hash), and in every window of w consecutive
//     hashes keep the rightmost minimum ("robust winnowing"). Any run of at
//     least w+k-1 common symbols is guaranteed to share a fingerprint, no
//     run shorter than k can, and the fingerprints are position-free, so
//     reordering functions only loses the k-grams that straddle a boundary.
//  3. Index and rank. An inverted index from fingerprint to the sources
//     holding it (per problem and language family); a fingerprint held by
//     more than MaxShare of a group's sources is boilerplate (includes,
//     fast I/O, a main signature) and is dropped, as MOSS does. Pairs are
//     then counted only from shared posting lists, never by comparing all
//     n(n-1)/2 pairs (counts go in a triangular array of uint16 for
//     groups of up to 6,000 sources, a map beyond, and only the best
//     MaxPairs are kept, in a heap); two sources of the same user are
//     never a pair. A pair's score is the Dice coefficient of the
//     fingerprint sets, 2·shared/(|A|+|B|), so a short source inside a long
//     one does not rank as a copy; the coverage of each side is reported
//     beside it.
//  4. Compare. For the side-by-side view of one pair, [Compare] seeds on
//     every common k-gram, extends each seed to a maximal run of equal
//     symbols, and keeps a greedy tiling (longest runs first, no symbol
//     used twice on either side), returned as byte and line ranges of the
//     original sources.
//
// # Where it runs
//
// On the web node, inside the staff's request, through a per-node slot
// (webapp/internal/simcheck: one check at a time per node, others wait up
// to 30 s, then 503), not as a CLI over the export. Ranking 3,000 sources
// of one problem takes 0.15 s here on two cores, 0.3 s through the API
// with MySQL and 1.5 million candidate pairs (make bench, item 6;
// TestSimilarityThreeThousand), far inside the minute allowed, so a
// background job with stored results, polling and its own lifecycle, or a
// second tool that staff must install, download an export for and run,
// would buy nothing: the answer is always computed from the current
// submissions, any web node can serve it (no job state to share between
// nodes, no migration), and staff use it from the page they already have.
// The slot, the source cap (20,000) and the request's own 2-minute
// deadline bound what one check can cost the node.
package similarity

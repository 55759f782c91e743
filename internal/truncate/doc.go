// Package truncate cuts text to a byte budget without splitting a UTF-8
// sequence: the one rule every sender of bounded text uses — a judge's
// compile and checker messages (protocol.MaxCompileMessage,
// protocol.MaxCaseMessage), a refusal's message, the web node's copy of a
// result, a WebSocket close reason.
//
// UTF8 cuts silently; Marked ends a cut text with Mark so a reader sees it
// was cut. Both return s itself when it fits, and a prefix of s (plus
// Mark) of at most n bytes otherwise: the longest one that ends on a rune
// boundary, so a valid s gives a valid result.
package truncate

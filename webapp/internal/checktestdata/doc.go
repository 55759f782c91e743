// Package checktestdata interprets checktestdata scripts (.ctd), the
// input validators of many ICPC problem packages: a script describes an
// input byte for byte (INT, FLOAT, FLOATP, STRING, REGEX, SPACE, NEWLINE,
// EOF), with variables, arrays, arbitrary-precision integers, loops (REP,
// REPI, WHILE, WHILEI), IF/ELSE, ASSERT and the tests UNIQUE, INARRAY,
// MATCH, ISEOF, STRLEN. It is Verdict's own implementation of the
// language as its specification (checktestdata's format-spec) describes
// it; docs/problems.md lists the subset and where it differs.
//
// It owns the parsing (Parse: a *SyntaxError names the script's line and
// column) and the checking of one input (Program.Check: an *InputError
// names the input's line and position and the script's command), bounded
// by Limits (steps, input size, integer size); regular expressions are
// Go's RE2 (no backreferences or lookaround: such a script is refused
// with a clear error). It is pure: bytes in, an error out, no I/O.
package checktestdata

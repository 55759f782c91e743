// Package lang owns the judge's languages: the built-in definitions (C17,
// C++17, C++20, Python 3, Java 17, Go), the JSON configuration file merged
// over them by id, the per-language time and memory scaling, the source
// file name rule (Java: the public class names the file), placeholder
// expansion in compile and run commands, and detection at start (a
// language whose programs are missing is not advertised; the version
// string comes from the toolchain itself).
package lang

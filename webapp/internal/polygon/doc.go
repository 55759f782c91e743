// Package polygon imports a problem from the package Codeforces' Polygon
// exports (a zip with problem.xml at its top, or under one directory) into
// Verdict's terms: the same icpcpkg.Problem the ICPC import gives (title,
// Markdown statement with its image assets, limits, checker, mode), a test
// data package (internal/testpkg), and the package's solutions with their
// tags and its validators. It is pure: bytes in, values out, no I/O.
//
// What maps (docs/problems.md, "Polygon packages"):
//
//   - names/name: the title, English first.
//   - judging/testset name="tests": time-limit (ms), memory-limit (bytes),
//     input-path-pattern and answer-path-pattern (one %d verb, e.g.
//     tests/%02d and tests/%02d.a), the tests in order with sample="true"
//     (samples), group and points. The tests must be in the package: a
//     generated test whose input or answer file is missing (Polygon's
//     "standard" package without tests) refuses the import, naming the
//     file: export the full package (Verdict does not run generators or
//     the main solution at import).
//   - judging input-file / output-file: the files the program reads and
//     writes (Problem.InputFile / OutputFile; "", stdin and stdout are
//     the standard streams).
//   - groups: with groups, or with points on tests, the problem is scored
//     (IOI mode). A complete-group group is one subtask worth its points
//     (the group's points attribute, else the sum of its tests' points);
//     an each-test group is one subtask per test, worth that test's
//     points. A group's dependencies become its subtasks' Depends (the
//     subtasks of the groups it depends on).
//   - assets/checker: its source (a testlib checker, `checker input output
//     answer`) becomes the special judge, compiled by the judges with the
//     package's files/testlib.h when it has one.
//   - assets/interactor: the interactor in testlib's convention (the
//     checker then checks the interactor's output).
//   - Languages (languages.go), by the source's type: cpp.* and c.* are
//     C++ and C; python.3 and python.pypy3* a Python 3 program, java8,
//     java11, java21 a Java one (testpkg.ProgramLanguages, under its own
//     name). A checker or interactor of any other type (Python 2, Pascal,
//     Kotlin, C#, Go, …) refuses the package naming the file and type.
//   - assets/validators: kept in Result.Validators; each one in C, C++
//     (with the package's headers), Python 3, Java or Go is also a
//     Problem.InputValidators entry (testlib's convention, exit 0 valid),
//     which the web node has a judge run over every test at import
//     (docs/problems.md); the others are noted.
//   - assets/solutions: Result.Solutions with Polygon's tags (main,
//     accepted, rejected, wrong-answer, time-limit-exceeded,
//     memory-limit-exceeded, presentation-error, failed, …).
//   - statements: statements/<lang>/problem-properties.json (legend, input,
//     output, interaction, scoring, notes and sample tests, each LaTeX
//     converted by internal/latex), else the <lang>/*.tex sections
//     (legend.tex, input.tex, …), else statements/<lang>/problem.tex,
//     English first; images next to them become assets. An HTML-only
//     statement is not imported (a note says so).
//   - statement resources (files/ other than sources and testlib.h,
//     e.g. an attached archive listed under <files><resources>) are not
//     imported; tutorials, stresses, tags and properties are ignored.
package polygon

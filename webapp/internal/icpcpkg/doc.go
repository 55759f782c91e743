// Package icpcpkg imports a problem from an ICPC problem package (the
// format of problemtools and Kattis, https://icpc.io/problem-package-format/,
// legacy and 2023-07 layouts) into Verdict's terms: the problem's title,
// Markdown statement, limits, checker and mode, and a test data package
// (internal/testpkg). It is pure: bytes in, values out, no I/O.
//
// What maps and what does not:
//
//   - problem.yaml: name (a string or a map by language, English first),
//     type/validation (scoring → IOI mode), validator_flags (without an
//     output validator of the package's own: the checker CheckerICPC, the
//     format's default output validator with these flags; a flag it does
//     not define refuses the package), limits.time_limit (seconds; or the
//     legacy .timelimit file) and limits.memory (MiB).
//   - Statement: problem_statement/ or statement/ problem.<lang>.md or
//     problem.md, English preferred; else problem.<lang>.tex converted to
//     Markdown by internal/latex (statement.go). The images it shows
//     (\includegraphics, or a Markdown image with a relative path) and
//     every file of attachments/ become Problem.Assets, linked as
//     asset:<name>; the samples (data/sample) are appended to the
//     statement, as problemtools shows them.
//   - Test data: data/sample then data/secret, each .in with its .ans, in
//     path order (the format's order). For scoring problems each group
//     directory under data/secret becomes subtasks by its test_group.yaml
//     or testdata.yaml (scoring.go): points from max_score, score, range
//     or accept_score (else the groups share 100 equally), pass-fail and
//     min groups one subtask, summed groups one per case, require_pass
//     their dependencies; samples form a 0-point subtask. A scoring
//     validator's score.txt is the test data package's KattisScore.
//   - Interactive problems (legacy `validation: custom interactive`, or
//     2023-07 `type: interactive`): the output validator — one C or C++
//     source with its headers, or a Python 3 or Java program (a file, or
//     several with main.py / Main.java the entry point), in
//     output_validators/<name>/ or output_validator/ — becomes the test
//     data package's interactor in the Kattis convention (`validator
//     input answer feedback_dir [validator_flags]`, exit 42/43), compiled
//     by the judges (a Python or Java one with its language's commands,
//     testpkg.ProgramLanguages); validators in other languages or with
//     build/run scripts are refused.
//   - Other custom output validators (legacy `validation: custom`, or
//     2023-07 output_validator/) become the problem's checker in the
//     Kattis convention (validator.go), under the same rules.
//   - Input validators (input_validators/ or the legacy
//     input_format_validators/): each program, a file or a directory of
//     files, in C, C++, Python 3, Java or Go (by its files' endings; a
//     directory's sources compiled together, main.py or Main.java the
//     entry point of several), becomes an InputValidator (Kattis
//     convention: exit 42 valid, 43 invalid) that the web node has a judge
//     run over every input at import, each input with its test data
//     group's input_validator_flags (a group without them has its
//     parent's: groupSetting). checktestdata scripts (.ctd) are parsed
//     (webapp/internal/checktestdata) into Problem.Checktestdata, which
//     the web node runs itself over every input (CheckInputs,
//     checktestdata.go). VIVA scripts, build/run scripts and other
//     languages are noted as not run. Generators are ignored and listed
//     in Notes.
//   - Groups' output_validator_flags follow validator_flags for their
//     cases (the test data package's per-case ValidatorArgs), for the
//     package's own checker or interactor and for the default validator
//     (the package's DefaultValidatorFlags, checked).
//   - grader_flags accept_if_any_accepted, in any group, refuses the
//     package (checkGraderFlags): Verdict accepts a group only when all
//     its cases are.
//   - The test data groups' on_reject and grader_flags (first_error,
//     worst_error, always_accept, ignore_sample on data/) decide the
//     verdict as the default grader does (grading.go): a package that
//     sets something else than the defaults carries its group tree
//     (testpkg.Grading), which the judges grade by.
//   - A legacy scoring group under the default grader with a scoring
//     validator is one Sum subtask (its cases' scores added up when all
//     are accepted, nothing otherwise), as the format grades it.
package icpcpkg

package stack

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// thirdsPackage (issue 17): an ICPC package judged by the default output
// validator whose flags differ by test data group. The answer to x is
// "Yes" and x/3 to nine decimals. data/'s legacy testdata.yaml gives
// every group float_tolerance 1e-6; the loose group's own testdata.yaml
// float_absolute_tolerance 0.1; the strict group's 2025-09
// test_group.yaml case_sensitive alone (no tolerance: numbers compare as
// text there).
func thirdsPackage() []byte {
	files := map[string]string{
		"thirds/problem.yaml":                           "name: Thirds\nlimits:\n  time_limit: 2\n",
		"thirds/problem_statement/problem.en.md":        "# Thirds\n\nSay Yes, then x/3.\n",
		"thirds/data/testdata.yaml":                     "output_validator_flags: float_tolerance 1e-6\n",
		"thirds/data/sample/1.in":                       "7\n",
		"thirds/data/sample/1.ans":                      "Yes\n2.333333333\n",
		"thirds/data/secret/tight/1.in":                 "1\n",
		"thirds/data/secret/tight/1.ans":                "Yes\n0.333333333\n",
		"thirds/data/secret/loose/1.in":                 "100\n",
		"thirds/data/secret/loose/1.ans":                "Yes\n33.333333333\n",
		"thirds/data/secret/loose/testdata.yaml":        "output_validator_flags: float_absolute_tolerance 0.1\n",
		"thirds/data/secret/strict/1.in":                "3\n",
		"thirds/data/secret/strict/1.ans":               "Yes\n1.000000000\n",
		"thirds/data/secret/strict/test_group.yaml":     "output_validator_args: [case_sensitive]\n",
		"thirds/submissions/accepted/precise.py":        "x = int(input())\nprint('Yes')\nprint('%.9f' % (x / 3))\n",
		"thirds/submissions/accepted/rough.py":          thirdsRough,
		"thirds/submissions/wrong_answer/lower.py":      "x = int(input())\nprint('yes')\nprint('%.9f' % (x / 3))\n",
		"thirds/submissions/wrong_answer/two.py":        "x = int(input())\nprint('Yes')\nprint('%.2f' % (x / 3))\n",
		"thirds/submissions/wrong_answer/notation.py":   "x = int(input())\nprint('Yes')\nprint('%.9e' % (x / 3))\n",
		"thirds/submissions/accepted/notation_loose.py": thirdsNotation,
	}
	return zipFiles(files)
}

// thirdsRough is accepted only by the groups' own flags: lower case
// wherever case does not matter, two decimals where the loose group
// allows 0.1, seven where 1e-6 is allowed, the exact text in the strict
// group.
const thirdsRough = `x = int(input())
print('Yes' if x == 3 else 'yes')
if x == 100:
    print('%.2f' % (x / 3))
elif x == 3:
    print('%.9f' % (x / 3))
else:
    print('%.7f' % (x / 3))
`

// thirdsNotation writes the number in another notation wherever a
// tolerance is set (accepted: any notation of a number is), and as the
// answer in the strict group, where none is.
const thirdsNotation = `x = int(input())
print('Yes')
print('%.9f' % (x / 3) if x == 3 else '%.12e' % (x / 3))
`

// importDefaultValidatorFlags (issue 17; run by
// TestImportValidationRealJudge on its stack): the thirds package through
// nginx, a web node and a real judge: the problem's checker is the ICPC
// default output validator, and its reference solutions get their
// expected verdicts only if each case is judged with its own group's
// flags: rough (loose tolerance, lower case) and notation_loose accepted;
// lower (case in the strict group), two (two decimals in the tight group)
// and notation (an exponent where the strict group has no tolerance)
// wrong.
func importDefaultValidatorFlags(t *testing.T, api func(method, path, ct string, body []byte) (int, []byte)) {
	t.Helper()
	imp := importer(api)
	st, _, raw := imp(thirdsPackage(), "slug", "thirds")
	if st != http.StatusCreated {
		t.Fatalf("the thirds package: %d %s", st, raw)
	}
	st, body := api(http.MethodGet, "/api/problems/thirds", "", nil)
	var p struct{ Problem struct{ Checker string } }
	if err := json.Unmarshal(body, &p); st != http.StatusOK || err != nil || p.Problem.Checker != "icpc" {
		t.Fatalf("the problem: %d %s", st, body)
	}
	expectSolutions(t, api, "thirds", 6)
	if strings.Contains(raw, "not applied") {
		t.Errorf("the import still says flags are not applied: %s", raw)
	}
}

package rehearsal

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"

	"github.com/verdict-oj/verdict/deploy/internal/harness"
	"github.com/verdict-oj/verdict/internal/testpkg"
)

// Source is the program a contestant submits for s: a plausible program in
// its language with the marker line the simulated judges read the verdict
// from (package simjudge), distinct per contestant and submission.
func Source(s Sub, caseMs int, user string, n int) string {
	marker := fmt.Sprintf("sim: verdict=%s ms=%d", s.Verdict, caseMs)
	if s.FailCase > 0 {
		marker += fmt.Sprintf(" case=%d", s.FailCase)
	}
	tag := fmt.Sprintf("%s submission %d", user, n)
	switch s.Language {
	case "py3":
		return "# " + marker + "\n# " + tag + "\na, b = map(int, input().split())\nprint(a + b)\n"
	case "java17":
		return "// " + marker + "\n// " + tag + "\nimport java.util.*;\npublic class Main {\n  public static void main(String[] a) {\n" +
			"    Scanner s = new Scanner(System.in);\n    System.out.println(s.nextLong() + s.nextLong());\n  }\n}\n"
	case "c17":
		return "// " + marker + "\n// " + tag + "\n#include <stdio.h>\nint main(void) { long long a, b; scanf(\"%lld %lld\", &a, &b); printf(\"%lld\\n\", a + b); }\n"
	default:
		return "// " + marker + "\n// " + tag + "\n#include <iostream>\nint main() { long long a, b; std::cin >> a >> b; std::cout << a + b << '\\n'; }\n"
	}
}

// createProblem creates p (contest-only: its contest shows it) with its
// test data.
func createProblem(ctx context.Context, admin *harness.Client, p Problem) error {
	langs := make([]string, 0, len(Languages))
	for _, l := range Languages {
		langs = append(langs, l.ID)
	}
	body := map[string]any{
		"slug": p.Slug, "title": p.Title, "statement": "Read two integers $a$ and $b$; print $a+b$.",
		"time_limit_ms": 1000, "memory_limit_kb": 262144, "checker": "default",
		"mode": "icpc", "visibility": "contest-only", "languages": langs,
	}
	if err := admin.Call(ctx, http.MethodPost, "/api/problems", body, nil); err != nil {
		return fmt.Errorf("rehearsal: create problem %s: %w", p.Slug, err)
	}
	r := rand.New(rand.NewPCG(uint64(p.Cases), 7))
	cases := make([]testpkg.Case, p.Cases)
	for i := range cases {
		a, b := r.Int64N(2e9)-1e9, r.Int64N(2e9)-1e9
		cases[i] = testpkg.Case{In: fmt.Appendf(nil, "%d %d\n", a, b), Ans: fmt.Appendf(nil, "%d\n", a+b)}
	}
	zip, _, err := testpkg.Build(cases, nil)
	if err != nil {
		return fmt.Errorf("rehearsal: test data of %s: %w", p.Slug, err)
	}
	var up struct {
		Cases int `json:"case_count"`
	}
	if err := admin.Upload(ctx, "/api/problems/"+p.Slug+"/testdata", "application/zip", zip, &up); err != nil {
		return fmt.Errorf("rehearsal: upload test data of %s: %w", p.Slug, err)
	}
	if up.Cases != p.Cases {
		return fmt.Errorf("rehearsal: %s: uploaded %d cases, want %d", p.Slug, up.Cases, p.Cases)
	}
	return nil
}

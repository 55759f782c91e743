package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/webapp/internal/icpcpkg"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// applyIO merges the file I/O and output-only fields of req into p and
// validates them: names are plain file names (protocol.ValidIOFileName),
// not the same file; an output-only problem has no program, so no file
// I/O.
func (req *problemRequest) applyIO(p *store.Problem) *APIError {
	if req.InputFile != nil {
		p.InputFile = strings.TrimSpace(*req.InputFile)
	}
	if req.OutputFile != nil {
		p.OutputFile = strings.TrimSpace(*req.OutputFile)
	}
	if req.OutputOnly != nil {
		p.OutputOnly = *req.OutputOnly
	}
	const names = "must be empty (stdin / stdout) or a plain file name: 1 to 64 of A-Z a-z 0-9 . _ -, not starting with a dot"
	switch {
	case p.InputFile != "" && !protocol.ValidIOFileName(p.InputFile):
		return badField("input_file", names)
	case p.OutputFile != "" && !protocol.ValidIOFileName(p.OutputFile):
		return badField("output_file", names)
	case p.InputFile != "" && p.InputFile == p.OutputFile:
		return badField("output_file", "must differ from input_file")
	case p.OutputOnly && (p.InputFile != "" || p.OutputFile != ""):
		return badField("output_only", "an output-only problem has no program: leave input_file and output_file empty")
	}
	return nil
}

// testlibErr refuses (400, field file) a package whose checker or
// interactor includes testlib.h when the package carries no testlib.h
// and no live judge has one in its include directory (judges offer
// protocol.LanguageTestlib in hello when they do).
func (s *Server) testlibErr(r *http.Request, pkg testpkg.Package) error {
	prog, needs := pkg.NeedsJudgeTestlib()
	return s.judgesHaveTestlib(r, prog, needs)
}

// judgesHaveTestlib is testlibErr's answer for a program prog that needs
// (or not) the judges' testlib.h.
func (s *Server) judgesHaveTestlib(r *http.Request, prog string, needs bool) error {
	if !needs {
		return nil
	}
	has, err := s.judging.JudgesHaveTestlib(r.Context())
	if err != nil {
		return unavailableErr(err)
	}
	if !has {
		return fileErr(fmt.Sprintf("the package's %s includes testlib.h, but the package carries no testlib.h "+
			"and no connected judge has one in its include directory: add testlib.h to the package, or put it on the judges "+
			"(judge agent --testlib-dir, default %s; see docs/problems.md)", prog, "/usr/local/include"))
	}
	return nil
}

// storeSolutions stores an imported package's reference solutions; a
// failure does not undo the import (the problem is there), it is noted.
func (s *Server) storeSolutions(ctx context.Context, problemID int64, sols []icpcpkg.Solution) []string {
	if len(sols) == 0 {
		return nil
	}
	if err := s.cfg.Store.ReplaceProblemSolutions(ctx, problemID, solutionsFromICPC(sols)); err != nil {
		s.log.Error("storing reference solutions failed", "problem_id", problemID, "err", err)
		return []string{"the reference solutions could not be stored: " + err.Error()}
	}
	return nil
}

package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/webapp/internal/catalog"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// Limits of problem fields.
const (
	MinTimeLimitMs    = 100
	MaxTimeLimitMs    = 60000
	MinMemoryLimitKB  = 1024
	MaxMemoryLimitKB  = 8 << 20 // 8 GiB
	MaxStatementBytes = 512 << 10
	MaxTitleChars     = 200
	MaxLanguages      = 32
	MaxFloatTolerance = 1.0
)

// problemRequest is the body of POST /api/problems and PUT
// /api/problems/{slug}. On PUT an absent field keeps its value.
type problemRequest struct {
	Slug           *string   `json:"slug"`
	Title          *string   `json:"title"`
	Statement      *string   `json:"statement"`
	TimeLimitMs    *int      `json:"time_limit_ms"`
	MemoryLimitKB  *int      `json:"memory_limit_kb"`
	Checker        *string   `json:"checker"`
	FloatTolerance *float64  `json:"float_tolerance"`
	Mode           *string   `json:"mode"`
	Visibility     *string   `json:"visibility"`
	Feedback       *string   `json:"feedback"`
	Languages      *[]string `json:"languages"`
	InputFile      *string   `json:"input_file"`
	OutputFile     *string   `json:"output_file"`
	OutputOnly     *bool     `json:"output_only"`
}

// apply merges req into p and validates the result.
func (req *problemRequest) apply(p *store.Problem) *APIError {
	if req.Slug != nil {
		p.Slug = strings.TrimSpace(*req.Slug)
	}
	if req.Title != nil {
		p.Title = strings.TrimSpace(*req.Title)
	}
	if req.Statement != nil {
		p.Statement = *req.Statement
	}
	if req.TimeLimitMs != nil {
		p.TimeLimitMs = *req.TimeLimitMs
	}
	if req.MemoryLimitKB != nil {
		p.MemoryLimitKB = *req.MemoryLimitKB
	}
	if req.Checker != nil {
		p.Checker = *req.Checker
	}
	if req.FloatTolerance != nil {
		p.FloatTolerance = *req.FloatTolerance
	}
	if req.Mode != nil {
		p.Mode = *req.Mode
	}
	if req.Visibility != nil {
		p.Visibility = *req.Visibility
	}
	if req.Languages != nil {
		p.Languages = store.Languages(*req.Languages)
	}
	if req.Feedback != nil {
		p.Feedback = *req.Feedback
	}
	if e := req.applyIO(p); e != nil {
		return e
	}
	if p.Feedback == "" {
		p.Feedback = string(protocol.FeedbackFull)
	}
	switch {
	case !validSlug(p.Slug):
		return badField("slug", "must be 1 to 64 of a-z 0-9 -, starting with a letter or digit")
	case p.Title == "" || utf8.RuneCountInString(p.Title) > MaxTitleChars || !utf8.ValidString(p.Title) || hasControl(p.Title):
		return badField("title", fmt.Sprintf("must be 1 to %d characters without control characters", MaxTitleChars))
	case len(p.Statement) > MaxStatementBytes || !utf8.ValidString(p.Statement):
		return badField("statement", fmt.Sprintf("must be valid UTF-8 of at most %d bytes", MaxStatementBytes))
	case p.TimeLimitMs < MinTimeLimitMs || p.TimeLimitMs > MaxTimeLimitMs:
		return badField("time_limit_ms", fmt.Sprintf("must be %d to %d", MinTimeLimitMs, MaxTimeLimitMs))
	case p.MemoryLimitKB < MinMemoryLimitKB || p.MemoryLimitKB > MaxMemoryLimitKB:
		return badField("memory_limit_kb", fmt.Sprintf("must be %d to %d", MinMemoryLimitKB, MaxMemoryLimitKB))
	case p.Checker != store.CheckerExact && p.Checker != store.CheckerDefault && p.Checker != store.CheckerFloat && p.Checker != store.CheckerSpecial && p.Checker != store.CheckerICPC:
		return badField("checker", "must be exact, default, float, special or icpc")
	case p.Mode != store.ModeICPC && p.Mode != store.ModeIOI:
		return badField("mode", "must be icpc or ioi")
	case p.Visibility != store.VisibilityPublic && p.Visibility != store.VisibilityPrivate && p.Visibility != store.VisibilityContestOnly:
		return badField("visibility", "must be public, private or contest-only")
	case !protocol.FeedbackPolicy(p.Feedback).Valid() || p.Feedback == string(protocol.FeedbackClosed):
		return badField("feedback", "must be full, first_failure or score_only (closed needs a contest's end)")
	}
	if p.Checker == store.CheckerFloat {
		if !(p.FloatTolerance > 0 && p.FloatTolerance <= MaxFloatTolerance) {
			return badField("float_tolerance", "must be above 0 and at most 1 with the float checker")
		}
	} else {
		// Only the float checker has a tolerance; a form that switched
		// checkers may still send the old one.
		p.FloatTolerance = 0
	}
	if len(p.Languages) > MaxLanguages {
		return badField("languages", fmt.Sprintf("at most %d languages", MaxLanguages))
	}
	langs := store.Languages{}
	for _, l := range p.Languages {
		if !validLanguageID(l) {
			return badField("languages", fmt.Sprintf("%q is not a language id (1 to 32 of a-z 0-9 _ + . -)", l))
		}
		if !containsString(langs, l) {
			langs = append(langs, l)
		}
	}
	p.Languages = langs
	return nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return true
		}
	}
	return false
}

func (s *Server) problemJSON(p *store.Problem) ProblemJSON {
	out := ProblemJSON{Slug: p.Slug, Title: p.Title, Statement: p.Statement, TimeLimitMs: p.TimeLimitMs,
		MemoryLimitKB: p.MemoryLimitKB, Checker: p.Checker, Mode: p.Mode, Visibility: p.Visibility,
		Feedback: p.Feedback, Languages: p.Languages, UpdatedAt: p.UpdatedAt,
		InputFile: p.InputFile, OutputFile: p.OutputFile, OutputOnly: p.OutputOnly}
	if out.Languages == nil {
		out.Languages = []string{}
	}
	if p.Checker == store.CheckerFloat {
		out.FloatTolerance = p.FloatTolerance
	}
	if p.TestdataHash.Valid {
		out.TestdataHash = p.TestdataHash.String
	}
	return out
}

func slugConflict(err error, field string) *APIError {
	var dup *store.DuplicateError
	if errors.As(err, &dup) {
		return fieldErr(http.StatusConflict, CodeConflict, field, field+" is already taken")
	}
	return nil
}

// created finishes a problem creation (the id and error of the store's
// insert): a taken slug is 409 field slug, the problem list caches are
// invalidated, and the problem is read back as stored.
func (s *Server) created(r *http.Request, id int64, err error) (store.Problem, error) {
	if e := slugConflict(err, "slug"); e != nil {
		return store.Problem{}, e
	}
	if err != nil {
		return store.Problem{}, unavailableErr(err)
	}
	s.invalidateProblems(r.Context())
	stored, err := s.cfg.Store.ProblemByID(r.Context(), id)
	if err != nil {
		return store.Problem{}, unavailableErr(err)
	}
	return stored, nil
}

// handleCreateProblem creates a problem (onlyStaff). Absent fields take the
// defaults: limits 1000 ms / 262144 KiB, checker default, mode icpc,
// visibility private, every language.
func (s *Server) handleCreateProblem(w http.ResponseWriter, r *http.Request) error {
	u := userOf(r)
	var req problemRequest
	if e := decodeJSON(r, &req); e != nil {
		return e
	}
	if req.Slug == nil {
		return badField("slug", "is required")
	}
	if req.Title == nil {
		return badField("title", "is required")
	}
	p := store.Problem{TimeLimitMs: 1000, MemoryLimitKB: 262144, Checker: store.CheckerDefault, Mode: store.ModeICPC,
		Visibility: store.VisibilityPrivate, Languages: store.Languages{}}
	if e := req.apply(&p); e != nil {
		return e
	}
	p.CreatedBy.Int64, p.CreatedBy.Valid = u.ID, true
	ctx := r.Context()
	id, err := s.cfg.Store.CreateProblem(ctx, p)
	stored, err := s.created(r, id, err)
	if err != nil {
		return err
	}
	s.log.Info("problem created", "slug", p.Slug, "user_id", u.ID, "request_id", requestIDOf(r))
	writeJSON(w, http.StatusCreated, map[string]any{"problem": s.problemJSON(&stored)})
	return nil
}

// handleUpdateProblem changes a problem (onlyStaff); absent fields keep their
// values, a new slug renames it.
func (s *Server) handleUpdateProblem(w http.ResponseWriter, r *http.Request) error {
	u := userOf(r)
	var req problemRequest
	if e := decodeJSON(r, &req); e != nil {
		return e
	}
	ctx := r.Context()
	p, err := s.cfg.Store.ProblemBySlug(ctx, chi.URLParam(r, "slug"))
	if err != nil {
		return err
	}
	if e := req.apply(&p); e != nil {
		return e
	}
	err = s.cfg.Store.UpdateProblem(ctx, p)
	if e := slugConflict(err, "slug"); e != nil {
		return e
	}
	if err != nil {
		return unavailableErr(err)
	}
	s.invalidateProblems(ctx)
	stored, err := s.cfg.Store.ProblemByID(ctx, p.ID)
	if err != nil {
		return unavailableErr(err)
	}
	s.log.Info("problem updated", "slug", p.Slug, "user_id", u.ID, "request_id", requestIDOf(r))
	writeJSON(w, http.StatusOK, map[string]any{"problem": s.problemJSON(&stored)})
	return nil
}

// invalidateProblems drops the cached problem list after a committed
// write. A failure is logged: the entry expires on its own (catalog TTL).
func (s *Server) invalidateProblems(ctx context.Context) {
	if err := s.catalog.InvalidateProblems(ctx); err != nil {
		s.log.Warn("cannot invalidate the problem cache; it expires on its own", obs.Err(err))
	}
	s.judging.WarmPlanChanged() // test data may have changed: warm the judges again
}

// readUpload returns the uploaded file: the multipart field "file", or the
// whole body when its Content-Type is one of raw. At most limit bytes.
func readUpload(r *http.Request, limit int64, raw ...string) ([]byte, *APIError) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	tooBig := func() *APIError {
		return fieldErr(http.StatusRequestEntityTooLarge, CodeTooLarge, "file", fmt.Sprintf("the file is larger than %d bytes", limit))
	}
	readAll := func(rd io.Reader) ([]byte, *APIError) {
		b, err := io.ReadAll(io.LimitReader(rd, limit+1))
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			return nil, tooBig()
		}
		if err != nil {
			return nil, fieldErr(http.StatusBadRequest, CodeValidation, "file", "the upload was cut short: "+err.Error())
		}
		if int64(len(b)) > limit {
			return nil, tooBig()
		}
		return b, nil
	}
	switch {
	case err != nil:
	case mt == "multipart/form-data":
		if params["boundary"] == "" {
			break
		}
		mr := multipart.NewReader(r.Body, params["boundary"])
		for {
			part, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				return nil, badField("file", "is required (a multipart field named file)")
			}
			if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
				return nil, tooBig()
			}
			if err != nil {
				return nil, fieldErr(http.StatusBadRequest, CodeValidation, "file", "the multipart body is malformed: "+err.Error())
			}
			if part.FormName() != "file" {
				part.Close()
				continue
			}
			b, e := readAll(part)
			part.Close()
			return b, e
		}
	default:
		for _, m := range raw {
			if mt == m {
				return readAll(r.Body)
			}
		}
	}
	return nil, apiErr(http.StatusUnsupportedMediaType, CodeUnsupportedMedia,
		"send the file as multipart/form-data (field file) or as "+strings.Join(raw, " or "))
}

// TestdataJSON answers a test data upload.
type TestdataJSON struct {
	Hash      string `json:"hash"`
	CaseCount int    `json:"case_count"`
	SizeBytes int64  `json:"size_bytes"`
	Subtasks  int    `json:"subtasks"`
	Checker   bool   `json:"checker"`
	// Previous is the hash the problem had before, if any.
	Previous string `json:"previous,omitempty"`
}

// handleUploadTestdata validates a test data zip, stores it in the blob
// store by content hash, records the version and makes it current, and
// tells the judges to drop the old one (onlyStaff).
func (s *Server) handleUploadTestdata(w http.ResponseWriter, r *http.Request) error {
	u := userOf(r)
	ctx := r.Context()
	p, err := s.cfg.Store.ProblemBySlug(ctx, chi.URLParam(r, "slug"))
	if err != nil {
		return err
	}
	zipBytes, e := readUpload(r, s.cfg.MaxTestdataBytes, "application/zip", "application/x-zip-compressed")
	if e != nil {
		return e
	}
	// Checked as the judges will unpack it (catalog.CheckTestdata).
	m, err := catalog.CheckTestdata(zipBytes, p.Checker == store.CheckerSpecial)
	if err := s.testdataErr(r, err); err != nil {
		return err
	}
	prog, needs, err := testpkg.ZipNeedsJudgeTestlib(zipBytes, m)
	if err != nil {
		return fileErr(err.Error())
	}
	if err := s.judgesHaveTestlib(r, prog, needs); err != nil {
		return err
	}
	v, err := s.storeTestdata(ctx, zipBytes, m, u)
	if err != nil {
		return internalErr(err)
	}
	v.ProblemID = p.ID
	hash, size := v.Hash, v.SizeBytes
	if err := s.cfg.Store.AddTestdataVersion(ctx, v); err != nil {
		return unavailableErr(err)
	}
	prev := p.TestdataHash.String
	if prev != "" && prev != hash {
		s.evict(ctx, protocol.Evict{ProblemID: p.ID, DataHash: prev})
	}
	s.invalidateProblems(ctx)
	s.log.Info("test data uploaded", "slug", p.Slug, "hash", hash, "cases", len(m.Cases), "bytes", size,
		"previous", prev, "user_id", u.ID, "request_id", requestIDOf(r))
	writeJSON(w, http.StatusCreated, TestdataJSON{Hash: hash, CaseCount: len(m.Cases), SizeBytes: size,
		Subtasks: len(m.Subtasks), Checker: m.Checker != "", Previous: prev})
	return nil
}

// storeTestdata puts a validated test data package in the blob store and
// returns its version row, uploaded by u (ProblemID is the caller's).
func (s *Server) storeTestdata(ctx context.Context, zipBytes []byte, m testpkg.Manifest, u *store.User) (store.TestdataVersion, error) {
	mj, err := json.Marshal(m)
	if err != nil {
		return store.TestdataVersion{}, err
	}
	hash, size, err := s.cfg.Blobs.Put(ctx, bytes.NewReader(zipBytes))
	if err != nil {
		return store.TestdataVersion{}, err
	}
	v := store.TestdataVersion{Hash: hash, SizeBytes: size, CaseCount: len(m.Cases), Manifest: mj}
	v.UploadedBy.Int64, v.UploadedBy.Valid = u.ID, true
	return v, nil
}

// evict tells every hub (and so every judge) that a problem's test data
// version is obsolete (catalog.Evict). Best effort: a judge that misses
// it still uses the new hash each task carries.
func (s *Server) evict(ctx context.Context, ev protocol.Evict) {
	if err := s.catalog.Evict(ctx, ev); err != nil {
		s.log.Warn("cannot publish a test data eviction", "problem_id", ev.ProblemID, "hash", ev.DataHash, obs.Err(err))
	}
}

// validSlug: 1–64 of a-z 0-9 -, starting with a letter or digit (the
// admin pages' pattern), for problems and contests alike.
func validSlug(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' && i > 0) {
			return false
		}
	}
	return true
}

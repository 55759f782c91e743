package server

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"path"
	"strings"

	"github.com/verdict-oj/verdict/webapp/internal/catalog"
	"github.com/verdict-oj/verdict/webapp/internal/icpcpkg"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// ImportExpansion bounds what an imported ICPC package may decompress to,
// as a multiple of MaxTestdataBytes (the zip's own limit): the converter
// holds the whole package in memory, so this bounds the node's memory per
// import (512 MiB with the default 64 MiB). Imports run one at a time per
// node for the same reason.
const ImportExpansion = 8

// maxImportFieldBytes bounds the form fields of an import other than file.
const maxImportFieldBytes = 4 << 10

// importForm is the multipart body of POST /api/problems/import.
type importForm struct {
	zip      []byte
	fileName string // as the browser sent it, for a slug
	slug     *string
	vis      *string
	langs    *[]string
}

// readImportForm reads the multipart fields file (at most limit bytes),
// slug, visibility and languages (repeated, or one field of ids separated
// by commas or spaces), in any order. Unknown or repeated fields are
// refused, like unknown JSON fields elsewhere.
func readImportForm(r *http.Request, limit int64) (importForm, *APIError) {
	var f importForm
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return f, apiErr(http.StatusUnsupportedMediaType, CodeUnsupportedMedia,
			"send multipart/form-data with the package zip in the field file")
	}
	tooBig := func(field string, n int64) *APIError {
		return fieldErr(http.StatusRequestEntityTooLarge, CodeTooLarge, field, fmt.Sprintf("%s is larger than %d bytes", field, n))
	}
	read := func(part *multipart.Part, field string, n int64) ([]byte, *APIError) {
		b, err := io.ReadAll(io.LimitReader(part, n+1))
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			return nil, tooBig("file", limit)
		}
		if err != nil {
			return nil, fieldErr(http.StatusBadRequest, CodeValidation, field, "the upload was cut short: "+err.Error())
		}
		if int64(len(b)) > n {
			return nil, tooBig(field, n)
		}
		return b, nil
	}
	seenFile := false
	mr := multipart.NewReader(r.Body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			return f, tooBig("file", limit)
		}
		if err != nil {
			return f, fieldErr(http.StatusBadRequest, CodeValidation, "file", "the multipart body is malformed: "+err.Error())
		}
		name := part.FormName()
		if name == "file" {
			if seenFile {
				part.Close()
				return f, badField("file", "is given twice")
			}
			b, e := read(part, "file", limit)
			f.fileName = part.FileName()
			part.Close()
			if e != nil {
				return f, e
			}
			f.zip, seenFile = b, true
			continue
		}
		b, e := read(part, name, maxImportFieldBytes)
		part.Close()
		if e != nil {
			return f, e
		}
		v := string(b)
		switch name {
		case "slug":
			if f.slug != nil {
				return f, badField("slug", "is given twice")
			}
			f.slug = &v
		case "visibility":
			if f.vis != nil {
				return f, badField("visibility", "is given twice")
			}
			f.vis = &v
		case "languages":
			if f.langs == nil {
				f.langs = &[]string{}
			}
			*f.langs = append(*f.langs, strings.FieldsFunc(v, func(r rune) bool {
				return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
			})...)
		case "":
			return f, apiErr(http.StatusBadRequest, CodeValidation, "a multipart part has no field name")
		default:
			return f, badField(name, "is not a field of an import (file, slug, visibility, languages)")
		}
	}
	if !seenFile {
		return f, badField("file", "is required (the package zip, a multipart field named file)")
	}
	if len(f.zip) == 0 {
		return f, badField("file", "is empty")
	}
	return f, nil
}

// fileErr is a 400 about the uploaded package (field file).
func fileErr(msg string) *APIError {
	return fieldErr(http.StatusBadRequest, CodeValidation, "file", msg)
}

// slugFrom makes a slug of a package or file name: lower case, every run
// of other characters than a-z 0-9 becomes one "-", no "-" at either end,
// at most 64 bytes. "" when nothing is left.
func slugFrom(name string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(name) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			dash = true
			continue
		}
		sep := dash && b.Len() > 0
		if b.Len()+1+btoi(sep) > 64 {
			break
		}
		if sep {
			b.WriteByte('-')
		}
		b.WriteRune(c)
		dash = false
	}
	return b.String()
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// importedSlug is the slug given, else one from the package's directory
// name, else from the uploaded file's name; "" when none can be made.
func importedSlug(form importForm, p icpcpkg.Problem) string {
	if form.slug != nil {
		return strings.TrimSpace(*form.slug)
	}
	if s := slugFrom(p.ShortName); s != "" {
		return s
	}
	base := path.Base(strings.ReplaceAll(form.fileName, `\`, "/"))
	if base == "." || base == "/" {
		return ""
	}
	return slugFrom(strings.TrimSuffix(base, path.Ext(base)))
}

// packageProblem turns what the converter read into a problem to create,
// with the import's defaults (1000 ms, 262144 KiB) for limits the package
// does not give. A value the web node does not allow is a 400 naming file;
// slug, visibility and languages errors name their own fields.
func packageProblem(ip icpcpkg.Problem, form importForm, slug string) (store.Problem, []string, *APIError) {
	var notes []string
	p := store.Problem{TimeLimitMs: 1000, MemoryLimitKB: 262144, Checker: store.CheckerDefault, Mode: store.ModeICPC,
		Visibility: store.VisibilityPrivate, Languages: store.Languages{}}
	if ip.TimeLimitMs > 0 {
		if ip.TimeLimitMs < MinTimeLimitMs || ip.TimeLimitMs > MaxTimeLimitMs {
			return p, nil, fileErr(fmt.Sprintf("the package's time limit, %d ms, is outside the %d to %d ms this judge allows",
				ip.TimeLimitMs, MinTimeLimitMs, MaxTimeLimitMs))
		}
		p.TimeLimitMs = ip.TimeLimitMs
	} else {
		notes = append(notes, fmt.Sprintf("time limit set to the default %d ms", p.TimeLimitMs))
	}
	if ip.MemoryLimitKB > 0 {
		if ip.MemoryLimitKB < MinMemoryLimitKB || ip.MemoryLimitKB > MaxMemoryLimitKB {
			return p, nil, fileErr(fmt.Sprintf("the package's memory limit, %d KiB, is outside the %d to %d KiB this judge allows",
				ip.MemoryLimitKB, MinMemoryLimitKB, MaxMemoryLimitKB))
		}
		p.MemoryLimitKB = ip.MemoryLimitKB
	} else {
		notes = append(notes, fmt.Sprintf("memory limit set to the default %d KiB", p.MemoryLimitKB))
	}
	title := strings.Join(strings.Fields(ip.Title), " ")
	if title == "" {
		title = slug
		notes = append(notes, "the package has no name: the title is the slug")
	}
	req := problemRequest{Slug: &slug, Title: &title, Statement: &ip.Statement, Checker: &ip.Checker, Mode: &ip.Mode,
		Visibility: form.vis, Languages: form.langs}
	req.InputFile, req.OutputFile = &ip.InputFile, &ip.OutputFile // file I/O (problemio.go)
	if e := req.apply(&p); e != nil {
		switch e.Field {
		case "slug", "visibility", "languages":
			return p, nil, e
		}
		return p, nil, fileErr("the package's " + e.Message)
	}
	return p, notes, nil
}

// ProblemImportJSON answers an import.
type ProblemImportJSON struct {
	Problem  ProblemJSON  `json:"problem"`
	Testdata TestdataJSON `json:"testdata"`
	// Notes says what was not imported or was defaulted.
	Notes []string `json:"notes"`
	// Validation is the outcome of the package's input validators, run
	// on a judge over every input before the import was kept
	// (problems_import_validate.go): valid, or none to run. A refusal is
	// an error answer instead.
	Validation ValidationJSON `json:"validation"`
	// Solutions are the package's reference solutions, queued at once
	// (solutions.go): their runs show as running, then ok or mismatch,
	// on GET /api/problems/{slug}/solutions. Absent without any.
	Solutions *SolutionsJSON `json:"solutions,omitempty"`
}

// handleImportProblem creates a problem and its test data from an ICPC
// problem package (staff): convert (icpcpkg), build the Verdict test data
// package, store it by content hash, then create the problem and record the
// version in one transaction, so a failure leaves no problem behind. A
// package with input validators is validated on a judge before the import
// is kept (problems_import_validate.go); the reference solutions then run
// at once (solutions.go).
func (s *Server) handleImportProblem(w http.ResponseWriter, r *http.Request) error {
	u := userOf(r)
	ctx := r.Context()
	form, e := readImportForm(r, s.cfg.MaxTestdataBytes)
	if e != nil {
		return e
	}
	// The cheap checks first: a bad slug or visibility costs no conversion.
	check := store.Problem{Slug: "x", Title: "x", TimeLimitMs: MinTimeLimitMs, MemoryLimitKB: MinMemoryLimitKB,
		Checker: store.CheckerDefault, Mode: store.ModeICPC, Visibility: store.VisibilityPrivate}
	if e := (&problemRequest{Slug: form.slug, Visibility: form.vis, Languages: form.langs}).apply(&check); e != nil {
		return e
	}
	if form.slug != nil {
		if err := s.slugFree(r, check.Slug, ""); err != nil {
			return err
		}
	}

	select {
	case s.imports <- struct{}{}:
		defer func() { <-s.imports }()
	case <-ctx.Done():
		return unavailableErr(fmt.Errorf("wait for an import slot: %w", ctx.Err()))
	}
	// An ICPC package, or a Polygon one (problem.xml; problems_polygon.go).
	ip, pkg, format, err := convertPackage(form.zip, icpcpkg.Limits{MaxBytes: ImportExpansion * s.cfg.MaxTestdataBytes})
	if err != nil {
		return err
	}
	slug := importedSlug(form, ip)
	if slug == "" {
		return badField("slug", "is required: the package has no directory or file name to take one from")
	}
	p, notes, e := packageProblem(ip, form, slug)
	if e != nil {
		return e
	}
	if form.slug == nil {
		if err := s.slugFree(r, p.Slug, " (taken from the package's name); give another"); err != nil {
			return err
		}
	}
	if err := s.testlibErr(r, pkg); err != nil { // a checker or interactor needing testlib.h (problemio.go)
		return err
	}
	if err := s.validatorsRunnable(r, ip); err != nil { // input validators need a judge (problems_import_validate.go)
		return err
	}
	ctds, err := s.checktestdataInputs(ctx, ip, pkg) // checktestdata scripts, run here (problems_import_validate.go)
	if err != nil {
		return err
	}
	builds, buildNotes, err := s.programBuilds(ctx, ip, pkg) // the checker and interactor, compiled on a judge
	if err != nil {
		return err
	}
	notes = append(notes, buildNotes...)
	// A problem whose inputs are being validated (or programs compiled)
	// is private until they all pass.
	visibility := p.Visibility
	if len(ip.InputValidators) > 0 || len(builds) > 0 {
		p.Visibility = store.VisibilityPrivate
	}
	zipBytes, _, err := pkg.Build()
	if err != nil {
		return fileErr("the package's test data does not make a valid Verdict package: " + err.Error())
	}
	// What the judges will unpack, checked as they will (the shared limits).
	m, err := catalog.CheckTestdata(zipBytes, p.Checker == store.CheckerSpecial)
	if err := s.testdataErr(r, err); err != nil {
		return err
	}
	assets, err := s.storeAssets(ctx, ip.Assets) // blobs first, like the test data
	if err != nil {
		return internalErr(err)
	}
	// The blob first: content-addressed, so a blob whose problem is then
	// not created is harmless (an upload that fails later leaves the same).
	v, err := s.storeTestdata(ctx, zipBytes, m, u)
	if err != nil {
		return internalErr(err)
	}
	hash, size := v.Hash, v.SizeBytes
	p.CreatedBy.Int64, p.CreatedBy.Valid = u.ID, true
	id, err := s.cfg.Store.CreateProblemWithAssets(ctx, p, v, assets)
	stored, err := s.created(r, id, err)
	if err != nil {
		return err
	}
	val, err := s.validateImport(ctx, u, &stored, hash, ip, len(m.Cases), builds)
	if err != nil {
		kept := !s.dropRefusedImport(ctx, stored.ID)
		s.log.Info("problem import refused by its input validation", "slug", p.Slug, "hash", hash, "kept", kept,
			"user_id", u.ID, "request_id", requestIDOf(r))
		var e *APIError
		if kept && errors.As(err, &e) {
			e.Message += " (the problem was kept, private: something was submitted to it meanwhile; delete or fix it)"
		}
		return err
	}
	if len(ctds) > 0 {
		val.Status, val.Validators, val.Inputs = ValidationValid, append(ctds, val.Validators...), len(m.Cases)
	}
	for _, b := range builds {
		if b.late {
			notes = append(notes, fmt.Sprintf("the %s %s was not compiled at import: no judge finished its build check within %s "+
				"(the judges are busy); an error in it shows when it first judges — import again to check it", b.what, b.path, importValidationWait))
			continue
		}
		notes = append(notes, fmt.Sprintf("the %s %s compiles (checked on a judge at import)", b.what, b.path))
	}
	if stored.Visibility != visibility {
		stored.Visibility = visibility
		if err := s.cfg.Store.UpdateProblem(ctx, stored); err != nil {
			return unavailableErr(err)
		}
		s.invalidateProblems(ctx)
	}
	notes = append(append([]string{}, ip.Notes...), notes...)
	notes = append(notes, s.storeSolutions(ctx, stored.ID, ip.Solutions)...) // reference solutions (solutions.go)
	sols, solNotes := s.runImportedSolutions(ctx, &stored, u)
	notes = append(notes, solNotes...)
	s.log.Info("problem imported", "slug", p.Slug, "format", format, "hash", hash, "cases", len(m.Cases),
		"subtasks", len(m.Subtasks), "bytes", size, "validation", val.Status, "user_id", u.ID, "request_id", requestIDOf(r))
	writeJSON(w, http.StatusCreated, ProblemImportJSON{Problem: s.problemJSON(&stored),
		Testdata: TestdataJSON{Hash: hash, CaseCount: len(m.Cases), SizeBytes: size, Subtasks: len(m.Subtasks)},
		Notes:    notes, Validation: val, Solutions: sols})
	return nil
}

// slugFree refuses (409, field slug) a slug a problem has already; a
// store failure is a 503.
func (s *Server) slugFree(r *http.Request, slug, why string) error {
	_, err := s.cfg.Store.ProblemBySlug(r.Context(), slug)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil
	case err == nil:
		return fieldErr(http.StatusConflict, CodeConflict, "slug", fmt.Sprintf("slug %q is already taken%s", slug, why))
	}
	return unavailableErr(err)
}

package server

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/webapp/internal/judging"
)

// problemTypeRoutes: output-only submissions and reference solutions
// (docs/problems.md).
func (s *Server) problemTypeRoutes(r chi.Router) {
	r.With(requireUser).Post("/submissions/outputs", s.h(s.handleSubmitOutputs))
	r.With(onlyStaff("see reference solutions")).Get("/problems/{slug}/solutions", s.h(s.handleSolutions))
	r.With(onlyStaff("run reference solutions")).Post("/problems/{slug}/solutions/run", s.h(s.handleRunSolutions))
}

// outputsForm is the multipart body of POST /api/submissions/outputs.
type outputsForm struct {
	problem, contest string
	// files by case; zip and cases record where each came from, for
	// errors naming it.
	files map[int][]byte
	from  map[int]string
}

// caseOfOutputName maps an output's file name to its case: N, N.out,
// N.txt, outputN.txt, output_N.out (leading zeros allowed; any directory
// ignored). 0 when the name is none of these.
func caseOfOutputName(name string) int {
	base := path.Base(strings.ReplaceAll(name, `\`, "/"))
	stem, _, _ := strings.Cut(base, ".")
	stem = strings.TrimPrefix(strings.ToLower(stem), "output")
	stem = strings.TrimLeft(stem, "_-")
	if stem == "" || len(stem) > 6 {
		return 0
	}
	n, err := strconv.Atoi(stem)
	if err != nil || n < 1 || strconv.Itoa(n) != strings.TrimLeft(stem, "0") {
		return 0
	}
	return n
}

// readOutputsForm reads the fields problem, contest (optional), file (a
// zip of outputs) and case_N (one case's output), in any order; unknown or
// repeated fields are refused. Every output is bounded by
// protocol.MaxOutputsBytes together; the zip's entries are counted as
// really decompressed (a zip bomb ends at the bound).
func readOutputsForm(r *http.Request) (outputsForm, *APIError) {
	f := outputsForm{files: map[int][]byte{}, from: map[int]string{}}
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return f, apiErr(http.StatusUnsupportedMediaType, CodeUnsupportedMedia,
			"send multipart/form-data: problem, and the outputs as a zip in the field file or one per case in fields case_1, case_2, …")
	}
	total := 0
	tooBig := func(field string) *APIError {
		return fieldErr(http.StatusRequestEntityTooLarge, CodeTooLarge, field,
			fmt.Sprintf("%s: the outputs are larger than %d bytes together", field, protocol.MaxOutputsBytes))
	}
	add := func(field, from string, c int, b []byte) *APIError {
		if prev, dup := f.from[c]; dup {
			return badField(field, fmt.Sprintf("gives case %d twice (%s and %s)", c, prev, from))
		}
		total += len(b)
		if total > protocol.MaxOutputsBytes {
			return tooBig(field)
		}
		f.files[c], f.from[c] = b, from
		return nil
	}
	readPart := func(part *multipart.Part, field string, n int) ([]byte, *APIError) {
		b, err := io.ReadAll(io.LimitReader(part, int64(n)+1))
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			return nil, fieldErr(http.StatusRequestEntityTooLarge, CodeTooLarge, field, fmt.Sprintf("the request is larger than %d bytes", mbe.Limit))
		}
		if err != nil {
			return nil, badField(field, "was cut short: "+err.Error())
		}
		if len(b) > n {
			return nil, tooBig(field)
		}
		return b, nil
	}
	seen := map[string]bool{}
	mr := multipart.NewReader(r.Body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			return f, fieldErr(http.StatusRequestEntityTooLarge, CodeTooLarge, "file", fmt.Sprintf("the request is larger than %d bytes", mbe.Limit))
		}
		if err != nil {
			return f, badField("file", "the multipart body is malformed: "+err.Error())
		}
		name := part.FormName()
		if seen[name] {
			part.Close()
			return f, badField(name, "is given twice")
		}
		seen[name] = true
		switch {
		case name == "problem" || name == "contest":
			b, e := readPart(part, name, maxImportFieldBytes)
			part.Close()
			if e != nil {
				return f, e
			}
			if name == "problem" {
				f.problem = strings.TrimSpace(string(b))
			} else {
				f.contest = strings.TrimSpace(string(b))
			}
		case name == "file":
			b, e := readPart(part, "file", 2*protocol.MaxOutputsBytes)
			part.Close()
			if e != nil {
				return f, e
			}
			if e := readOutputsZip(b, add, &total); e != nil {
				return f, e
			}
		case strings.HasPrefix(name, "case_"):
			c := caseOfOutputName(strings.TrimPrefix(name, "case_"))
			if c == 0 {
				part.Close()
				return f, badField(name, "is not a case field (case_1, case_2, …)")
			}
			b, e := readPart(part, name, protocol.MaxOutputsBytes-total)
			part.Close()
			if e != nil {
				return f, e
			}
			if e := add(name, name, c, b); e != nil {
				return f, e
			}
		case name == "":
			part.Close()
			return f, apiErr(http.StatusBadRequest, CodeValidation, "a multipart part has no field name")
		default:
			part.Close()
			return f, badField(name, "is not a field of an output-only submission (problem, contest, file, case_N)")
		}
	}
	switch {
	case f.problem == "":
		return f, badField("problem", "is required")
	case len(f.files) == 0:
		return f, badField("file", "is required: a zip of the outputs (1.out, 2.out, …) or fields case_1, case_2, …")
	}
	return f, nil
}

// readOutputsZip adds every output of a zip; a bad zip or an entry that
// names no case is a 400 naming field file and the entry.
func readOutputsZip(b []byte, add func(field, from string, c int, b []byte) *APIError, total *int) *APIError {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return badField("file", "is not a zip file: "+err.Error())
	}
	if len(zr.File) > protocol.MaxOutputFiles {
		return badField("file", fmt.Sprintf("has %d entries, limit %d", len(zr.File), protocol.MaxOutputFiles))
	}
	for _, zf := range zr.File {
		if strings.HasSuffix(zf.Name, "/") {
			continue
		}
		c := caseOfOutputName(zf.Name)
		if c == 0 {
			return badField("file", fmt.Sprintf("entry %q names no case: call the outputs N.out, N.txt or outputN.txt (N = 1, 2, …)", zf.Name))
		}
		rc, err := zf.Open()
		if err != nil {
			return badField("file", fmt.Sprintf("entry %q: %v", zf.Name, err))
		}
		data, err := io.ReadAll(io.LimitReader(rc, int64(protocol.MaxOutputsBytes-*total)+1))
		rc.Close()
		if err != nil {
			return badField("file", fmt.Sprintf("entry %q: %v", zf.Name, err))
		}
		if e := add("file", "file entry "+strconv.Quote(zf.Name), c, data); e != nil {
			return e
		}
	}
	return nil
}

// handleSubmitOutputs takes an output-only submission (requireUser): the
// outputs are checked against the problem's cases (each names a case of
// its current test data), made the submission's source
// (protocol.EncodeOutputs) and judged by the problem's checker, no
// compile, no run. The rules of a submit apply (judging.Submit:
// Idempotency-Key, rate limit, contest window and teams, visibility).
func (s *Server) handleSubmitOutputs(w http.ResponseWriter, r *http.Request) error {
	key, err := idemKey(r)
	if err != nil {
		return err
	}
	form, e := readOutputsForm(r)
	if e != nil {
		return e
	}
	caseField := func(c int) (string, string) {
		if strings.HasPrefix(form.from[c], "case_") {
			return form.from[c], form.from[c]
		}
		return "file", form.from[c]
	}
	return s.submit(w, r, judging.SubmitRequest{Problem: form.problem, Contest: form.contest,
		Language: protocol.LanguageOutputs, Outputs: form.files, Key: key}, caseField, "outputs submitted", "cases", len(form.files))
}

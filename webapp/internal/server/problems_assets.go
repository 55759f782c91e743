package server

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/verdict-oj/verdict/internal/httpsec"
	"github.com/verdict-oj/verdict/webapp/internal/blob"
	"github.com/verdict-oj/verdict/webapp/internal/icpcpkg"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// Statement images and attachments (docs/problems.md, "Statements"): a
// package's files kept as blobs, listed in problem_assets, served at
// /api/problems/{slug}/assets/{name} to whoever may read the statement.

// assetPolicy is the Content-Security-Policy of a served asset
// (httpsec.AssetPolicy: the edge sends the same on these answers).
const assetPolicy = httpsec.AssetPolicy

// inlineTypes are the types of the images a statement shows, served
// inline (an SVG as a download: see handleProblemAsset); everything else
// is a download.
var inlineTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".svg": "image/svg+xml",
}

// downloadTypes name common attachments; others are
// application/octet-stream.
var downloadTypes = map[string]string{
	".txt": "text/plain; charset=utf-8", ".pdf": "application/pdf", ".zip": "application/zip",
	".py": "text/plain; charset=utf-8", ".cpp": "text/plain; charset=utf-8", ".c": "text/plain; charset=utf-8",
	".h": "text/plain; charset=utf-8", ".java": "text/plain; charset=utf-8", ".in": "text/plain; charset=utf-8",
	".ans": "text/plain; charset=utf-8", ".tar": "application/x-tar", ".gz": "application/gzip",
}

// assetPrefix is how a stored statement links an asset.
const assetPrefix = "](" + icpcpkg.AssetScheme

// statementForView rewrites a statement's asset links to the served URLs.
func statementForView(slug, statement string) string {
	if !strings.Contains(statement, assetPrefix) {
		return statement
	}
	return strings.ReplaceAll(statement, assetPrefix, "](/api/problems/"+slug+"/assets/")
}

// withAttachments appends a list of the attachments to a statement.
func withAttachments(statement string, assets []icpcpkg.Asset) string {
	var b strings.Builder
	for _, a := range assets {
		if a.Kind == icpcpkg.AssetAttachment {
			fmt.Fprintf(&b, "- [%s](%s)\n", markdownText(a.Name), icpcpkg.AssetLink(a.Name))
		}
	}
	if b.Len() == 0 {
		return statement
	}
	return strings.TrimRight(statement, "\n") + "\n\n## Attachments\n\n" + b.String()
}

// markdownText escapes Markdown's characters in a file name.
func markdownText(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_[]()<>#|$!", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// validAssetName: what addAsset lets through, checked again on the URL.
func validAssetName(n string) bool {
	return n != "" && len(n) <= 255 && n == path.Base(n) && !strings.HasPrefix(n, ".") &&
		!strings.ContainsAny(n, "/\\\"\x00\r\n")
}

// storeAssets puts the assets' bytes in the blob store (before the
// problem is created: a blob without a row is harmless) and returns the
// rows to record.
func (s *Server) storeAssets(ctx context.Context, assets []icpcpkg.Asset) ([]store.ProblemAsset, error) {
	var out []store.ProblemAsset
	for _, a := range assets {
		h, err := s.cfg.Blobs.PutBytes(ctx, a.Data)
		if err != nil {
			return nil, fmt.Errorf("store asset %s: %w", a.Name, err)
		}
		out = append(out, store.ProblemAsset{Name: a.Name, Kind: a.Kind, Hash: h, SizeBytes: int64(len(a.Data))})
	}
	return out, nil
}

// problemVisible reports whether the viewer may read p's statement (as
// handleProblem decides).
func (s *Server) problemVisible(r *http.Request, p *store.Problem) (bool, error) {
	a := authOf(r)
	if a.user != nil && a.user.IsStaff() || p.Visibility == store.VisibilityPublic {
		return true, nil
	}
	if p.Visibility == store.VisibilityContestOnly && a.user != nil {
		return s.cfg.Store.InStartedContestOf(r.Context(), a.user.ID, p.ID, s.cfg.Now())
	}
	return false, nil
}

// handleProblemAsset serves one image or attachment of a problem's
// statement to whoever may read the statement (else 404). Images are
// inline, everything else a download; no asset can run script.
func (s *Server) handleProblemAsset(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p, err := s.cfg.Store.ProblemBySlug(ctx, chi.URLParam(r, "slug"))
	if err != nil {
		return err
	}
	ok, err := s.problemVisible(r, &p)
	if err != nil {
		return unavailableErr(err)
	}
	name := chi.URLParam(r, "name")
	if !ok || !validAssetName(name) {
		return errNotFound
	}
	a, err := s.cfg.Store.ProblemAssetByName(ctx, p.ID, name)
	if err != nil {
		return err
	}
	f, err := s.cfg.Blobs.Open(ctx, a.Hash)
	if errors.Is(err, blob.ErrNotFound) {
		s.log.Error("problem asset has no blob", "slug", p.Slug, "name", a.Name, "hash", a.Hash)
		return errNotFound
	}
	if err != nil {
		return unavailableErr(err)
	}
	defer f.Close()
	h := w.Header()
	ext := strings.ToLower(path.Ext(a.Name))
	// An SVG is a document that can carry script: it keeps its type (an
	// <img> shows it, and never runs its script) but is a download when
	// opened on its own, whatever Content-Security-Policy reaches the
	// browser (the edge sends assetPolicy too, but a proxy in front of
	// it might not).
	disposition := "attachment"
	ct, image := inlineTypes[ext]
	switch {
	case image && a.Kind == store.AssetImage:
		if ext != ".svg" {
			disposition = "inline"
		}
	default:
		if ct = downloadTypes[ext]; ct == "" {
			ct = "application/octet-stream"
		}
	}
	h.Set("Content-Type", ct)
	h.Set("Content-Disposition", mime.FormatMediaType(disposition, map[string]string{"filename": a.Name}))
	h.Set("Content-Security-Policy", assetPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("ETag", `"`+a.Hash+`"`)
	// Private: a hidden problem's image is not for shared caches; the
	// bytes of a name change only with a new import, so revalidate.
	h.Set("Cache-Control", "private, no-cache")
	http.ServeContent(w, r, "", f.ModTime, f)
	return nil
}

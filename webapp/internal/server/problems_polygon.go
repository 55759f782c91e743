package server

import (
	"errors"
	"strings"

	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/webapp/internal/icpcpkg"
	"github.com/verdict-oj/verdict/webapp/internal/polygon"
)

// Import formats, as the import logs and answers name them.
const (
	FormatICPC    = "icpc"
	FormatPolygon = "polygon"
)

// convertPackage converts an uploaded package: a Polygon package when the
// zip has problem.xml at its top (or under its one directory), else an
// ICPC one. A package the converter refuses is a 400 (fileErr) naming the
// file in the zip; any other error is the node's (internalErr). The
// statement lists the package's attachments.
func convertPackage(zipBytes []byte, lim icpcpkg.Limits) (icpcpkg.Problem, testpkg.Package, string, error) {
	format, what := FormatICPC, "ICPC"
	var (
		ip  icpcpkg.Problem
		pkg testpkg.Package
		err error
	)
	invalid, unsupported := icpcpkg.ErrInvalid, icpcpkg.ErrUnsupported
	if polygon.IsPolygon(zipBytes) {
		format, what = FormatPolygon, "Polygon"
		invalid, unsupported = polygon.ErrInvalid, polygon.ErrUnsupported
		var r polygon.Result
		r, err = polygon.Convert(zipBytes, lim)
		ip, pkg = r.Problem, r.Testdata
	} else {
		ip, pkg, err = icpcpkg.Convert(zipBytes, lim)
	}
	if errors.Is(err, invalid) || errors.Is(err, unsupported) {
		// The converter's message names the file inside the zip.
		msg := strings.TrimPrefix(strings.TrimPrefix(err.Error(), invalid.Error()+": "), unsupported.Error()+": ")
		prefix := "invalid " + what + " package: "
		if errors.Is(err, unsupported) {
			prefix = "cannot import this " + what + " package: "
		}
		return ip, pkg, format, fileErr(prefix + msg)
	}
	if err != nil {
		return ip, pkg, format, internalErr(err)
	}
	ip.Statement = withAttachments(ip.Statement, ip.Assets)
	return ip, pkg, format, nil
}

package server

import (
	"errors"
	"net/http"

	"github.com/verdict-oj/verdict/webapp/internal/catalog"
)

// testdataOK answers a refusal of catalog.CheckTestdata (400 validation
// naming the field "file", with the reason) and reports whether err is nil.
func (s *Server) testdataOK(w http.ResponseWriter, r *http.Request, err error) bool {
	if err == nil {
		return true
	}
	if te, ok := errors.AsType[*catalog.TestdataError](err); ok {
		s.log.Info("test data refused", "reason", te.Message, "too_large", te.TooLarge, "request_id", requestIDOf(r))
		writeAPIError(w, fieldErr(http.StatusBadRequest, CodeValidation, te.Field, te.Message))
		return false
	}
	s.internal(w, r, err, http.StatusInternalServerError)
	return false
}

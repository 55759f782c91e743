package server

import (
	"errors"
	"net/http"

	"github.com/verdict-oj/verdict/webapp/internal/catalog"
)

// testdataErr is how a refusal of catalog.CheckTestdata is answered: 400
// validation naming the field "file", with the reason; any other error is
// a bug (500). nil for nil.
func (s *Server) testdataErr(r *http.Request, err error) error {
	if err == nil {
		return nil
	}
	if te, ok := errors.AsType[*catalog.TestdataError](err); ok {
		s.log.Info("test data refused", "reason", te.Message, "too_large", te.TooLarge, "request_id", requestIDOf(r))
		return fieldErr(http.StatusBadRequest, CodeValidation, te.Field, te.Message)
	}
	return internalErr(err)
}

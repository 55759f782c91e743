package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
)

// The OpenAPI document is JSON (docs/openapi.json, valid OpenAPI 3.1), so
// that this test reads all of it with encoding/json: the module has no
// YAML library, and a hand-rolled YAML reader would check less.
const openAPIPath = "../../../docs/openapi.json"

type oasOperation struct {
	OperationID string                     `json:"operationId"`
	Parameters  []json.RawMessage          `json:"parameters"`
	Security    *[]map[string][]string     `json:"security"`
	Responses   map[string]json.RawMessage `json:"responses"`
	RequestBody json.RawMessage            `json:"requestBody"`
}

type oasParameter struct {
	Ref  string `json:"$ref"`
	Name string `json:"name"`
	In   string `json:"in"`
}

type oasDoc struct {
	OpenAPI    string                                `json:"openapi"`
	Security   []map[string][]string                 `json:"security"`
	Paths      map[string]map[string]json.RawMessage `json:"paths"`
	Components struct {
		SecuritySchemes map[string]json.RawMessage `json:"securitySchemes"`
		Schemas         map[string]json.RawMessage `json:"schemas"`
		Responses       map[string]json.RawMessage `json:"responses"`
		Parameters      map[string]oasParameter    `json:"parameters"`
	} `json:"components"`
}

var oasMethods = []string{"get", "put", "post", "delete", "patch", "head", "options", "trace"}

func loadOpenAPI(t *testing.T) (oasDoc, any) {
	t.Helper()
	raw, err := os.ReadFile(openAPIPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc oasDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s is not valid JSON: %v", openAPIPath, err)
	}
	var generic any
	_ = json.Unmarshal(raw, &generic)
	return doc, generic
}

// TestOpenAPIMatchesRouter walks the router and fails when a route is not
// in docs/openapi.json or the document has an operation the router does
// not serve; it also checks the document's own consistency.
func TestOpenAPIMatchesRouter(t *testing.T) {
	doc, generic := loadOpenAPI(t)
	if !strings.HasPrefix(doc.OpenAPI, "3.1.") {
		t.Fatalf("openapi %q, want 3.1.x", doc.OpenAPI)
	}

	// The router's routes.
	served := map[string]bool{}
	s := newEnv(t, nil).srv
	err := chi.Walk(s.Routes(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		route = strings.TrimSuffix(strings.ReplaceAll(route, "/*/", "/"), "/*")
		served[strings.ToLower(method)+" "+route] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(served) < 30 {
		t.Fatalf("walked only %d routes: %v", len(served), served)
	}
	documented := map[string]oasOperation{}
	for path, item := range doc.Paths {
		for m, rawOp := range item {
			if !slices.Contains(oasMethods, m) {
				continue // "parameters", "summary", … of the path item
			}
			var op oasOperation
			if err := json.Unmarshal(rawOp, &op); err != nil {
				t.Fatalf("%s %s: %v", m, path, err)
			}
			documented[m+" "+path] = op
		}
	}
	var missing, extra []string
	for k := range served {
		if _, ok := documented[k]; !ok {
			missing = append(missing, k)
		}
	}
	for k := range documented {
		if !served[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 {
		t.Errorf("routes the router serves but %s does not document:\n  %s", openAPIPath, strings.Join(missing, "\n  "))
	}
	if len(extra) > 0 {
		t.Errorf("operations %s documents but the router does not serve:\n  %s", openAPIPath, strings.Join(extra, "\n  "))
	}

	// Each operation: a unique id, a success answer, its path parameters
	// declared, security schemes that exist, CSRF on cookie writes.
	ids := map[string]string{}
	tmplParam := regexp.MustCompile(`\{([^}]+)\}`)
	csrfExempt := map[string]bool{"post /api/session": true, "post /api/users": true}
	for k, op := range documented {
		method, path, _ := strings.Cut(k, " ")
		if op.OperationID == "" {
			t.Errorf("%s: no operationId", k)
		} else if prev, dup := ids[op.OperationID]; dup {
			t.Errorf("%s and %s share operationId %s", prev, k, op.OperationID)
		}
		ids[op.OperationID] = k
		success := false
		for code := range op.Responses {
			if len(code) == 3 && (code[0] == '2' || code[0] == '3') {
				success = true
			}
		}
		if !success {
			t.Errorf("%s: no 2xx or 3xx response", k)
		}
		declared := map[string]bool{}
		for _, raw := range op.Parameters {
			var p oasParameter
			if err := json.Unmarshal(raw, &p); err != nil {
				t.Fatalf("%s: parameter: %v", k, err)
			}
			if p.Ref != "" {
				p = doc.Components.Parameters[strings.TrimPrefix(p.Ref, "#/components/parameters/")]
			}
			if p.In == "path" {
				declared[p.Name] = true
			}
		}
		var inPath []string
		for _, m := range tmplParam.FindAllStringSubmatch(path, -1) {
			inPath = append(inPath, m[1])
			if !declared[m[1]] {
				t.Errorf("%s: path parameter %s is not declared", k, m[1])
			}
		}
		for name := range declared {
			if !slices.Contains(inPath, name) {
				t.Errorf("%s: declares path parameter %s that the path lacks", k, name)
			}
		}
		sec := doc.Security
		if op.Security != nil {
			sec = *op.Security
		}
		for _, req := range sec {
			for scheme := range req {
				if _, ok := doc.Components.SecuritySchemes[scheme]; !ok {
					t.Errorf("%s: unknown security scheme %s", k, scheme)
				}
			}
			_, cookie := req["sessionCookie"]
			_, csrf := req["csrfToken"]
			if cookie && !csrf && !safeMethod(strings.ToUpper(method)) && !csrfExempt[k] {
				t.Errorf("%s: a cookie-authenticated write without csrfToken in its security", k)
			}
		}
		if strings.HasPrefix(path, "/api/judge/") && (len(sec) != 1 || sec[0]["judgeToken"] == nil) {
			t.Errorf("%s: the judge endpoints take the judge token only", k)
		}
	}
	if op, _ := json.Marshal(documented["post /api/submissions"].Parameters); !strings.Contains(string(op), "IdempotencyKey") {
		t.Error("POST /api/submissions does not document the Idempotency-Key header")
	}

	// Every reference resolves; every component schema is used.
	used := map[string]bool{}
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if k == "$ref" {
					ref, _ := c.(string)
					if !resolves(generic, ref) {
						t.Errorf("%s: $ref %q does not resolve", at, ref)
					}
					used[ref] = true
					continue
				}
				walk(c, at+"/"+k)
			}
		case []any:
			for i, c := range x {
				walk(c, fmt.Sprintf("%s/%d", at, i))
			}
		}
	}
	walk(generic, "#")
	for name := range doc.Components.Schemas {
		if !used["#/components/schemas/"+name] {
			t.Errorf("component schema %s is never used", name)
		}
	}

	// The error codes the spec lists are the server's.
	var detail struct {
		Properties struct {
			Code struct {
				Enum []string `json:"enum"`
			} `json:"code"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(doc.Components.Schemas["ErrorDetail"], &detail); err != nil {
		t.Fatal(err)
	}
	codes := []string{CodeBadRequest, CodeInvalidJSON, CodeValidation, CodeUnauthorized, CodeInvalidCredentials, CodeForbidden,
		CodeCSRF, CodeRegistrationClosed, CodeNotFound, CodeMethodNotAllowed, CodeConflict, CodeTooLarge, CodeUnsupportedMedia, CodeRateLimited,
		CodeInternal, CodeUnavailable}
	got := slices.Clone(detail.Properties.Code.Enum)
	slices.Sort(got)
	slices.Sort(codes)
	if !slices.Equal(got, codes) {
		t.Errorf("ErrorDetail.code enum %v, want the server's codes %v", got, codes)
	}
}

// resolves reports whether a local JSON pointer ("#/a/b") names a value.
func resolves(doc any, ref string) bool {
	if !strings.HasPrefix(ref, "#/") {
		return false
	}
	cur := doc
	for _, part := range strings.Split(ref[2:], "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		if cur, ok = m[part]; !ok {
			return false
		}
	}
	return true
}

package server

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// routes is the API. A route's guard is on the route: requireUser,
// onlyStaff and onlyAdmins (access.go). Every handler returns its error
// through s.h (errors.go), which answers it.
func (s *Server) routes() *chi.Mux {
	r := chi.NewRouter()
	r.Use(s.requestID, s.accessLog, s.recoverer, s.limitBody, s.deadline)
	r.NotFound(func(w http.ResponseWriter, _ *http.Request) { writeAPIError(w, errNotFound) })
	r.MethodNotAllowed(func(w http.ResponseWriter, _ *http.Request) {
		writeAPIError(w, apiErr(http.StatusMethodNotAllowed, CodeMethodNotAllowed, "method not allowed on this resource"))
	})
	oh := s.cfg.Obs.Handler()
	r.Method(http.MethodGet, "/healthz", oh)
	r.Method(http.MethodGet, "/readyz", oh)
	r.Method(http.MethodGet, "/metrics", oh)

	r.Route("/api", func(r chi.Router) {
		// The gate comes after the session (Redis: staff pass it) and
		// before the user's row (MySQL): a shed request reads no MySQL.
		r.Use(s.readSession, s.admit, s.authenticate, s.readCachePolicy)
		// Login and registration happen before a session exists: no CSRF
		// token to check. Both require a JSON body, which a cross-site form
		// cannot send without a CORS preflight.
		r.Post("/session", s.h(s.handleLogin))
		r.Post("/users", s.h(s.handleRegister))
		r.Get("/settings/registration", s.h(s.handleRegistrationSettings))
		// Judges authenticate with their token, never a session.
		r.Get("/judge/testdata/{hash}", s.h(s.handleJudgeTestdata))
		// The ICPC Contest API and its tokens (ccs*.go, docs/icpc.md).
		s.ccsRoutes(r)
		r.Group(func(r chi.Router) {
			r.Use(s.csrf)
			r.Delete("/session", s.h(s.handleLogout))
			r.With(requireUser).Get("/me", s.h(s.handleMe))
			r.With(requireUser).Post("/me/password", s.h(s.handleChangePassword))
			r.Get("/problems", s.h(s.handleProblems))
			r.Get("/problems/{slug}", s.h(s.handleProblem))
			r.Get("/problems/{slug}/assets/{name}", s.h(s.handleProblemAsset)) // statement images, attachments
			r.Get("/contests", s.h(s.handleContests))
			r.Get("/contests/{slug}", s.h(s.handleContest))
			r.Get("/contests/{slug}/scoreboard", s.h(s.handleScoreboard))
			r.With(onlyStaff("export scoreboards")).Get("/contests/{slug}/scoreboard.csv", s.h(s.handleScoreboardCSV))
			r.With(onlyAdmins("unfreeze a scoreboard")).Post("/contests/{slug}/unfreeze", s.h(s.handleUnfreeze))
			r.Get("/languages", s.h(s.handleLanguages))
			r.With(requireUser).Post("/submissions", s.h(s.handleSubmit))
			r.Get("/submissions", s.h(s.handleSubmissions))
			r.Get("/submissions/{id}", s.h(s.handleSubmission))
			r.With(onlyStaff("override verdicts")).Post("/submissions/{id}/override", s.h(s.handleOverride))
			r.With(onlyStaff("rejudge")).Post("/rejudge", s.h(s.handleRejudge))
			r.With(onlyStaff("rejudge")).Get("/rejudge/{job}", s.h(s.handleRejudgeJob))
			r.With(onlyStaff("export sources")).Get("/export", s.h(s.handleExport))
			r.With(onlyStaff("list every problem")).Get("/admin/problems", s.h(s.handleAdminProblems))
			r.With(onlyStaff("list every contest")).Get("/admin/contests", s.h(s.handleAdminContests))
			// The similarity check (staff; similarity.go).
			r.With(onlyStaff("run the similarity check")).Get("/similarity", s.h(s.handleSimilarity))
			r.With(onlyStaff("compare sources")).Get("/similarity/compare", s.h(s.handleSimilarityCompare))
			// Custom runs, "run on my input" (customruns.go).
			s.customRunRoutes(r)
			// The ICPC contest day: awards, results upload, balloons (icpc.go).
			s.icpcRoutes(r)
			// Teams, organisations and groups (teams.go).
			s.teamRoutes(r)
			s.ccsAwardRoutes(r) // award edits, finalize (ccs_awards.go)
			// Output-only submissions and reference solutions (submissions_outputs.go, solutions.go).
			s.problemTypeRoutes(r)

			r.With(onlyStaff("see the judges")).Get("/judges", s.h(s.handleJudges))
			r.With(onlyAdmins("issue judge tokens")).Post("/judges", s.h(s.handleIssueJudge))
			r.With(onlyAdmins("revoke judge tokens")).Delete("/judges/{name}", s.h(s.handleRevokeJudge))
			r.With(onlyAdmins("change the registration mode")).Put("/settings/registration", s.h(s.handleSetRegistrationSettings))
			r.With(onlyAdmins("import users")).Post("/users/import", s.h(s.handleImportUsers))
			r.With(onlyAdmins("list users")).Get("/users", s.h(s.handleListUsers))
			r.With(onlyAdmins("edit users")).Put("/users/{username}", s.h(s.handleUpdateUser))
			r.With(onlyAdmins("reset passwords")).Post("/users/{username}/password", s.h(s.handleResetPassword))
			r.With(onlyStaff("create problems")).Post("/problems", s.h(s.handleCreateProblem))
			r.With(onlyStaff("edit problems")).Put("/problems/{slug}", s.h(s.handleUpdateProblem))
			r.With(onlyStaff("upload test data")).Post("/problems/{slug}/testdata", s.h(s.handleUploadTestdata))
			r.With(onlyStaff("import problems")).Post("/problems/import", s.h(s.handleImportProblem))
			r.With(onlyStaff("create contests")).Post("/contests", s.h(s.handleCreateContest))
			r.With(onlyStaff("edit contests")).Put("/contests/{slug}", s.h(s.handleUpdateContest))
			r.With(requireUser).Post("/contests/{slug}/register", s.h(s.handleRegisterContest))
			r.With(onlyStaff("manage contest participants")).Get("/contests/{slug}/participants", s.h(s.handleParticipants))
			r.With(onlyStaff("manage contest participants")).Post("/contests/{slug}/participants", s.h(s.handleAddParticipants))
			r.With(onlyStaff("manage contest participants")).Delete("/contests/{slug}/participants/{username}", s.h(s.handleRemoveParticipant))
			r.Get("/contests/{slug}/clarifications", s.h(s.handleClarifications))
			r.With(requireUser).Post("/contests/{slug}/clarifications", s.h(s.handleAsk))
			r.With(onlyStaff("answer clarifications")).Post("/contests/{slug}/clarifications/{id}/answer", s.h(s.handleAnswer))
		})
	})
	return r
}

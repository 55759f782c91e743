package protocol

import (
	"errors"
	"fmt"
)

// ChannelBalloons: a contest's balloon list changed (docs/icpc.md). ID:
// contest. Staff only: the hub refuses everyone else, since a new
// balloon tells that a team solved a problem, which the freeze hides
// from the public. Events are EventBalloon with a BalloonChange, never
// the list: a browser re-reads it through the REST API. The snapshot
// state is {"changed_ms": …}.
const ChannelBalloons ChannelKind = "balloons"

// EventBalloon: a balloon was earned (a submission was accepted) or
// marked delivered or not. Body: BalloonChange.
const EventBalloon EventKind = "balloon"

// BalloonChange says what changed on a contest's balloon list. What:
// "solved" (SubmissionID was accepted: maybe a new balloon), "delivered"
// or "undelivered" (staff toggled the balloon of Team on ProblemID).
type BalloonChange struct {
	ContestID    int64  `json:"contest_id"`
	What         string `json:"what"`
	SubmissionID int64  `json:"submission_id,omitempty"`
	Team         string `json:"team,omitempty"`
	ProblemID    int64  `json:"problem_id,omitempty"`
}

// Validate checks the contest and the kind of change.
func (b BalloonChange) Validate() error {
	var errs []error
	if b.ContestID < 1 {
		errs = append(errs, fmt.Errorf("contest_id %d must be >= 1", b.ContestID))
	}
	switch b.What {
	case "solved":
		if b.SubmissionID < 1 {
			errs = append(errs, errors.New("a solved change names its submission"))
		}
	case "delivered", "undelivered":
		if b.Team == "" || b.ProblemID < 1 {
			errs = append(errs, errors.New("a delivery change names its team and problem"))
		}
	default:
		errs = append(errs, fmt.Errorf("what %q: want solved, delivered or undelivered", b.What))
	}
	return errors.Join(errs...)
}

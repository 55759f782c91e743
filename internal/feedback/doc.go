// Package feedback decides what of a submission's result a viewer may
// see: one pure function, View, given the submission's feedback rule
// (protocol.Feedback: the contest's policy, or the problem's default for
// practice, and the sample cases), who looks (staff, the owner, another
// user, an anonymous visitor), where the contest is in time, and the
// result as judged.
//
// Every path that shows a result goes through View: the web nodes' REST
// answers (one submission, the lists) and the hub's live pushes (the
// snapshot on subscribe and every event), so what a contestant sees never
// depends on how they look. The rules:
//
//   - Staff see everything, always.
//   - Checker messages of hidden (non-sample) cases never reach anyone
//     else; sample cases' messages reach the owner under the full policy
//     only. Other users and anonymous visitors never see a message.
//   - A compile error is always shown to its owner, with the compiler's
//     output, under every policy (closed included).
//   - A system error shows the owner GenericSystemError, never the
//     judge's detail.
//   - closed hides everything but "submitted" (status pending) until the
//     contest ends, then applies the after-policy.
//   - full and score_only show each subtask's score (Subtasks, from the
//     rule's subtasks: IOI-mode problems); first_failure shows the
//     unbroken run of cases from case 1 up to the first failure.
//
// The live paths see a result in pieces: a snapshot, then events each
// with the new cases only. State censors a whole state; Event censors a
// cases event as part of the whole (with the cases judged before it), so
// the cases a browser assembles, the first failure and the subtask scores
// are exactly what View shows of the whole result, whatever the batches.
//
// It lives in internal/ because both the web nodes and the hub import it.
package feedback

// Package uidlock owns the machine-wide claim on sandbox uids: one lock
// file per uid under Dir, held with an exclusive flock by the judge whose
// sandbox runs programs under that uid, for as long as the sandbox lives.
// The judge takes the locks (sandbox.New); the local stack looks for a
// free block of uids before it starts judges, so stacks running side by
// side never share a judge's uids.
package uidlock

// Package session owns the browser session as it lies in Redis, for the
// web nodes, which write and read it, and the hubs, which only read it.
//
// It holds, in one place, everything the two sides must agree on:
//
//   - the cookie (CookieName) and its value, the session id (ValidID);
//   - the key of a session, rkeys Session(hex SHA-256 of the id), so that
//     a Redis dump does not reveal live cookies (Key);
//   - the fields of the session hash and how to read them (Record,
//     Fields, Decode);
//   - the role names a session carries (RoleAdmin, RoleSetter,
//     RoleStudent);
//   - the rule that ends a session: a session carries the user's session
//     epoch at login, and is valid only while the user's epoch is the
//     same and the account is enabled (Current.Valid). The web nodes
//     check it against MySQL on every request; the hubs, which never
//     read MySQL, against the copy the web nodes publish in Redis at
//     rkeys UserEpoch (PublishEpoch, ReadEpoch, Read).
//
// The web nodes keep the session's lifetime (webapp/internal/session);
// a hub never extends it.
package session

// Package listenfd opens a component's TCP listener: a fresh one on its
// address, or a listening socket it inherited from the process that
// started it, named by a file descriptor number (the web node's and the
// hub's --listen-fd, the edge's and the judge agent's --admin-fd).
//
// The local stack (deploy/internal/stack) starts its components this way:
// it binds every port itself, on a free port when it chooses them, and
// hands each process its socket (exec.Cmd.ExtraFiles), so that no other
// process can take a port between the moment it is chosen and the moment
// the component serves on it. A component given no descriptor binds its
// address itself, as in production.
package listenfd

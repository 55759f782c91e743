// Package reqstart owns X-Request-Start, the header with which the edge's
// nginx tells a web node when it passed a request on ("t=" and Unix
// seconds with milliseconds: nginx's $msec), and its reading: how long the
// request waited between nginx and the web node's handler (in a proxy
// connection, in the node's backlog of requests not yet read, for a core).
// The web node's admission gate counts that wait against its own bound on
// waiting (webapp/internal/admission), so that an overloaded node does not
// start work on requests whose clients are about to give up.
package reqstart

// Package wsconn is one WebSocket connection as every Verdict peer holds
// it: the hub's judge and browser links, the judge agent's and the
// simulated judges' link to the hub, and the load generator's browsers.
//
// It splits, like centrifuge, the transport (one message written with a
// deadline, one message read and decoded) from the writer (a bounded
// queue drained by one goroutine, so a caller holding a lock never waits
// on a socket). On top of both sit the pieces every link repeated:
//
//   - Send queues without blocking; a full queue closes the connection
//     (a slow reader must not hold memory or the sender).
//   - Write writes at once with a deadline, for request/answer exchanges
//     (hello and welcome) and peers that want the error.
//   - ReadLoop reads, decodes with the link's rules (internal/protocol),
//     skips unknown message types, and closes with the close table's
//     code on a binary frame or a bad message.
//   - Pings keep idle connections (and the proxies between) alive and find
//     dead peers.
//   - Close sends its code once (reason trimmed to what a close frame
//     holds); CloseNow drops the socket; Wait joins every goroutine.
//   - CloseStatus reads the peer's code back as a protocol.CloseCode.
//
// Callers keep their own message handling and lifecycle; they do not import
// github.com/coder/websocket.
package wsconn

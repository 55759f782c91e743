package protocol

import "fmt"

// CloseCode is a WebSocket close status code. Convert it with
// websocket.StatusCode(code) for coder/websocket.
type CloseCode int

// Standard close codes (RFC 6455) that Verdict peers send or receive.
const (
	CloseNormal          CloseCode = 1000 // done; the peer meant to close
	CloseGoingAway       CloseCode = 1001 // endpoint going away (browser tab, process exit)
	CloseProtocolError   CloseCode = 1002 // WebSocket-level protocol error
	CloseUnsupportedData CloseCode = 1003 // e.g. a binary frame where text is expected
	CloseAbnormal        CloseCode = 1006 // no close frame: the connection dropped (never sent)
	CloseInvalidPayload  CloseCode = 1007 // text frame that is not UTF-8
	ClosePolicyViolation CloseCode = 1008 // generic policy violation (rate or slow-consumer policy)
	CloseMessageTooBig   CloseCode = 1009 // message exceeds the read limit
	CloseInternalError   CloseCode = 1011 // the server failed
	CloseServiceRestart  CloseCode = 1012 // the server is restarting
	CloseTryAgainLater   CloseCode = 1013 // temporary overload
)

// Verdict close codes, in the private range 4000–4999.
const (
	// CloseBadEnvelope: a message failed Decode (malformed, unknown
	// version, oversize, invalid payload) or broke the message order
	// (e.g. anything before hello). Stop: the client is buggy.
	CloseBadEnvelope CloseCode = 4000
	// CloseUnsupportedVersion: the peer speaks another protocol version.
	// Stop: upgrade the client.
	CloseUnsupportedVersion CloseCode = 4001
	// CloseBadToken: the judge token or browser session is missing, wrong
	// or revoked. Stop: retrying cannot fix a credential.
	CloseBadToken CloseCode = 4002
	// CloseForbidden: authenticated but not allowed on this endpoint.
	// Stop.
	CloseForbidden CloseCode = 4003
	// CloseSuperseded: a newer connection of the same judge id (or browser
	// session slot) replaced this one. Stop, or two agents would fight.
	CloseSuperseded CloseCode = 4004
	// CloseHubShutdown: the hub is draining. Retry: another hub (or this one
	// restarted) will take the connection.
	CloseHubShutdown CloseCode = 4005
	// CloseSlowConsumer: the peer did not read fast enough and its send
	// buffer overflowed. Retry, and resubscribe with since_seq.
	CloseSlowConsumer CloseCode = 4006
	// CloseHeartbeatTimeout: the judge missed its heartbeats; its leases
	// are gone. Retry.
	CloseHeartbeatTimeout CloseCode = 4007
	// CloseOverloaded: the hub refuses new connections for now. Retry with
	// backoff.
	CloseOverloaded CloseCode = 4008
	// CloseDrained: a judge asked to drain and has finished; the hub says
	// goodbye. Stop.
	CloseDrained CloseCode = 4009
	// CloseSessionExpired: the browser session ended (logout, expiry).
	// Stop until the user logs in again.
	CloseSessionExpired CloseCode = 4010
)

// CloseCodeInfo describes a close code: its name and whether a client
// reconnects (with backoff) after it.
type CloseCodeInfo struct {
	Code  CloseCode `json:"code"`
	Name  string    `json:"name"`
	Retry bool      `json:"retry"`
}

// closeCodes is the single table of close codes.
var closeCodes = []CloseCodeInfo{
	{CloseNormal, "normal", false},
	{CloseGoingAway, "going_away", true},
	{CloseProtocolError, "protocol_error", false},
	{CloseUnsupportedData, "unsupported_data", false},
	{CloseAbnormal, "abnormal", true},
	{CloseInvalidPayload, "invalid_payload", false},
	{ClosePolicyViolation, "policy_violation", true},
	{CloseMessageTooBig, "message_too_big", false},
	{CloseInternalError, "internal_error", true},
	{CloseServiceRestart, "service_restart", true},
	{CloseTryAgainLater, "try_again_later", true},

	{CloseBadEnvelope, "bad_envelope", false},
	{CloseUnsupportedVersion, "unsupported_version", false},
	{CloseBadToken, "bad_token", false},
	{CloseForbidden, "forbidden", false},
	{CloseSuperseded, "superseded", false},
	{CloseHubShutdown, "hub_shutdown", true},
	{CloseSlowConsumer, "slow_consumer", true},
	{CloseHeartbeatTimeout, "heartbeat_timeout", true},
	{CloseOverloaded, "overloaded", true},
	{CloseDrained, "drained", false},
	{CloseSessionExpired, "session_expired", false},
}

var closeIndex = func() map[CloseCode]CloseCodeInfo {
	m := make(map[CloseCode]CloseCodeInfo, len(closeCodes))
	for _, c := range closeCodes {
		m[c.Code] = c
	}
	return m
}()

// CloseCodes returns the close code table in ascending code order.
func CloseCodes() []CloseCodeInfo {
	out := make([]CloseCodeInfo, len(closeCodes))
	copy(out, closeCodes)
	return out
}

// Known reports whether c is in the table.
func (c CloseCode) Known() bool {
	_, ok := closeIndex[c]
	return ok
}

// String returns the code's name, e.g. "bad_token", or "close(4321)".
func (c CloseCode) String() string {
	if info, ok := closeIndex[c]; ok {
		return info.Name
	}
	return fmt.Sprintf("close(%d)", int(c))
}

// Retry reports whether a client should reconnect (with backoff) after the
// connection closed with c. Codes not in the table retry: an older client
// meeting a newer code keeps trying with backoff rather than going dark.
func (c CloseCode) Retry() bool {
	if info, ok := closeIndex[c]; ok {
		return info.Retry
	}
	return true
}

// Retry reports whether a client should reconnect after close code c; see
// CloseCode.Retry.
func Retry(c CloseCode) bool { return c.Retry() }

package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// Version is the protocol version this package speaks. It is the "v" of
// every envelope. A peer that receives any other version rejects the message
// with ErrUnsupportedVersion and closes with CloseUnsupportedVersion.
const Version = 1

// WebSocket subprotocols, negotiated in Sec-WebSocket-Protocol. The hub
// refuses a connection that does not offer the subprotocol of its endpoint.
const (
	// SubprotocolJudge is spoken between judge agents and the hub.
	SubprotocolJudge = "verdict.judge.v1"
	// SubprotocolLive is spoken between browsers and the hub.
	SubprotocolLive = "verdict.live.v1"
)

// Maximum encoded sizes of one message (the whole envelope), in bytes.
// Receivers also pass them to the WebSocket read limit.
const (
	// MaxJudgeMessage bounds a judge-link message: a task carries the
	// source code and a result carries every case and the compiler output,
	// so it is generous (1 MiB). Senders truncate compiler output and case
	// messages to stay well below it.
	MaxJudgeMessage = 1 << 20
	// MaxLiveMessage bounds a live-link message from the hub (4 MiB).
	// Snapshots are the largest: a contest's whole scoreboard, about 90
	// bytes per contestant and problem (3,000 contestants with 4 problems
	// came to 270 kB in the rehearsal). Changes of a board go out as
	// deltas of the changed rows; only a subscribe's answer and a change
	// a delta cannot say carry the whole board.
	MaxLiveMessage = 4 << 20
	// MaxLiveInbound is the read limit the hub sets on browser connections
	// (4 KiB): browsers only send subscribe and unsubscribe.
	MaxLiveInbound = 4 << 10
)

// MaxIDLength is the longest envelope id accepted, in bytes.
const MaxIDLength = 128

// Sentinel errors. Every error returned by this package wraps exactly one of
// them (use errors.Is).
var (
	// ErrMalformed: not a JSON object, a field of the wrong JSON type, a
	// missing required field, or an over-long id.
	ErrMalformed = errors.New("malformed message")
	// ErrUnsupportedVersion: "v" is not Version.
	ErrUnsupportedVersion = errors.New("unsupported protocol version")
	// ErrEmptyType: "type" is the empty string.
	ErrEmptyType = errors.New("empty message type")
	// ErrUnknownType: "type" is not a message type of this link. A receiver
	// may skip such a message instead of closing (see the package doc).
	ErrUnknownType = errors.New("unknown message type")
	// ErrTooLarge: the encoded message exceeds the link's maximum size.
	ErrTooLarge = errors.New("message too large")
	// ErrPayloadMismatch: the Go payload type does not belong to the
	// message type (a programming error on the caller's side).
	ErrPayloadMismatch = errors.New("payload type does not match message type")
	// ErrInvalidPayload: data does not decode into the payload struct or
	// fails its Validate method.
	ErrInvalidPayload = errors.New("invalid payload")
	// ErrUnknownLink: a Link value that is neither LinkJudge nor LinkLive.
	ErrUnknownLink = errors.New("unknown link")
)

// Link is one of the two WebSocket links. It decides the subprotocol, the
// maximum message size and the set of valid message types.
type Link uint8

// The links.
const (
	LinkJudge Link = iota + 1 // judge agent <-> hub
	LinkLive                  // browser <-> hub
)

// String returns "judge" or "live".
func (l Link) String() string {
	switch l {
	case LinkJudge:
		return "judge"
	case LinkLive:
		return "live"
	}
	return fmt.Sprintf("link(%d)", uint8(l))
}

// Subprotocol returns the WebSocket subprotocol of the link, "" if unknown.
func (l Link) Subprotocol() string {
	switch l {
	case LinkJudge:
		return SubprotocolJudge
	case LinkLive:
		return SubprotocolLive
	}
	return ""
}

// MaxMessageSize returns the maximum encoded message size of the link in
// bytes, 0 if the link is unknown.
func (l Link) MaxMessageSize() int {
	switch l {
	case LinkJudge:
		return MaxJudgeMessage
	case LinkLive:
		return MaxLiveMessage
	}
	return 0
}

// Envelope is one message on either link:
//
//	{"v":1,"type":"task","id":"…","data":{…}}
//
// ID is optional: a request may carry one and the answer repeats it (for
// example a subscribe and its snapshot or error). Data is the type-specific
// payload; it is always a JSON object, kept compact.
type Envelope struct {
	V    int             `json:"v"`
	Type Type            `json:"type"`
	ID   string          `json:"id,omitempty"`
	Data json.RawMessage `json:"data"`
}

// Decode parses and validates one message received on link. Unknown fields
// of the envelope are ignored. On success Data holds the compacted payload
// object; decode it with DecodeData.
func Decode(link Link, b []byte) (Envelope, error) {
	env, err := decode(link, b)
	if err != nil {
		return Envelope{}, fmt.Errorf("protocol: decode %s message: %w", link, err)
	}
	return env, nil
}

func decode(link Link, b []byte) (Envelope, error) {
	limit := link.MaxMessageSize()
	if limit == 0 {
		return Envelope{}, ErrUnknownLink
	}
	if len(b) > limit {
		return Envelope{}, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(b), limit)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return Envelope{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if fields == nil {
		return Envelope{}, fmt.Errorf("%w: not a JSON object", ErrMalformed)
	}

	var env Envelope
	vRaw, ok := fields["v"]
	if !ok || isNull(vRaw) {
		return Envelope{}, fmt.Errorf("%w: missing \"v\"", ErrMalformed)
	}
	if err := json.Unmarshal(vRaw, &env.V); err != nil {
		return Envelope{}, fmt.Errorf("%w: \"v\" is not an integer", ErrMalformed)
	}
	if env.V != Version {
		return Envelope{}, fmt.Errorf("%w: %d (want %d)", ErrUnsupportedVersion, env.V, Version)
	}

	tRaw, ok := fields["type"]
	if !ok || isNull(tRaw) {
		return Envelope{}, fmt.Errorf("%w: missing \"type\"", ErrMalformed)
	}
	if err := json.Unmarshal(tRaw, &env.Type); err != nil {
		return Envelope{}, fmt.Errorf("%w: \"type\" is not a string", ErrMalformed)
	}

	if idRaw, ok := fields["id"]; ok {
		if isNull(idRaw) {
			return Envelope{}, fmt.Errorf("%w: \"id\" is null", ErrMalformed)
		}
		if err := json.Unmarshal(idRaw, &env.ID); err != nil {
			return Envelope{}, fmt.Errorf("%w: \"id\" is not a string", ErrMalformed)
		}
	}

	dRaw, ok := fields["data"]
	if !ok {
		return Envelope{}, fmt.Errorf("%w: missing \"data\"", ErrMalformed)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, dRaw); err != nil {
		return Envelope{}, fmt.Errorf("%w: \"data\": %v", ErrMalformed, err)
	}
	env.Data = buf.Bytes()

	if err := check(link, env); err != nil {
		return Envelope{}, err
	}
	return env, nil
}

// check validates the fields of env common to Decode and Encode, after the
// version has been checked.
func check(link Link, env Envelope) error {
	if env.V != Version {
		return fmt.Errorf("%w: %d (want %d)", ErrUnsupportedVersion, env.V, Version)
	}
	if env.Type == "" {
		return ErrEmptyType
	}
	info, ok := registry[env.Type]
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknownType, env.Type)
	}
	if info.link != link {
		return fmt.Errorf("%w: %q belongs to the %s link", ErrUnknownType, env.Type, info.link)
	}
	if len(env.ID) > MaxIDLength {
		return fmt.Errorf("%w: id is %d bytes, limit %d", ErrMalformed, len(env.ID), MaxIDLength)
	}
	if len(env.Data) == 0 || env.Data[0] != '{' {
		return fmt.Errorf("%w: \"data\" is not a JSON object", ErrMalformed)
	}
	return nil
}

func isNull(raw json.RawMessage) bool { return string(raw) == "null" }

// Encode validates env as a message to send on link and returns its wire
// form. It applies the same rules as Decode, so whatever Encode returns,
// Decode accepts. HTML characters are not escaped.
func Encode(link Link, env Envelope) ([]byte, error) {
	b, err := encode(link, env)
	if err != nil {
		return nil, fmt.Errorf("protocol: encode %s message %q: %w", link, env.Type, err)
	}
	return b, nil
}

func encode(link Link, env Envelope) ([]byte, error) {
	limit := link.MaxMessageSize()
	if limit == 0 {
		return nil, ErrUnknownLink
	}
	if len(env.Data) > 0 && !json.Valid(env.Data) {
		return nil, fmt.Errorf("%w: \"data\" is not valid JSON", ErrMalformed)
	}
	if len(env.Data) > 0 {
		var buf bytes.Buffer
		_ = json.Compact(&buf, env.Data) // valid: checked above
		env.Data = buf.Bytes()
	}
	if err := check(link, env); err != nil {
		return nil, err
	}
	b, err := marshalNoEscape(env)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if len(b) > limit {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(b), limit)
	}
	return b, nil
}

// marshalNoEscape is json.Marshal without HTML escaping and without the
// trailing newline of json.Encoder.
func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// Marshal builds and encodes the message of type t with the given id
// (may be empty) and payload. The payload must be the payload struct of t
// (value or non-nil pointer), see PayloadOf; its Validate method must pass.
func Marshal(t Type, id string, payload any) ([]byte, error) {
	b, err := marshal(t, id, payload)
	if err != nil {
		return nil, fmt.Errorf("protocol: marshal %q: %w", t, err)
	}
	return b, nil
}

func marshal(t Type, id string, payload any) ([]byte, error) {
	if t == "" {
		return nil, ErrEmptyType
	}
	info, ok := registry[t]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownType, t)
	}
	rv := reflect.ValueOf(payload)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil, fmt.Errorf("%w: nil %s", ErrPayloadMismatch, rv.Type())
		}
		rv = rv.Elem()
	}
	if !rv.IsValid() || rv.Type() != info.payload {
		return nil, fmt.Errorf("%w: got %T, want %s", ErrPayloadMismatch, payload, info.payload)
	}
	if v, ok := rv.Interface().(validator); ok {
		if err := v.Validate(); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidPayload, err)
		}
	}
	data, err := marshalNoEscape(rv.Interface())
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidPayload, err)
	}
	return encode(info.link, Envelope{V: Version, Type: t, ID: id, Data: data})
}

// DecodeData decodes the payload of env into T, which must be the payload
// struct of env.Type (see PayloadOf), and runs its Validate method. Unknown
// payload fields are ignored.
func DecodeData[T any](env Envelope) (T, error) {
	var v T
	info, ok := registry[env.Type]
	if !ok {
		return v, fmt.Errorf("protocol: decode data of %q: %w", env.Type, ErrUnknownType)
	}
	if reflect.TypeFor[T]() != info.payload {
		return v, fmt.Errorf("protocol: decode data of %q: %w: got %s, want %s",
			env.Type, ErrPayloadMismatch, reflect.TypeFor[T](), info.payload)
	}
	if err := unmarshalPayload(env.Data, &v); err != nil {
		return v, fmt.Errorf("protocol: decode data of %q: %w", env.Type, err)
	}
	return v, nil
}

// decodePayload decodes the payload of env into a new value of its
// registered payload type and returns it (as a non-pointer value).
func decodePayload(env Envelope) (any, error) {
	info, ok := registry[env.Type]
	if !ok {
		return nil, fmt.Errorf("protocol: decode data of %q: %w", env.Type, ErrUnknownType)
	}
	p := reflect.New(info.payload)
	if err := unmarshalPayload(env.Data, p.Interface()); err != nil {
		return nil, fmt.Errorf("protocol: decode data of %q: %w", env.Type, err)
	}
	return p.Elem().Interface(), nil
}

func unmarshalPayload(data json.RawMessage, ptr any) error {
	if len(data) == 0 || data[0] != '{' {
		return fmt.Errorf("%w: data is not a JSON object", ErrInvalidPayload)
	}
	if err := json.Unmarshal(data, ptr); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidPayload, err)
	}
	if v, ok := reflect.ValueOf(ptr).Elem().Interface().(validator); ok {
		if err := v.Validate(); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidPayload, err)
		}
	}
	return nil
}

// validator is implemented by payloads with invariants beyond their JSON
// shape. Validate methods have value receivers.
type validator interface {
	Validate() error
}

// MarshalSnapshot is Marshal(TypeSnapshot, id, Snapshot{ch, seq, state})
// for a state that is already compact JSON (as json.Marshal writes it),
// without re-encoding the state: a contest's scoreboard is hundreds of
// kilobytes, goes to every subscriber, and re-encoding it was a third of
// the hub's CPU in the contest rehearsal. A state that is not compact
// JSON takes the slow path.
func MarshalSnapshot(id string, ch Channel, seq uint64, state json.RawMessage) ([]byte, error) {
	if !compactJSON(state) {
		return Marshal(TypeSnapshot, id, Snapshot{Channel: ch, Seq: seq, State: state})
	}
	return MarshalCompactSnapshot(id, ch, seq, state)
}

// MarshalCompactSnapshot is MarshalSnapshot for a state the caller found
// CompactJSON once, when it stored it: a hub answers every subscribe to a
// contest with the same board, and checking hundreds of kilobytes again
// for each of thousands of (re)subscribing browsers was a third of the
// hub's CPU in the 3,000-contestant rehearsal. A state that is not compact
// JSON yields an invalid message: check it first.
func MarshalCompactSnapshot(id string, ch Channel, seq uint64, state json.RawMessage) ([]byte, error) {
	head, err := Marshal(TypeSnapshot, id, Snapshot{Channel: ch, Seq: seq, State: json.RawMessage(`{}`)})
	if err != nil {
		return nil, err
	}
	const tail = `{}}}`
	if !bytes.HasSuffix(head, []byte(tail)) {
		return Marshal(TypeSnapshot, id, Snapshot{Channel: ch, Seq: seq, State: state})
	}
	out := make([]byte, 0, len(head)-len(tail)+len(state)+2)
	out = append(out, head[:len(head)-len(tail)]...)
	out = append(out, state...)
	out = append(out, "}}"...)
	if len(out) > MaxLiveMessage {
		return nil, fmt.Errorf("protocol: marshal %q: %w: %d bytes, limit %d", TypeSnapshot, ErrTooLarge, len(out), MaxLiveMessage)
	}
	return out, nil
}

// CompactJSON reports whether b is one valid JSON object as json.Marshal
// writes it (no white space outside strings): what MarshalCompactSnapshot
// may be given.
func CompactJSON(b []byte) bool { return compactJSON(b) }

// compactJSON reports whether b is one JSON object with no white space
// outside its strings: what json.Marshal writes and encode would keep as
// it is.
func compactJSON(b []byte) bool {
	if len(b) < 2 || b[0] != '{' || !json.Valid(b) {
		return false
	}
	in := false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case !in && (c == ' ' || c == '\n' || c == '\t' || c == '\r'):
			return false
		}
	}
	return true
}

package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vfsctl/vfsctl/internal/jsonstr"
	"github.com/vfsctl/vfsctl/toolapi"
)

// Bounds on one request frame (one line of newline-delimited JSON-RPC). The SDK's
// stdio transport ends the whole connection on a frame over its 16 MiB limit, and on
// one nested past its decoder's 1000 levels; a frame past these bounds is answered
// here instead, and the connection goes on.
const (
	MaxFrame      = sdk.DefaultMaxLineLength
	MaxFrameDepth = 128 // tool arguments deeper than 32 levels are refused anyway
)

// NewTransport returns the stdio transport of `vfsctl serve` over in and out: the
// SDK's newline-delimited JSON-RPC, with each frame checked first. A frame over
// MaxFrame bytes is answered with kind too_large, one nested deeper than
// MaxFrameDepth with kind invalid_input, without being decoded: a tools/call as a
// tool result with isError (what a model reads), any other request as a JSON-RPC
// error. A notification gets no answer; the log says what was dropped. A line that is
// not valid JSON is answered with a parse error (id null), and one that is JSON but
// not a JSON-RPC 2.0 request object (a batch, a bare value, another version tag, an
// id that is an object, a number id that is not a whole number within ±2^53 written
// in digits alone, or a string id with a lone surrogate escape or bytes that are not
// UTF-8, which the SDK would answer under another id, or a member named as JSON-RPC's
// but in another case, such as "ID") with an Invalid Request error, instead of ending the
// connection or leaving the client waiting. A reply is UTF-8 text: an id holding bytes
// that are not UTF-8 is answered as null, whatever the refusal. A line over MaxFrame that goes on after
// its first JSON value is answered for that value alone, and with a parse error for
// the rest, which is not run. A UTF-8 byte order mark at the start of the input is
// skipped.
//
// At the end of the input, the reader waits (at most DrainWait) until every request
// it handed on has its reply: the SDK cancels the requests in flight when its reader
// ends, and a client that writes its calls and closes its end would lose the replies
// of calls that ran, and see others cancelled half-way. Over Serve, a call still
// running after DrainWait is then ended, and answered, before the reader ends.
func NewTransport(in io.Reader, out io.Writer, log *slog.Logger) sdk.Transport {
	return newTransport(in, out, log)
}

// transport is NewTransport's: the SDK's stdio transport over a frameReader, which
// Serve can hand the tool calls to run where the frame is read (callFast).
type transport struct {
	*sdk.IOTransport
	r *frameReader
}

func newTransport(in io.Reader, out io.Writer, log *slog.Logger) *transport {
	w := &lockedWriter{w: out}
	open := &openRequests{}
	open.cond.L = &open.mu
	r := &frameReader{in: bufio.NewReaderSize(in, 64<<10), out: w, log: log, max: MaxFrame, open: open}
	if c, ok := in.(io.Closer); ok {
		r.closer = c
	}
	// The SDK's own bound stays as a backstop (a value spread over several lines is
	// not one frame here); twice ours, since it also counts bytes read ahead.
	return &transport{&sdk.IOTransport{Reader: r, Writer: &replyWriter{w, open}, MaxLineLength: 2 * MaxFrame}, r}
}

// callFast runs one tools/call request frame, with its id, where it was read, and
// returns the reply to write; ok false hands the frame to the SDK instead.
type callFast func(id json.RawMessage, frame []byte) (reply []byte, ok bool)

// DrainWait bounds how long the end of the input waits for the replies of requests
// in flight; a call waits for the journal at most --wait (10 s by default) first.
var DrainWait = time.Minute

// overdueWait bounds how long, once DrainWait has passed and the calls still running
// are ended, the end of the input waits for their replies: a killed command's group
// is gone within a second, and its record waits for the journal at most --wait.
const overdueWait = 30 * time.Second

// openRequests counts the requests handed to the SDK that have no reply yet, by id,
// and knows which of them the client cancelled.
type openRequests struct {
	mu        sync.Mutex
	cond      sync.Cond
	n         int
	ids       map[string]int  // requests in flight by idKey
	cancelled map[string]bool // of those, the ones notifications/cancelled named
}

func (o *openRequests) add(id string) {
	o.mu.Lock()
	o.n++
	if o.ids == nil {
		o.ids, o.cancelled = map[string]int{}, map[string]bool{}
	}
	o.ids[id]++
	o.mu.Unlock()
}

// cancel marks request id, when it is in flight, as cancelled by the client: MCP
// says such a request gets no reply (one that was answered already is not marked, so
// a later request that takes its id is answered).
func (o *openRequests) cancel(id string) {
	o.mu.Lock()
	if o.ids[id] > 0 {
		o.cancelled[id] = true
	}
	o.mu.Unlock()
}

// done counts the reply to request id; drop says the client cancelled it.
func (o *openRequests) done(id string) (drop bool) {
	o.mu.Lock()
	if o.n > 0 {
		o.n--
	}
	if o.ids[id] > 0 {
		if o.ids[id]--; o.ids[id] == 0 {
			delete(o.ids, id)
		}
		drop = o.cancelled[id]
		delete(o.cancelled, id)
	}
	o.cond.Broadcast()
	o.mu.Unlock()
	return drop
}

// drain waits until every request has its reply, or d has passed, and reports
// whether every one has.
func (o *openRequests) drain(d time.Duration) bool {
	late := false
	stop := time.AfterFunc(d, func() {
		o.mu.Lock()
		late = true
		o.cond.Broadcast()
		o.mu.Unlock()
	})
	defer stop.Stop()
	o.mu.Lock()
	defer o.mu.Unlock()
	for o.n > 0 && !late {
		o.cond.Wait()
	}
	return o.n == 0
}

// replyWriter is the SDK's writer: it counts the replies it writes, and drops the
// reply to a request the client cancelled (the SDK writes one all the same).
type replyWriter struct {
	*lockedWriter
	open *openRequests
}

func (w *replyWriter) Write(p []byte) (int, error) {
	id, reply := replyID(p)
	if reply && w.open.done(id) { // written or not: no reply will follow
		return len(p), nil
	}
	return w.lockedWriter.Write(p)
}

// replyID reports whether msg, one JSON-RPC message, is a reply (an id, and a result
// or an error) rather than a request or a notification, and its id as idKey gives
// it. It reads the top-level keys only as far as it needs: a reply of megabytes is
// not scanned.
func replyID(msg []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(msg))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	var id json.RawMessage
	answer := false
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return "", false
		}
		switch key {
		case "method":
			return "", false
		case "result", "error":
			answer = true
		}
		if id != nil && answer {
			return idKey(id), true
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return "", false
		}
		if key == "id" {
			id = v
			if answer {
				return idKey(id), true
			}
		}
	}
	return idKey(id), id != nil && answer
}

// idKey is a request id as one key whatever its spelling: a string as its text, a
// number as its value (the SDK answers 2.0 as 2).
func idKey(id json.RawMessage) string {
	var s string
	if json.Unmarshal(id, &s) == nil {
		return "s" + s
	}
	if v, ok := new(big.Rat).SetString(string(bytes.TrimSpace(id))); ok {
		return "n" + v.RatString()
	}
	return "?" + string(id)
}

// lockedWriter writes whole messages one at a time: the SDK writes each message with
// one Write, and so do refusals sent from the reader.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close leaves the stream open: stdout belongs to the process.
func (l *lockedWriter) Close() error { return nil }

// frameReader hands the SDK only frames within bounds.
type frameReader struct {
	in      *bufio.Reader
	out     io.Writer
	closer  io.Closer
	log     *slog.Logger
	max     int
	frame   []byte
	pending []byte        // the rest of an accepted frame, not yet read by the SDK
	open    *openRequests // requests handed on, not yet answered
	begun   bool          // the first frame was read
	// fast, when set (Serve sets it), runs a tools/call on the reading goroutine and
	// writes its reply before the next frame is read. Through the SDK, a request
	// passes from its reader to its dispatcher to a handler goroutine, and a call
	// waits for a thread to be woken at each hand-off (measured: about 0.6 ms a call
	// on a loaded machine). Calls of one connection therefore run one at a time, in
	// the order sent; their files' queues ordered them anyway when they share a file.
	fast callFast
	// tooLarge, when set (Serve sets it), journals a tools/call refused for its size:
	// call is what was picked of it as it was read, size the frame's; it returns the
	// record's number, nil for none, the session of the record, and when there is
	// none, why, for the reply.
	tooLarge func(call *frameScan, size int, err error) (txn *int64, session, why string)
	// overdue, when set (Serve sets it), ends the calls still running DrainWait
	// after the end of the input.
	overdue func()
}

// maxCutFrame bounds what is kept of a tools/call over MaxFrame bytes, its long
// strings cut, to journal it as a call of tool "unknown" when it names no tool
// served: as much as a record keeps (txn.MaxCutArgs).
const maxCutFrame = 64 << 10

func (r *frameReader) Close() error {
	if r.closer != nil {
		return r.closer.Close()
	}
	return nil
}

func (r *frameReader) Read(p []byte) (int, error) {
	for len(r.pending) == 0 {
		if err := r.next(); err != nil {
			return 0, err
		}
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// next reads one frame: an accepted one becomes pending; a refused one is answered.
func (r *frameReader) next() error {
	r.frame = r.frame[:0]
	// A frame within bounds is held whole, and so is its id, however long: a reply
	// then carries it as sent, and the checks below all see it.
	sc := &frameScan{maxID: r.max}
	for {
		chunk, err := r.in.ReadSlice('\n')
		if !r.begun && len(chunk) > 0 {
			// A byte order mark before the first frame (a file saved by Notepad or
			// PowerShell) is no part of the JSON. The first read holds it whole: it
			// ends only at a newline, a full buffer or the end of the input.
			r.begun, chunk = true, bytes.TrimPrefix(chunk, utf8BOM)
		}
		if len(r.frame)+len(chunk) > r.max {
			// Too large: read on to the end of the line without keeping it, but for
			// what the journal needs of a tools/call (tooLarge).
			if r.tooLarge != nil {
				sc = newCutCall()
			} else {
				sc.maxID = 0 // not held: its id is kept up to maxID
			}
			sc.feed(r.frame)
			size := len(r.frame)
			r.frame = r.frame[:0]
			for {
				sc.feed(chunk)
				size += len(chunk)
				if err != bufio.ErrBufferFull {
					break
				}
				chunk, err = r.in.ReadSlice('\n')
			}
			msg := fmt.Sprintf("This request is %d bytes; requests over %d bytes (16 MiB) are refused unread and nothing was run. "+
				"Send less in one call: edit_file with only the lines that change, or a large file in parts (create_file, then edit_file).", size, r.max)
			if sc.folded != "" {
				r.invalidFolded(sc)
			} else if sc.idOver {
				// An id too long to keep of a frame not held (maxID): no reply can
				// carry it, and one under a cut id would be another request's. It is
				// refused as a request whose id cannot be read, with id null, as JSON-RPC
				// answers those; like the other Invalid Requests it is not journaled,
				// and nothing of it was run.
				r.invalid(nil, fmt.Sprintf("this request's id is longer than %d bytes, and the request is over %d bytes (16 MiB); it was not read or run. Send a short id, and less in one call.", maxID, r.max))
			} else {
				var txn *int64
				var session string
				if r.tooLarge != nil && sc.id != nil && sc.methodName == "tools/call" {
					// Journaled as vfsctl call journals a call over the size limit.
					var why string
					txn, session, why = r.tooLarge(sc, size, toolapi.NewError(toolapi.TooLarge, "%s", msg))
					if why != "" {
						msg += " " + why
					}
				}
				r.refuse(sc, "too_large", msg, txn, session)
			}
			if sc.trailing {
				// The line goes on after the request's JSON value. A line is one
				// message on stdio (the SDK's reader, like MCP's stdio transport,
				// wants a newline after each), and a line under the limit that holds
				// two values is not valid JSON: it gets a parse error and nothing of
				// it runs. So it is here: what follows the first value is not taken
				// for a request of its own (its start is only where the unread bytes
				// before it seem to end), nor read for the request's id or tool; the
				// client is told that the rest of the line was not read.
				r.write(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{
					"code": -32700, "message": "Parse error: this line over 16 MiB goes on after its first JSON value; what follows was not read and nothing of it was run. Send one JSON-RPC message per line."}})
				if r.log != nil {
					r.log.Warn("request refused unread", "why", "the line goes on after its first JSON value")
				}
			}
			if err != nil && err != bufio.ErrBufferFull {
				return err
			}
			return nil
		}
		r.frame = append(r.frame, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && len(r.frame) == 0 {
			if err == io.EOF && r.open != nil && !r.open.drain(DrainWait) && r.overdue != nil {
				// The calls still running are ended, and their replies (what was
				// killed, and what it changed) written before the SDK is told the
				// input ended: after that it writes nothing more.
				r.overdue()
				r.open.drain(overdueWait)
			}
			return err
		}
		break
	}
	if len(bytes.TrimSpace(r.frame)) == 0 {
		return nil // a blank line carries nothing
	}
	sc.feed(r.frame)
	if sc.maxDepth > MaxFrameDepth {
		// Before the validity check: past 10000 levels encoding/json calls any text
		// invalid, and the reply would lose the id the scan read.
		r.refuse(sc, "invalid_input", tooDeep(sc.maxDepth), nil, "")
		return nil
	}
	if !json.Valid(r.frame) {
		// The SDK would end the connection on it; JSON-RPC answers a parse error with
		// id null.
		r.write(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{
			"code": -32700, "message": "Parse error: this line is not valid JSON and was not run. Send one JSON-RPC message per line."}})
		if r.log != nil {
			r.log.Warn("request refused unread", "why", "not valid JSON")
		}
		return nil
	}
	if t := bytes.TrimSpace(r.frame); t[0] != '{' {
		// A batch, or a bare value: the SDK would end the connection on either.
		r.invalid(nil, "this line is JSON but not a JSON-RPC request object; batches are not taken. Send one {\"jsonrpc\": \"2.0\", ...} object per line.")
		return nil
	}
	if sc.folded != "" {
		// The SDK reads member names as JSON-RPC spells them, and would take
		// {"ID": 5, "method": "tools/list"} for a notification and answer nothing, or
		// {"id": 5, "Method": "tools/list"} for a reply and drop it: the client would
		// wait for good. Go's encoding/json (and the fast path's decoding of params)
		// would read them as the members. Refused, so that every reader agrees.
		r.invalidFolded(sc)
		return nil
	}
	if _, err := jsonrpc.DecodeMessage(r.frame); err != nil {
		// Not JSON-RPC 2.0 (its version tag, an id that is neither a string nor a
		// number): answered here, since the SDK would end the connection on it.
		r.invalid(sc, fmt.Sprintf("this request is not JSON-RPC 2.0 (%v) and was not run. Send \"jsonrpc\": \"2.0\", a \"method\", and an \"id\" that is a string or a number.", err))
		return nil
	}
	if string(bytes.TrimSpace(sc.id)) == "null" && len(sc.method) > 0 {
		// The SDK takes it for a notification and answers nothing: the client would
		// wait for good. MCP requires a string or number id.
		r.invalid(sc, "this request's id is null, and MCP requests need a string or number id (a message with no id at all is a notification, which gets no reply); it was not run. Send an id such as 1.")
		return nil
	}
	if sc.idOver {
		// Not reached (a held frame's id is kept whole); should it be, an id that was
		// not kept is answered as none, not under a part of it.
		r.invalid(nil, fmt.Sprintf("this request's id is longer than %d bytes and was not read; it was not run. Send a short id.", sc.maxID))
		return nil
	}
	if id := bytes.TrimSpace(sc.id); len(id) > 0 && id[0] != '"' && !exactID(id) {
		// The SDK reads a number id as a float64 made an int64 and writes that back:
		// 1.5 would be answered as 1 (another request's id), 2^53+1 as 2^53, 2^63-1 as
		// -2^63, and 1e0 or 1.0 as 1, another spelling than the client's. Refused
		// under the id as sent (the refusal writes its bytes back).
		r.invalid(sc, fmt.Sprintf("this request's id %s is not a whole number within ±2^53 (9007199254740992) written in digits alone, and a reply could not carry it as sent; it was not run. Send a string id, or a whole number such as 1.", id))
		return nil
	}
	if id := bytes.TrimSpace(sc.id); len(id) > 0 && id[0] == '"' && !utf8.Valid(id) {
		// The SDK decodes a byte that is not UTF-8 as U+FFFD and answers under that,
		// another id than the one sent (the fast path would echo the bytes, and a
		// reply is UTF-8 text): refused, under id null, on every path.
		r.invalid(sc, "this request's id holds bytes that are not UTF-8, which a reply (UTF-8 JSON text) cannot carry, so it is answered with id null; it was not run. Send an id of valid text.")
		return nil
	}
	if id := bytes.TrimSpace(sc.id); len(id) > 0 && id[0] == '"' && !wholeText(id) {
		// The SDK decodes a lone surrogate ("\ud800") as U+FFFD and answers under
		// that, another id than the one sent: refused under the id as sent (an
		// escape, which a reply carries), on every path.
		r.invalid(sc, "this request's id holds a lone UTF-16 surrogate escape, which would be read as another id; it was not run. Send an id of valid text.")
		return nil
	}
	if sc.methodName == "tools/call" && !utf8.Valid(r.frame) {
		if key := metaNotText(r.frame); key != "" {
			// Decoded, each bad byte would read as U+FFFD: the call journaled under
			// a session or turn that no later command can name.
			r.refuse(sc, "invalid_input", fmt.Sprintf("params._meta %q holds bytes that are not UTF-8, which would be journaled as another name (each bad byte as U+FFFD); the call was not run. Send it as valid text.", key), nil, "")
			return nil
		}
	}
	if r.fast != nil && sc.id != nil && sc.methodName == "tools/call" {
		if reply, ok := r.fast(sc.id, r.frame); ok {
			r.out.Write(reply)
			return nil
		}
	}
	if len(sc.method) > 0 && sc.id != nil && r.open != nil {
		r.open.add(idKey(sc.id)) // a request: its reply is awaited at the end of the input
	}
	if sc.methodName == "notifications/cancelled" && sc.id == nil && r.open != nil {
		// Decoded into maps, whose keys match exactly, as the SDK reads them.
		var n struct {
			Params map[string]json.RawMessage `json:"params"`
		}
		if json.Unmarshal(r.frame, &n) == nil && n.Params["requestId"] != nil {
			r.open.cancel(idKey(n.Params["requestId"]))
		}
	}
	r.pending = withRequestID(r.frame)
	return nil
}

var utf8BOM = []byte("\ufeff")

// exactID reports whether id, a JSON number, is a whole number within ±2^53 written
// as the SDK writes it back: digits alone, with no fraction, exponent or leading
// zero, and not -0. A float64, and so the SDK, holds such a number exactly, and an
// int64 prints it as sent.
func exactID(id []byte) bool {
	digits := bytes.TrimPrefix(id, []byte("-"))
	if len(digits) == 0 || len(digits) > 16 || digits[0] == '0' && len(id) > 1 {
		return false // 2^53 has 16 digits; "0" alone is 0, "-0" would come back as 0
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	v, ok := new(big.Int).SetString(string(digits), 10)
	return ok && v.Cmp(maxExactID) <= 0
}

var maxExactID = big.NewInt(1 << 53)

// wholeText reports whether id, a valid JSON string, decodes to text without a
// replacement: its bytes are UTF-8, and each \u escape of a UTF-16 surrogate is
// one of a high and low pair.
func wholeText(id []byte) bool {
	if !utf8.Valid(id) {
		return false
	}
	hex := func(i int) uint64 { // the \u escape whose 'u' is id[i]
		v, _ := strconv.ParseUint(string(id[i+1:i+5]), 16, 32)
		return v
	}
	for i := 1; i < len(id)-1; i++ {
		if id[i] != '\\' {
			continue
		}
		if i++; id[i] != 'u' {
			continue
		}
		v := hex(i)
		i += 4
		switch {
		case v >= 0xDC00 && v <= 0xDFFF:
			return false
		case v >= 0xD800 && v <= 0xDBFF:
			if i+2 >= len(id) || id[i+1] != '\\' || id[i+2] != 'u' {
				return false
			}
			if lo := hex(i + 2); lo < 0xDC00 || lo > 0xDFFF {
				return false
			}
			i += 6
		}
	}
	return true
}

// invalid answers a frame that is JSON but not a JSON-RPC request the SDK can read:
// an Invalid Request error, with the frame's id when it is one JSON-RPC allows.
func (r *frameReader) invalid(sc *frameScan, msg string) {
	if r.log != nil {
		r.log.Warn("request refused unread", "why", msg)
	}
	var id any
	if sc != nil && len(sc.id) > 0 && (sc.id[0] == '"' || sc.id[0] == '-' || sc.id[0] >= '0' && sc.id[0] <= '9') {
		id = sayable(sc.id)
	}
	r.write(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32600, "message": "Invalid Request: " + msg}})
}

// metaNotText is the key, MetaSession or MetaTurn, whose value in frame's params._meta
// holds bytes that are not UTF-8; "" for none.
func metaNotText(frame []byte) string {
	var msg struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(frame, &msg) != nil {
		return ""
	}
	for _, k := range []string{MetaSession, MetaTurn} {
		if v, ok := msg.Params.Meta[k]; ok && !utf8.Valid(v) {
			return k
		}
	}
	return ""
}

// sayable is id as a reply carries it: as sent, or null when it holds bytes that are
// not UTF-8, which no reply (UTF-8 JSON text) can carry.
func sayable(id json.RawMessage) any {
	if !utf8.Valid(id) {
		return nil
	}
	return id
}

// invalidFolded answers a frame with a member whose name differs from a JSON-RPC
// member's only in case (sc.folded): under its "id", spelled exactly, also when the
// folded member is "ID" or "Id". A client reads its own reply's id in exact case, and
// waits on that one: {"id": 40, "ID": 22} answered with id null would leave it waiting
// on 40. With no exact "id", the reply's id is null.
func (r *frameReader) invalidFolded(sc *frameScan) {
	member := foldedMember([]byte(sc.folded))
	msg := fmt.Sprintf("this request has a member %q, which is not %q: JSON-RPC member names are case-sensitive, and readers differ on such a name; it was not run. Send %q.", sc.folded, member, member)
	r.invalid(sc, msg)
}

// refuse answers a refused frame's request; txn is the number of its record, if one
// was written, session that record's session (null in the reply when "": nothing
// was journaled, and the frame's _meta may have named another).
func (r *frameReader) refuse(sc *frameScan, kind, msg string, txn *int64, session string) {
	if r.log != nil {
		r.log.Warn("request refused unread", "kind", kind, "method", string(sc.method), "id", string(sc.id), "why", msg)
	}
	if sc.id == nil {
		return // a notification, or no id to answer
	}
	var reply any
	if sc.methodName == "tools/call" {
		reply = map[string]any{"jsonrpc": "2.0", "id": sayable(sc.id), "result": map[string]any{
			"content":           []any{map[string]any{"type": "text", "text": msg}},
			"structuredContent": map[string]any{"ok": false, "kind": kind, "txn": txn, "session": nullable(session)},
			"isError":           true,
		}}
	} else {
		reply = map[string]any{"jsonrpc": "2.0", "id": sayable(sc.id), "error": map[string]any{
			"code": -32600, "message": kind + ": " + msg, "data": map[string]any{"kind": kind},
		}}
	}
	r.write(reply)
}

// nullable is s, or nil for "".
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (r *frameReader) write(msg any) {
	b, err := json.Marshal(msg)
	if err != nil {
		return
	}
	r.out.Write(append(b, '\n'))
}

// tooDeep is the refusal of a request nested depth levels deep.
func tooDeep(depth int) string {
	return fmt.Sprintf("This request is nested %d levels deep; at most %d are read and nothing was run. "+
		"Send tool arguments as a flat object such as {\"path\": \"src/app.ts\"}.", depth, MaxFrameDepth)
}

// TooDeep reads a line (`vfsctl call`'s, or a frame) without decoding it: past
// MaxFrameDepth levels it returns the refusal serve gives, and the line's top-level
// "id" where one reads as a string or a number, so that the reply still pairs with
// its call; "" and nil otherwise.
func TooDeep(line []byte) (msg string, id json.RawMessage) {
	var sc frameScan
	sc.feed(line)
	if sc.maxDepth <= MaxFrameDepth {
		return "", nil
	}
	if len(sc.id) > 0 && (sc.id[0] == '"' || sc.id[0] == '-' || sc.id[0] >= '0' && sc.id[0] <= '9') {
		id = sc.id
	}
	return tooDeep(sc.maxDepth), id
}

// TwiceNamed is the first of the members of a call line (lineMembers) that line, a
// `vfsctl call` line, names twice at its top level (keys read with their escapes
// decoded), "" for none: the one whose second naming comes first. A decoder keeps the
// last of each silently, where the sender meant one of them. Keys named twice inside
// the arguments are no part of the line's envelope.
func TwiceNamed(line []byte) string {
	sc := frameScan{shape: lineCall}
	sc.feed(line)
	return sc.twice
}

// CutLine reads a `vfsctl call` line too large to hold, written to it in parts, in
// bounded memory, as serve reads a tools/call over MaxFrame: for its reply, the id;
// for its record, the tool, the turn and the arguments cut as a record keeps them.
type CutLine struct{ sc *frameScan }

// NewCutLine returns an empty CutLine.
func NewCutLine() *CutLine { return &CutLine{newCut(lineCall)} }

// Write reads p, the next part of the line.
func (c *CutLine) Write(p []byte) (int, error) {
	c.sc.feed(p)
	return len(p), nil
}

// ID is the line's "id" when it is a string or a number, else nil.
func (c *CutLine) ID() json.RawMessage {
	if id := c.sc.id; len(id) > 0 && (id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9') {
		return id
	}
	return nil
}

// Tool is the tool the line names, "" when it names none readable.
func (c *CutLine) Tool() string { return c.sc.Tool() }

// Turn is the line's "turn" as sent, nil when there is none or it was too long.
func (c *CutLine) Turn() json.RawMessage { return c.sc.Meta() }

// Twice is the first of the line's members (lineMembers) that it
// names twice, as TwiceNamed says; "" for none.
func (c *CutLine) Twice() string { return c.sc.twice }

// Args is the line's "args" cut, with their size as sent; nil when there are none.
func (c *CutLine) Args() ([]byte, int) { return c.sc.Args() }

// Line is the line, cut.
func (c *CutLine) Line() []byte { return c.sc.Frame() }

// frameScan follows a JSON text byte by byte, in bounded memory: how deep it nests,
// and the top-level "id" and "method" values, wherever they stand, keys and method
// read with their escapes as a decoder reads them. A cut call's scan (newCutCall)
// also picks what the record of a call too large to hold needs, its members named by
// its callShape: the tool's name, its _meta or turn (when at most maxCutMeta bytes),
// and its arguments cut as a record keeps them, with their size as sent; the members
// may stand in any order, and the last of a key sent twice is kept, as a decoder
// reads it. It reads the text's first value only: once that ends, it notes only
// whether more than spaces follow.
type frameScan struct {
	depth, maxDepth      int
	inString, esc, inKey bool
	obj, wantKey         [3]bool          // at depth 1 and 2: an object, whose next string is a key
	key                  [3][]byte        // at depth 1 and 2: the key last read
	keep                 int              // the member whose value is being read, keepNone for none
	started              bool             // that value's first byte was read
	run                  int              // where its bytes start in the bytes being fed, -1 for none
	kept                 [keepArgs]capped // the values of id, method, name and _meta
	id, method           json.RawMessage
	// maxID bounds the id kept (0 for the default, maxID); idOver says the id was
	// longer, and so is not in id.
	maxID      int
	idOver     bool
	methodName string // method as a decoder reads it, "" when not a string
	// top is the text's first byte other than a space: members are picked only of an
	// object. closed says that first value has ended, trailing that more follows.
	top              byte
	closed, trailing bool
	// folded is the first top-level key that is not a JSON-RPC member but differs
	// from one only in case (foldedMember), as sent.
	folded string
	// Of a cut call: the frame and the arguments cut, and the arguments' size as sent,
	// of which trail bytes are spaces after them.
	frame, args     *toolapi.ArgsCutter
	argsSize, trail int
	// metaCut is a cut call's _meta cut as its arguments are, for a _meta too long to
	// keep whole: the session and turn it names are read of it.
	metaCut *toolapi.ArgsCutter
	shape   callShape
	// Of a vfsctl call line (lineCall): the members of its envelope read so far, one
	// bit each (lineMembers), and the first named twice.
	named uint8
	twice string
}

// callShape names the members of a call: the object they stand in (under, a
// top-level member; "" for the top level itself), and the keys of the tool's name,
// of what goes with the call (its _meta, its turn) and of its arguments.
type callShape struct{ under, name, meta, args string }

var (
	// rpcCall is a JSON-RPC tools/call: params.name, params._meta, params.arguments.
	rpcCall = callShape{"params", "name", "_meta", "arguments"}
	// lineCall is a vfsctl call line: {"id", "tool", "args", "turn"}.
	lineCall = callShape{"", "tool", "turn", "args"}
)

// lineMembers are the members of a vfsctl call line.
var lineMembers = [...]string{"id", "tool", "args", "turn", "traceparent", "tracestate"}

// depth is the depth of the keys of a call's members.
func (c callShape) depth() int {
	if c.under == "" {
		return 1
	}
	return 2
}

// member is the member whose value follows key, keepNone for none.
func (c callShape) member(key []byte) int {
	switch string(key) {
	case c.name:
		return keepName
	case c.meta:
		return keepMeta
	case c.args:
		return keepArgs
	}
	return keepNone
}

// The members whose values are kept.
const (
	keepNone   = iota
	keepID     // the top-level "id"
	keepMethod // the top-level "method"
	keepName   // params.name, of a cut call
	keepMeta   // params._meta, of a cut call
	keepArgs   // params.arguments, of a cut call, kept by its cutter
	maxKept    = 256
	maxCutMeta = 64 << 10
	// maxID bounds the id kept of a frame too large to hold: ids are short in
	// practice, and one longer is refused (idOver), never cut.
	maxID = 64 << 10
)

// newCutCall returns the scan of a tools/call too large to hold.
func newCutCall() *frameScan { return newCut(rpcCall) }

// newCut returns the scan of a call of that shape too large to hold.
func newCut(shape callShape) *frameScan {
	return &frameScan{frame: toolapi.NewArgsCutter(maxCutFrame), shape: shape}
}

func (s *frameScan) feed(b []byte) {
	if s.closed {
		s.after(b)
		return
	}
	s.run = -1
	if s.started {
		s.run = 0
	}
	n := len(b)
	for i := 0; i < len(b); i++ {
		if s.closed {
			n = i
			s.after(b[i:])
			break
		}
		if s.depth > s.floor() || s.inString && !s.inKey {
			i = s.skip(b, i) - 1
			continue
		}
		s.byte(b, i)
	}
	s.flush(b, n)
	if s.frame != nil {
		s.frame.Write(b[:n])
	}
}

// after notes whether b, after the first value, holds more than spaces.
func (s *frameScan) after(b []byte) {
	if !s.trailing && len(bytes.TrimLeft(b, " \t\r\n")) > 0 {
		s.trailing = true
	}
}

// floor is the depth down to which bytes are read one by one: that of the keys
// followed, or of the member whose value is being kept.
func (s *frameScan) floor() int {
	if s.frame != nil && (s.keep > keepMethod || s.keep == keepNone) {
		return s.shape.depth()
	}
	return 1
}

// skip follows b from i while it is nested below the floor or inside a string value,
// where most of a large frame's bytes are, with nothing to pick but their end; it
// returns the index of the first byte it did not follow.
func (s *frameScan) skip(b []byte, i int) int {
	floor := s.floor()
	depth, maxDepth, inString, esc := s.depth, s.maxDepth, s.inString, s.esc
	for ; i < len(b) && (depth > floor || inString); i++ {
		if inString && !esc {
			// Most of a large frame is string: on to its next quote or backslash.
			if j := jsonstr.StringEnd(b[i:]); j < 0 {
				i = len(b)
				break
			} else {
				i += j
			}
		}
		c := b[i]
		switch {
		case inString:
			if esc {
				esc = false
			} else if c == '\\' {
				esc = true
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			maxDepth = max(maxDepth, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	s.depth, s.maxDepth, s.inString, s.esc = depth, maxDepth, inString, esc
	return i
}

// byte follows b[i], at or above the floor: a key, the start or the end of a member's
// value, a bracket.
func (s *frameScan) byte(b []byte, i int) {
	c, d := b[i], s.depth
	if s.inKey {
		switch {
		case s.esc:
			s.esc = false
		case c == '\\':
			s.esc = true
		case c == '"':
			s.inString, s.inKey = false, false
			return
		}
		if len(s.key[d]) <= maxKept { // one byte more says it is longer
			s.key[d] = append(s.key[d], c)
		}
		return
	}
	keyed := d >= 1 && d <= 2 && s.obj[d] && s.keep == keepNone && s.top == '{'
	switch c {
	case ' ', '\t', '\r', '\n':
		return
	}
	if s.top == 0 {
		s.top = c
	}
	switch c {
	case '"':
		s.inString = true
		if keyed && s.wantKey[d] {
			s.inKey, s.wantKey[d], s.key[d] = true, false, s.key[d][:0]
			return
		}
	case ':':
		if keyed { // a key read since the last comma names the member
			s.begin(s.member(d))
			return
		}
	case ',', '}', ']':
		s.end(b, i)
		if c != ',' {
			if s.depth--; s.depth == 0 {
				s.closed = true
			}
		} else if d >= 1 && d <= 2 {
			s.wantKey[d], s.key[d] = s.obj[d], s.key[d][:0]
		}
		return
	case '{', '[':
		s.depth++
		s.maxDepth = max(s.maxDepth, s.depth)
		if d := s.depth; d >= 1 && d <= 2 {
			s.obj[d], s.wantKey[d], s.key[d] = c == '{', c == '{', s.key[d][:0]
		}
	}
	if s.keep != keepNone && !s.started {
		s.started, s.run = true, i
	}
}

// member is the member whose value follows the key just read at depth d.
func (s *frameScan) member(d int) int {
	key := s.keyName(d)
	if d == 1 && s.shape == lineCall {
		s.noteNamed(key)
	}
	if d == 1 {
		switch string(key) {
		case "id":
			return keepID
		case "method":
			return keepMethod
		}
		if s.frame != nil && s.shape.under == "" {
			return s.shape.member(key)
		}
		if s.frame != nil && string(key) == s.shape.under {
			// Sent twice, params is read as its last value, members and all.
			s.kept[keepName], s.kept[keepMeta], s.metaCut = capped{}, capped{}, nil
			s.args, s.argsSize, s.trail = nil, 0, 0
		}
		if s.folded == "" && foldedMember(key) != "" {
			s.folded = string(key)
		}
	} else if s.frame != nil && s.shape.under != "" && s.obj[1] && string(s.keyName(1)) == s.shape.under {
		return s.shape.member(key)
	}
	return keepNone
}

// noteNamed notes key, a vfsctl call line's top-level key, when it is a member of its
// envelope; twice is the first named again.
func (s *frameScan) noteNamed(key []byte) {
	for i, m := range lineMembers {
		if string(key) == m {
			if s.named&(1<<i) != 0 && s.twice == "" {
				s.twice = m
			}
			s.named |= 1 << i
		}
	}
}

// keyName is the key last read at depth d as a decoder reads it, its escapes
// decoded; nil when it is longer than any the scan looks for, or not a string.
func (s *frameScan) keyName(d int) []byte {
	k := s.key[d]
	if len(k) > maxKept {
		return nil
	}
	if bytes.IndexByte(k, '\\') < 0 {
		return k
	}
	var v string
	if json.Unmarshal(append(append([]byte{'"'}, k...), '"'), &v) != nil {
		return nil
	}
	return []byte(v)
}

// unquote is the value of v, a valid JSON value, when a string; "" otherwise.
func unquote(v []byte) string {
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1]) // valid, so nothing in it to decode
	}
	var s string
	json.Unmarshal(v, &s)
	return s
}

// rpcMembers are the members of a JSON-RPC request.
var rpcMembers = []string{"jsonrpc", "id", "method", "params"}

// foldedMember is the JSON-RPC request member that key is not, but that a decoder
// matching names regardless of case reads it as, "" for none. Go's encoding/json
// folds as bytes.EqualFold does, by Unicode simple folding: "paramſ" is "params".
func foldedMember(key []byte) string {
	for _, m := range rpcMembers {
		if string(key) != m && bytes.EqualFold(key, []byte(m)) {
			return m
		}
	}
	return ""
}

func (s *frameScan) begin(m int) {
	s.keep, s.started = m, false
	if m == keepArgs {
		s.args, s.argsSize, s.trail = toolapi.NewArgsCutter(maxCutFrame), 0, 0
	} else if m != keepNone {
		s.kept[m] = capped{b: s.kept[m].b[:0], max: maxKept}
		switch {
		case m == keepMeta:
			s.kept[m].max = maxCutMeta
			if s.frame != nil {
				s.metaCut = toolapi.NewArgsCutter(maxCutMeta)
			}
		case (m == keepID || m == keepMethod) && s.maxID > 0:
			// A held frame's method too: a request whose method was not kept
			// would not be awaited at the end of the input.
			s.kept[m].max = s.maxID
		case m == keepID:
			s.kept[m].max = maxID
		}
	}
}

// flush hands the value being kept its bytes of b before j.
func (s *frameScan) flush(b []byte, j int) {
	if s.run < 0 {
		return
	}
	part := b[s.run:j]
	s.run = -1
	if s.keep != keepArgs {
		s.kept[s.keep].Write(part)
		if s.keep == keepMeta && s.metaCut != nil {
			s.metaCut.Write(part)
		}
		return
	}
	s.args.Write(part)
	s.argsSize += len(part)
	// Spaces that end the bytes read are the value's end, or inside a string that
	// goes on: then the bytes that follow hold more than spaces.
	if t := len(part) - len(bytes.TrimRight(part, " \t\r\n")); t < len(part) {
		s.trail = t
	} else {
		s.trail += t
	}
}

// end ends the value being kept, at b[i].
func (s *frameScan) end(b []byte, i int) {
	s.flush(b, i)
	if s.keep == keepID || s.keep == keepMethod {
		// An id or a method is never an object or an array. A member sent twice is
		// read as its last value.
		var v []byte
		if k := s.kept[s.keep].value(); json.Valid(k) && k[0] != '{' && k[0] != '[' {
			v = bytes.Clone(k)
		}
		if s.keep == keepID {
			s.id, s.idOver = v, s.kept[keepID].over
		} else {
			s.method, s.methodName = v, unquote(v)
		}
	}
	s.keep, s.started = keepNone, false
}

// Tool is the tool a cut call names, "" when it names none readable.
func (s *frameScan) Tool() string {
	var name string
	if json.Unmarshal(s.kept[keepName].value(), &name) != nil {
		return ""
	}
	return name
}

// Meta is a cut call's params._meta as sent, nil when it was not read whole.
func (s *frameScan) Meta() json.RawMessage {
	if v := s.kept[keepMeta].value(); json.Valid(v) {
		return v
	}
	return nil
}

// MetaRead is a cut call's params._meta as far as it could be read: as sent when it
// is at most maxCutMeta bytes, else cut as a record cuts arguments, each string over
// 512 bytes cut to its start and its length as sent (a session name or a turn label
// sent with escapes may be that long: one cut is not used), and nothing past 64 KiB
// of that; nil when there is none.
func (s *frameScan) MetaRead() []byte {
	if v := s.Meta(); v != nil || s.metaCut == nil {
		return v
	}
	return s.metaCut.Bytes()
}

// Args is a cut call's params.arguments cut, with their size as sent; nil when there
// are none.
func (s *frameScan) Args() ([]byte, int) {
	if s.argsSize == 0 {
		return nil, 0
	}
	b := s.args.Bytes()
	if t := len(b) - s.trail; t >= 0 && len(bytes.TrimSpace(b[t:])) == 0 {
		b = b[:t] // the spaces after the value
	}
	return b, s.argsSize - s.trail
}

// Frame is a cut call's frame, cut.
func (s *frameScan) Frame() []byte { return s.frame.Bytes() }

// capped keeps a value written to it up to max bytes, not counting the spaces after
// it, and none when it is longer.
type capped struct {
	b    []byte
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	n := len(p)
	if room := c.max - len(c.b); len(p) > room {
		c.over = c.over || len(bytes.TrimRight(p[room:], " \t\r\n")) > 0
		p = p[:room]
	}
	if !c.over {
		c.b = append(c.b, p...)
	}
	return n, nil
}

// value is what was kept, without the spaces after it; nil when it was too long.
func (c *capped) value() []byte {
	if c.over {
		return nil
	}
	return bytes.TrimRight(c.b, " \t\r\n")
}

// metaRequestID is the params._meta key under which the transport hands a tools/call
// its JSON-RPC request id, which the SDK does not pass to handlers: the call's span
// records it as gen_ai.tool.call.id when the runtime sent no call id of its own.
const metaRequestID = "vfsctl/jsonrpc_id"

// withRequestID returns frame with a tools/call's request id in params._meta
// (metaRequestID), or frame itself for any other message or one it cannot rewrite.
func withRequestID(frame []byte) []byte {
	var msg struct {
		ID     json.RawMessage            `json:"id"`
		Method string                     `json:"method"`
		Params map[string]json.RawMessage `json:"params"`
	}
	if json.Unmarshal(frame, &msg) != nil || msg.Method != "tools/call" || len(msg.ID) == 0 || msg.Params == nil {
		return frame
	}
	meta := map[string]json.RawMessage{}
	if m, ok := msg.Params["_meta"]; ok && json.Unmarshal(m, &meta) != nil {
		return frame
	}
	meta[metaRequestID] = msg.ID
	var all map[string]json.RawMessage
	if json.Unmarshal(frame, &all) != nil {
		return frame
	}
	var err error
	if msg.Params["_meta"], err = json.Marshal(meta); err != nil {
		return frame
	}
	if all["params"], err = json.Marshal(msg.Params); err != nil {
		return frame
	}
	out, err := json.Marshal(all)
	if err != nil {
		return frame
	}
	return append(out, '\n')
}

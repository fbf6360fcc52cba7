package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
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
// id that is an object) with an Invalid Request error, instead of ending the
// connection.
func NewTransport(in io.Reader, out io.Writer, log *slog.Logger) sdk.Transport {
	w := &lockedWriter{w: out}
	r := &frameReader{in: bufio.NewReaderSize(in, 64<<10), out: w, log: log, max: MaxFrame}
	if c, ok := in.(io.Closer); ok {
		r.closer = c
	}
	// The SDK's own bound stays as a backstop (a value spread over several lines is
	// not one frame here); twice ours, since it also counts bytes read ahead.
	return &sdk.IOTransport{Reader: r, Writer: w, MaxLineLength: 2 * MaxFrame}
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
	pending []byte // the rest of an accepted frame, not yet read by the SDK
}

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
	var sc frameScan
	for {
		chunk, err := r.in.ReadSlice('\n')
		if len(r.frame)+len(chunk) > r.max {
			// Too large: read on to the end of the line without keeping it.
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
			r.refuse(&sc, "too_large", fmt.Sprintf("This request is %d bytes; requests over %d bytes (16 MiB) are refused unread and nothing was run. "+
				"Send less in one call: edit_file with only the lines that change, or a large file in parts (create_file, then edit_file).", size, r.max))
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
			return err
		}
		break
	}
	if len(bytes.TrimSpace(r.frame)) == 0 {
		return nil // a blank line carries nothing
	}
	sc.feed(r.frame)
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
	if sc.maxDepth > MaxFrameDepth {
		r.refuse(&sc, "invalid_input", fmt.Sprintf("This request is nested %d levels deep; at most %d are read and nothing was run. "+
			"Send tool arguments as a flat object such as {\"path\": \"src/app.ts\"}.", sc.maxDepth, MaxFrameDepth))
		return nil
	}
	if t := bytes.TrimSpace(r.frame); t[0] != '{' {
		// A batch, or a bare value: the SDK would end the connection on either.
		r.invalid(nil, "this line is JSON but not a JSON-RPC request object; batches are not taken. Send one {\"jsonrpc\": \"2.0\", ...} object per line.")
		return nil
	}
	if _, err := jsonrpc.DecodeMessage(r.frame); err != nil {
		// Not JSON-RPC 2.0 (its version tag, an id that is neither a string nor a
		// number): answered here, since the SDK would end the connection on it.
		r.invalid(&sc, fmt.Sprintf("this request is not JSON-RPC 2.0 (%v) and was not run. Send \"jsonrpc\": \"2.0\", a \"method\", and an \"id\" that is a string or a number.", err))
		return nil
	}
	if string(bytes.TrimSpace(sc.id)) == "null" && len(sc.method) > 0 {
		// The SDK takes it for a notification and answers nothing: the client would
		// wait for good. MCP requires a string or number id.
		r.invalid(&sc, "this request's id is null, and MCP requests need a string or number id (a message with no id at all is a notification, which gets no reply); it was not run. Send an id such as 1.")
		return nil
	}
	r.pending = r.frame
	return nil
}

// invalid answers a frame that is JSON but not a JSON-RPC request the SDK can read:
// an Invalid Request error, with the frame's id when it is one JSON-RPC allows.
func (r *frameReader) invalid(sc *frameScan, msg string) {
	if r.log != nil {
		r.log.Warn("request refused unread", "why", msg)
	}
	var id any
	if sc != nil && len(sc.id) > 0 && (sc.id[0] == '"' || sc.id[0] == '-' || sc.id[0] >= '0' && sc.id[0] <= '9') {
		id = sc.id
	}
	r.write(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32600, "message": "Invalid Request: " + msg}})
}

// refuse answers a refused frame's request.
func (r *frameReader) refuse(sc *frameScan, kind, msg string) {
	if r.log != nil {
		r.log.Warn("request refused unread", "kind", kind, "method", string(sc.method), "id", string(sc.id), "why", msg)
	}
	if sc.id == nil {
		return // a notification, or no id to answer
	}
	var reply any
	var method string
	json.Unmarshal(sc.method, &method)
	if method == "tools/call" {
		reply = map[string]any{"jsonrpc": "2.0", "id": sc.id, "result": map[string]any{
			"content":           []any{map[string]any{"type": "text", "text": msg}},
			"structuredContent": map[string]any{"ok": false, "kind": kind, "txn": nil},
			"isError":           true,
		}}
	} else {
		reply = map[string]any{"jsonrpc": "2.0", "id": sc.id, "error": map[string]any{
			"code": -32600, "message": kind + ": " + msg, "data": map[string]any{"kind": kind},
		}}
	}
	r.write(reply)
}

func (r *frameReader) write(msg any) {
	b, err := json.Marshal(msg)
	if err != nil {
		return
	}
	r.out.Write(append(b, '\n'))
}

// frameScan follows a JSON text byte by byte, in constant memory: how deep it nests,
// and the top-level "id" and "method" values, wherever they stand.
type frameScan struct {
	depth, maxDepth int
	inString, esc   bool
	// At the top level of the object: the key being read, and the value being kept.
	state      int // scanKey, scanInKey, scanColon, scanValue
	key, value []byte
	keep       bool // the value is one of those kept
	overflow   bool // the key or value is longer than any id or method
	id, method json.RawMessage
}

const (
	scanKey = iota
	scanInKey
	scanColon
	scanValue
	maxKept = 256
)

func (s *frameScan) feed(b []byte) {
	for _, c := range b {
		s.byte(c)
	}
}

func (s *frameScan) byte(c byte) {
	top := s.depth == 1
	if s.inString {
		s.stringByte(c, top)
		return
	}
	switch c {
	case ' ', '\t', '\r', '\n':
		return
	case '"':
		s.inString = true
		if top && s.state == scanKey {
			s.state, s.key, s.overflow = scanInKey, s.key[:0], false
			return
		}
	case '{', '[':
		s.depth++
		s.maxDepth = max(s.maxDepth, s.depth)
		if s.depth == 1 {
			s.state = scanKey
		}
		if top && s.state == scanValue {
			s.keep = false // an id or a method is never an object or an array
		}
		return
	case '}', ']':
		if top {
			s.endValue()
		}
		s.depth--
		return
	case ':':
		if top && s.state == scanColon {
			s.state, s.value = scanValue, s.value[:0]
			s.keep = !s.overflow && (string(s.key) == "id" || string(s.key) == "method")
			return
		}
	case ',':
		if top {
			s.endValue()
			s.state = scanKey
			return
		}
	}
	if top && s.state == scanValue && s.keep {
		s.collect(&s.value, c)
	}
}

// stringByte follows one byte inside a string: its end, and a top-level key or a
// kept value it spells.
func (s *frameScan) stringByte(c byte, top bool) {
	switch {
	case s.esc:
		s.esc = false
	case c == '\\':
		s.esc = true
	case c == '"':
		s.inString = false
	}
	if top && s.state == scanInKey {
		if !s.inString {
			s.state = scanColon
		} else {
			s.collect(&s.key, c)
		}
	} else if top && s.state == scanValue && s.keep {
		s.collect(&s.value, c)
	}
}

func (s *frameScan) collect(dst *[]byte, c byte) {
	if len(*dst) >= maxKept {
		s.overflow, s.keep = true, false
		return
	}
	*dst = append(*dst, c)
}

func (s *frameScan) endValue() {
	if s.state == scanValue && s.keep && json.Valid(s.value) {
		v := json.RawMessage(bytes.Clone(s.value))
		if string(s.key) == "id" {
			s.id = v
		} else {
			s.method = v
		}
	}
	s.keep = false
}

// Package jsonstr holds what the scanners of JSON too large to decode share.
package jsonstr

import "bytes"

// StringEnd is the index in b of the first quote or backslash, -1 for none: where a
// string's text, read from its inside, stops or needs a closer look. It looks in
// windows, so that a search for one does not run far past the other (a long string
// with an escape every line, many short strings with none).
func StringEnd(b []byte) int {
	for off := 0; off < len(b); off += 256 {
		w := b[off:min(off+256, len(b))]
		if q := bytes.IndexByte(w, '"'); q >= 0 {
			w = w[:q+1]
		}
		if e := bytes.IndexByte(w, '\\'); e >= 0 {
			return off + e
		}
		if w[len(w)-1] == '"' {
			return off + len(w) - 1
		}
	}
	return -1
}

package toolapi

import (
	"encoding/json"
	"unicode/utf8"
)

// The decoding of a call splits its JSON text at each level: the line into its
// envelope, the arguments into fields, an array into items. json.Unmarshal into
// json.RawMessage validates each part again and copies it, so a call carrying tens
// of megabytes was copied and scanned once a level. Once the whole text is known to
// be valid, these split it without either: each part is a slice of the text.

// Fields splits raw, a JSON object known to be valid (json.Valid), into its members
// as json.Unmarshal into a map of json.RawMessage would: keys unescaped, a key sent
// twice keeping its last value, each value without the space around it.
func Fields(raw []byte) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	i := skipSpace(raw, 0) + 1 // past '{'
	for {
		i = skipSpace(raw, i)
		if i >= len(raw) || raw[i] == '}' {
			return m
		}
		if raw[i] == ',' {
			i++
			continue
		}
		end := valueEnd(raw, i)
		key := keyOf(raw[i:end])
		i = skipSpace(raw, end) + 1 // past ':'
		i = skipSpace(raw, i)
		end = valueEnd(raw, i)
		m[key] = raw[i:end:end]
		i = end
	}
}

// items splits raw, a JSON array known to be valid, into its items.
func items(raw []byte) []json.RawMessage {
	var out []json.RawMessage
	i := skipSpace(raw, 0) + 1 // past '['
	for {
		i = skipSpace(raw, i)
		if i >= len(raw) || raw[i] == ']' {
			return out
		}
		if raw[i] == ',' {
			i++
			continue
		}
		end := valueEnd(raw, i)
		out = append(out, raw[i:end:end])
		i = end
	}
}

// keyOf is the text of the JSON string q, quotes included.
func keyOf(q []byte) string {
	plain := true
	for _, c := range q {
		plain = plain && c != '\\' && c < utf8.RuneSelf
	}
	if plain {
		return string(q[1 : len(q)-1])
	}
	var s string
	json.Unmarshal(q, &s) // escapes, and invalid UTF-8 read as U+FFFD, as the decoder does
	return s
}

func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// valueEnd is the end of the valid JSON value that starts at raw[i].
func valueEnd(raw []byte, i int) int {
	switch raw[i] {
	case '"':
		for j := i + 1; j < len(raw); j++ {
			switch raw[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return len(raw)
	case '{', '[':
		depth := 0
		for j := i; j < len(raw); j++ {
			switch raw[j] {
			case '"':
				j = valueEnd(raw, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(raw)
	}
	j := i
	for j < len(raw) && raw[j] != ',' && raw[j] != '}' && raw[j] != ']' && raw[j] != ' ' && raw[j] != '\t' && raw[j] != '\n' && raw[j] != '\r' {
		j++
	}
	return j
}

// prefixFields splits raw, a JSON object that may be cut short (or any bytes), into
// the members it holds whole, as Fields would: a call's arguments cut to what a
// record keeps still give the paths they name first.
func prefixFields(raw []byte) map[string]json.RawMessage {
	if json.Valid(raw) {
		if t := raw[skipSpace(raw, 0)]; t == '{' {
			return Fields(raw)
		}
		return nil
	}
	m := map[string]json.RawMessage{}
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil
	}
	i++
	for {
		i = skipSpace(raw, i)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
		if i >= len(raw) || raw[i] != '"' {
			return m
		}
		end := valueEnd(raw, i)
		if end >= len(raw) || !json.Valid(raw[i:end]) {
			return m
		}
		key := keyOf(raw[i:end])
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return m
		}
		i = skipSpace(raw, i+1)
		if i >= len(raw) {
			return m
		}
		end = valueEnd(raw, i)
		// A value is whole when something follows it: a number cut short is valid too.
		if end >= len(raw) || !json.Valid(raw[i:end]) {
			return m
		}
		m[key] = raw[i:end:end]
		i = end
	}
}

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

// FieldSpan is where the value of member key of raw, a JSON object, stands in it,
// as Fields would split it; false when raw is not valid JSON or has no such member.
func FieldSpan(raw []byte, key string) (from, to int, ok bool) {
	if !json.Valid(raw) || raw[skipSpace(raw, 0)] != '{' {
		return 0, 0, false
	}
	i := skipSpace(raw, 0) + 1 // past '{'
	for {
		i = skipSpace(raw, i)
		if i >= len(raw) || raw[i] == '}' {
			return from, to, ok
		}
		if raw[i] == ',' {
			i++
			continue
		}
		end := valueEnd(raw, i)
		k := keyOf(raw[i:end])
		i = skipSpace(raw, end) + 1 // past ':'
		i = skipSpace(raw, i)
		end = valueEnd(raw, i)
		if k == key {
			from, to, ok = i, end, true // a key sent twice: its last value, as Fields
		}
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

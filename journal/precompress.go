package journal

import (
	"bytes"
	"compress/flate"
	"sync"
)

// Compressing a record's body is most of what storing it costs, and a call's record
// is stored from inside the journal's transaction, which every other call waits for.
// Precompress does that work ahead, outside it: the body (which holds neither the
// hashes nor the state nor the duration) is known before the files are hashed, so a
// caller compresses it beside the hashing, and the transaction's encode, and the
// committed record's encode after it, find it here. The cache is keyed by the whole
// uncompressed body, so a record changed since (a blob decided in the transaction)
// simply misses and is compressed there, as before.
var compressed = struct {
	sync.Mutex
	m map[string][]byte
}{}

const (
	compressedMax     = 64       // entries kept: a few calls in flight
	compressedMaxBody = 16 << 10 // a body larger than this is not kept (at most about 1.5 MB held)
)

// Precompress compresses r's stored body ahead of its transaction (see above).
func Precompress(r *Record) {
	if len(r.Args) > compressedMaxBody {
		return // not kept: spare the encoding
	}
	body, err := recordText(r, codecNoDiff)
	if err != nil || len(body) > compressedMaxBody {
		return
	}
	compressBody(body)
}

// compressBody is body compressed with recordDict, from the cache when it holds it.
func compressBody(body []byte) []byte {
	compressed.Lock()
	out, ok := compressed.m[string(body)]
	compressed.Unlock()
	if ok {
		return out
	}
	var buf bytes.Buffer
	buf.Grow(len(body)/2 + 64)
	w := recordWriters.Get().(*flate.Writer)
	w.Reset(&buf)
	w.Write(body)
	w.Close()
	recordWriters.Put(w)
	out = buf.Bytes()
	if len(body) <= compressedMaxBody {
		compressed.Lock()
		if compressed.m == nil || len(compressed.m) >= compressedMax {
			compressed.m = make(map[string][]byte, compressedMax)
		}
		compressed.m[string(body)] = out
		compressed.Unlock()
	}
	return out
}

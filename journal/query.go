package journal

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"
)

// Query selects records; zero fields select everything. Results come newest first.
type Query struct {
	Path    string
	Session string
	Kind    string
	Failed  bool // only refused and failed calls
	Since   time.Time
	Until   time.Time
	Limit   int // 0: no limit
}

func (q Query) match(r *Record) bool {
	switch {
	case q.Session != "" && r.Session != q.Session,
		q.Kind != "" && r.Kind != q.Kind,
		q.Failed && r.State != Failed,
		!q.Since.IsZero() && r.Time.Before(q.Since),
		!q.Until.IsZero() && !r.Time.Before(q.Until):
		return false
	}
	if q.Path != "" {
		for _, p := range r.Paths() {
			if p == q.Path {
				return true
			}
		}
		return false
	}
	return true
}

// Find returns the records q selects, newest first. It walks the most selective index
// it has (path, then session, then kind, then time) and filters the rest.
func (t *Tx) Find(q Query) ([]*Record, error) {
	var out []*Record
	visit := func(seq uint64) (bool, error) {
		r, err := t.Get(seq)
		if err != nil || r == nil {
			return false, err
		}
		if q.match(r) {
			out = append(out, r)
		}
		return q.Limit > 0 && len(out) >= q.Limit, nil
	}
	var prefix []byte
	bucket := ""
	switch {
	case q.Path != "":
		bucket, prefix = bByPath, append([]byte(q.Path), 0)
	case q.Session != "":
		bucket, prefix = bBySession, append([]byte(q.Session), 0)
	case q.Kind != "":
		bucket, prefix = bByKind, append([]byte(q.Kind), 0)
	}
	if bucket != "" {
		c := t.b(bucket).Cursor()
		// Seek past the last key with the prefix, then walk back.
		end := append(append([]byte(nil), prefix...), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
		k, _ := c.Seek(end)
		if k == nil {
			k, _ = c.Last()
		} else {
			k, _ = c.Prev()
		}
		for ; k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Prev() {
			if len(k) != len(prefix)+8 {
				continue // a longer key that only shares the prefix bytes
			}
			stop, err := visit(binary.BigEndian.Uint64(k[len(prefix):]))
			if err != nil || stop {
				return out, err
			}
		}
		return out, nil
	}
	if !q.Since.IsZero() || !q.Until.IsZero() {
		c := t.b(bByTime).Cursor()
		var k []byte
		if q.Until.IsZero() {
			k, _ = c.Last()
		} else {
			var u [8]byte
			binary.BigEndian.PutUint64(u[:], uint64(q.Until.UnixNano()))
			if k, _ = c.Seek(u[:]); k == nil {
				k, _ = c.Last()
			} else {
				k, _ = c.Prev()
			}
		}
		for ; k != nil; k, _ = c.Prev() {
			if int64(binary.BigEndian.Uint64(k[:8])) < q.Since.UnixNano() {
				break
			}
			stop, err := visit(binary.BigEndian.Uint64(k[8:]))
			if err != nil || stop {
				return out, err
			}
		}
		return out, nil
	}
	c := t.b(bRecords).Cursor()
	for k, _ := c.Last(); k != nil; k, _ = c.Prev() {
		stop, err := visit(binary.BigEndian.Uint64(k))
		if err != nil || stop {
			return out, err
		}
	}
	return out, nil
}

// Each calls fn with every record q selects, oldest first, one at a time: for reading
// a large journal without holding it in memory. fn returns false to stop. Limit is
// ignored.
func (t *Tx) Each(q Query, fn func(*Record) bool) error {
	c := t.b(bRecords).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		data, err := unpack(v)
		if err != nil {
			return fmt.Errorf("journal record %d: %w", binary.BigEndian.Uint64(k), err)
		}
		var r Record
		if err := json.Unmarshal(data, &r); err != nil {
			return fmt.Errorf("journal record %d: %w", binary.BigEndian.Uint64(k), err)
		}
		if q.match(&r) && !fn(&r) {
			return nil
		}
	}
	return nil
}

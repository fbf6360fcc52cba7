package journal

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
)

// Commands left running: an exec whose vfsctl stopped while its command ran is
// settled by recovery, but the command's process group may live on and go on
// writing. Recovery lists the exec here with its runner (its Group), so that later
// looks and execs can tell that the group still runs, and whose it is, without
// reading every record. An entry stays until a look finds the group gone.
//
// The list lives in the meta bucket under leftPrefix, as the lazy list does: a
// journal written before it opens unchanged. Anyone may have written it: an entry
// is trusted only to refuse or to add a note.

var leftPrefix = []byte("left\x00")

func leftKey(seq uint64) []byte { return listKey(leftPrefix, seq) }

// SetLeftRunning lists exec seq's command as running on after its vfsctl stopped.
func (t *Tx) SetLeftRunning(seq uint64, run Runner) error {
	v, err := json.Marshal(run)
	if err != nil {
		return err
	}
	return t.b(bMeta).Put(leftKey(seq), v)
}

// LeftRunning returns the listed execs with their runners, by record.
func (t *Tx) LeftRunning() map[uint64]Runner {
	out := map[uint64]Runner{}
	c := t.b(bMeta).Cursor()
	for k, v := c.Seek(leftPrefix); k != nil && bytes.HasPrefix(k, leftPrefix); k, v = c.Next() {
		var run Runner
		if len(k) == len(leftPrefix)+8 && len(v) < 1024 && json.Unmarshal(v, &run) == nil {
			out[binary.BigEndian.Uint64(k[len(leftPrefix):])] = run
		}
	}
	return out
}

// ClearLeftRunning takes exec seq off the list: its command's group is gone.
func (t *Tx) ClearLeftRunning(seq uint64) error {
	return t.b(bMeta).Delete(leftKey(seq))
}

package journal

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	kflate "github.com/klauspost/compress/flate"
)

// viaJSON is r as the first codec gave it back: the JSON of the record. It is the
// oracle for the compact codec, which must give back the same record.
func viaJSON(t *testing.T, r *Record) *Record {
	t.Helper()
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var out Record
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

// fill sets every exported field of v, recursively, to a value that is not zero: a
// field added to Record (or File, Edit, Splice, Refusal) is then in the round trip
// below, and the test fails if the compact codec loses it.
func fill(v reflect.Value, rng *rand.Rand) {
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Unix(rng.Int64N(1<<33), rng.Int64N(1e9)).In(time.FixedZone("", 3600*int(rng.IntN(5)-2)))))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), rng)
			}
		}
	case reflect.String:
		v.SetString([]string{"a", "é\x00\"\\", "h\nx", "0123456789abcdef"}[rng.IntN(4)])
	case reflect.Int, reflect.Int64:
		v.SetInt(rng.Int64N(1 << 40))
	case reflect.Uint8:
		v.SetUint(rng.Uint64N(256))
	case reflect.Uint32, reflect.Uint64:
		v.SetUint(rng.Uint64N(1<<32) + 1)
	case reflect.Float64:
		v.SetFloat(rng.Float64())
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), rng)
	case reflect.Slice:
		n := 1 + rng.IntN(3)
		v.Set(reflect.MakeSlice(v.Type(), n, n))
		for i := range n {
			fill(v.Index(i), rng)
		}
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i), rng)
		}
	default:
		panic("fill: no case for " + v.Kind().String())
	}
}

func TestRecordCodecAsJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var cases []*Record
	for range 200 {
		r := new(Record)
		fill(reflect.ValueOf(r).Elem(), rng)
		for i := range r.Files {
			if i%2 == 0 {
				r.Files[i].Before, r.Files[i].After = Hash([]byte{byte(i)}), ""
			}
		}
		cases = append(cases, r)
	}
	cases = append(cases,
		&Record{},
		&Record{Seq: 3, Time: time.Now(), Files: []File{{Splices: []Splice{{Old: nil, New: []byte{}}, {Old: []byte{}, New: nil}}}}},
		&Record{Seq: 4, Time: time.Date(2026, 1, 2, 3, 4, 5, 6, time.Local), Files: []File{{Before: "ABCDEF", After: "0" + Hash(nil)[1:]}}},
		&Record{Seq: 5, Time: time.Date(1500, 1, 2, 3, 4, 5, 6, time.UTC)},
	)
	for i, r := range cases {
		r.Seq = uint64(i + 1)
		data, err := encodeRecord(r)
		if err != nil {
			t.Fatal(err)
		}
		// The form written now, and those earlier vfsctl wrote: codecNoDiff at
		// klauspost's level 6 (before the level went down) and with compress/flate
		// (before its compressor changed), codecHashes, codecRecord.
		forms := [][]byte{data, encodeLevel6(t, r), encodeOld(t, r, codecNoDiff), encodeRecord3(t, r), encodeRecord2(t, r)}
		for _, data := range forms {
			got, err := decodeRecord(r.Seq, data, nil, nil)
			if err != nil {
				t.Fatalf("case %d, codec %d: %v", i, data[0], err)
			}
			want := viaJSON(t, r)
			for i := range want.Files {
				want.Files[i].DiffError = "" // said when a diff is read, never stored
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("case %d, codec %d:\n got %+v\nwant %+v", i, data[0], got, want)
			}
		}
	}
}

// encodeRecord2 is r in the form the code before codecHashes wrote: codecRecord, the
// hashes inside the compressed body.
func encodeRecord2(t *testing.T, r *Record) []byte { return encodeOld(t, r, codecRecord) }

// encodeRecord3 is r in the form the code before codecNoDiff wrote: codecHashes, each
// diff a string.
func encodeRecord3(t *testing.T, r *Record) []byte { return encodeOld(t, r, codecHashes) }

// encodeLevel6 is r as vfsctl wrote it before records were compressed at a lower
// level: codecNoDiff, compressed by klauspost's flate at level 6.
func encodeLevel6(t *testing.T, r *Record) []byte {
	t.Helper()
	body, err := recordText(r, codecNoDiff)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, _ := kflate.NewWriterDict(&buf, 6, []byte(recordDict))
	w.Write(body)
	w.Close()
	return compactForm(r, codecNoDiff, buf.Bytes())
}

// encodeOld is r in an older compact codec, as the code of its day wrote it: the
// body compressed, the hash section from codecHashes on, the state and duration.
func encodeOld(t *testing.T, r *Record, codec byte) []byte {
	t.Helper()
	body, err := recordText(r, codec)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, _ := flate.NewWriterDict(&buf, flate.DefaultCompression, []byte(recordDict))
	w.Write(body)
	w.Close()
	return compactForm(r, codec, buf.Bytes())
}

// compactForm is a compact codec's stored form of r around z, its compressed body.
func compactForm(r *Record, codec byte, z []byte) []byte {
	out := append([]byte{codec}, binary.AppendUvarint(nil, uint64(len(z)))...)
	out = append(out, z...)
	if codec != codecRecord {
		out = appendHashes(out, r, nil)
	}
	out = appendSymbol(out, string(r.State))
	return binary.AppendUvarint(out, uint64(max(r.Duration, 0)))
}

// A stored form cut short or scrambled is an error, never a panic.
func TestRecordCodecDamage(t *testing.T) {
	r := &Record{Seq: 1, Time: time.Now(), Tool: "edit_file", Args: `{"path":"a"}`,
		Files: []File{{Path: "a", Op: OpEdit, Before: Hash(nil), After: Hash([]byte("x")), Splices: []Splice{{Start: 1, Old: []byte("a"), New: []byte("b")}}}}}
	data, _ := encodeRecord(r)
	for n := range len(data) {
		decodeRecord(1, data[:n], nil, nil)
		bad := append([]byte(nil), data...)
		bad[n] ^= 0x5a
		decodeRecord(1, bad, nil, nil)
	}
}

// oldFact is a fact as version 2 wrote it (the code before durations were kept).
func oldFact(r *Record) []byte {
	var b []byte
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = append(b, 2)
	b = binary.AppendVarint(b, r.Time.UnixNano())
	str(r.Session)
	str(r.Tool)
	str(string(r.State))
	str(r.Kind)
	str(r.OriginOf())
	var flags byte
	if r.DryRun() {
		flags |= 1
	}
	if r.Undo != 0 {
		flags |= 2
	}
	b = append(b, flags)
	paths := r.Paths()
	b = binary.AppendUvarint(b, uint64(len(paths)))
	for _, p := range paths {
		str(p)
	}
	n := 0
	for _, f := range r.Files {
		n += len(f.Edits)
	}
	b = binary.AppendUvarint(b, uint64(n))
	for _, f := range r.Files {
		for _, e := range f.Edits {
			str(e.Tier)
			g := byte(0)
			if e.Gutter {
				g = 1
			}
			b = append(b, g)
			b = binary.AppendUvarint(b, uint64(e.ContextLines))
			b = binary.AppendUvarint(b, uint64(e.ContextBytes))
			b = binary.AppendUvarint(b, uint64(len(e.Folded)))
			for _, fo := range e.Folded {
				str(fo)
			}
		}
	}
	return b
}

// A journal that the previous code wrote (records as compressed JSON, version 2
// facts, and records older still with no fact) reads as it did, goes on growing in
// the new form, and rebuilds content down a chain of edits that crosses the two.
func TestOldRecordsRead(t *testing.T) {
	j := open(t, filepath.Join(t.TempDir(), "journal.db"))
	v0, v1, v2, v3 := []byte("one\ntwo\n"), []byte("one\nTWO\n"), []byte("ONE\nTWO\n"), []byte("ONE\nTWO\nthree\n")
	edit := func(before, after []byte, start int, old, new string) File {
		return File{Path: "a.txt", Op: OpEdit, Before: Hash(before), After: Hash(after), BeforeMode: 0o644, AfterMode: 0o644,
			Splices: []Splice{{Start: start, Old: []byte(old), New: []byte(new)}}, Diff: "-" + old + "\n+" + new + "\n",
			Edits: []Edit{{Index: 0, Tier: "exact", Lines: [][2]int{{1, 1}}}}}
	}
	now := time.Date(2026, 12, 1, 10, 0, 0, 123456789, time.UTC)
	old := []*Record{
		{Seq: 1, Time: now, Duration: time.Millisecond, Session: "s", Tool: "create_file", Args: `{"path":"a.txt","content":"one\ntwo\n"}`, ArgsSize: 38, State: Committed,
			Files: []File{{Path: "a.txt", Op: OpCreate, After: Hash(v0), AfterMode: 0o644, AfterBlob: true}}},
		{Seq: 2, Time: now.Add(time.Second), Duration: 2 * time.Millisecond, Session: "s", Tool: "edit_file", Origin: OriginModel,
			Args: `{"path":"a.txt","edits":[{"oldText":"two","newText":"TWO"}]}`, ArgsSize: 56, State: Committed, Files: []File{edit(v0, v1, 4, "two", "TWO")}},
		{Seq: 3, Time: now.Add(2 * time.Second), Session: "s", Tool: "edit_file", State: Failed, Kind: "text_not_found", Message: "not found",
			Refusal: &Refusal{Edit: 0, Lines: []int{1}, Tiers: []string{"exact"}}, Files: []File{{Path: "a.txt", Op: OpEdit}}},
	}
	err := j.Update(func(t *Tx) error {
		if _, err := t.PutBlob(v0); err != nil {
			return err
		}
		for _, r := range old {
			data, _ := json.Marshal(r)
			key := seqKey(r.Seq)
			t.b(bRecords).NextSequence()
			if err := t.b(bRecords).Put(key, pack(data)); err != nil {
				return err
			}
			if r.Seq > 1 { // record 1 predates facts
				t.b(bFacts).Put(key, oldFact(r))
			}
			t.b(bByPath).Put(indexKey("a.txt", r.Seq), nil)
			t.b(bBySession).Put(indexKey("s", r.Seq), nil)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// New records on top, the way txn writes them: pending, then committed.
	add := func(r *Record) {
		t.Helper()
		r.State = Pending
		if err := j.Commit(func(t *Tx) error { return t.Put(r) }); err != nil {
			t.Fatal(err)
		}
		r.State, r.Duration = Committed, 3*time.Millisecond
		if err := j.Commit(func(t *Tx) error { return t.Put(r) }); err != nil {
			t.Fatal(err)
		}
	}
	add(&Record{Time: now.Add(3 * time.Second), Session: "s", Tool: "edit_file", Files: []File{edit(v1, v2, 0, "one", "ONE")}})
	add(&Record{Time: now.Add(4 * time.Second), Session: "t", Tool: "edit_file", Files: []File{edit(v2, v3, 4, "TWO\n", "TWO\nthree\n")}})

	j.View(func(tx *Tx) error {
		for _, r := range old {
			got, err := tx.Get(r.Seq)
			if err != nil || !reflect.DeepEqual(got, viaJSON(t, r)) {
				t.Errorf("old record %d: %+v, %v", r.Seq, got, err)
			}
		}
		var seen []uint64
		tx.Each(Query{}, func(r *Record) bool {
			seen = append(seen, r.Seq)
			if r.Seq > 3 && (r.State != Committed || r.Duration != 3*time.Millisecond) {
				t.Errorf("record %d reads %s, %s", r.Seq, r.State, r.Duration)
			}
			return true
		})
		if !equal(seen, []uint64{1, 2, 3, 4, 5}) {
			t.Errorf("Each saw %v", seen)
		}
		if found, _ := tx.Find(Query{Path: "a.txt", Failed: true}); len(found) != 1 || found[0].Seq != 3 {
			t.Errorf("failed calls on a.txt: %v", found)
		}
		for _, v := range [][]byte{v0, v1, v2, v3} {
			if got, err := tx.Content("a.txt", Hash(v)); err != nil || string(got) != string(v) {
				t.Errorf("content %q: %q, %v", v, got, err)
			}
		}
		st, err := tx.Stats(Query{})
		if err != nil || st.Calls != 5 || st.Failed != 1 {
			t.Errorf("stats: %+v, %v", st, err)
		}
		if problems, _, records := tx.Verify(); len(problems) != 0 || records != 5 {
			t.Errorf("verify: %v, %d records", problems, records)
		}
		return nil
	})
}

// A fact reads the same whether written as symbols (version 4) or as strings
// (version 2), for the strings the symbols list and for any others.
func TestFactSymbols(t *testing.T) {
	for _, r := range []*Record{
		{Seq: 1, Time: time.Now(), Session: "s", Tool: "edit_file", State: Committed, Origin: OriginModel,
			Files: []File{{Path: "a", Op: OpEdit, Edits: []Edit{{Tier: "typography", Folded: []string{"curly quotes"}, ContextLines: 2}}}}},
		{Seq: 2, Time: time.Now(), Session: "", Tool: "my_tool", State: "odd", Kind: "my_kind", Origin: "embedder",
			Files: []File{{Path: "b", Op: OpEdit, Edits: []Edit{{Tier: "fuzzy"}}}}},
	} {
		now, err := decodeFact(r.Seq, encodeFact(r))
		if err != nil {
			t.Fatal(err)
		}
		was, err := decodeFact(r.Seq, oldFact(r))
		if err != nil {
			t.Fatal(err)
		}
		now.version, now.duration = was.version, was.duration
		if !reflect.DeepEqual(now, was) {
			t.Errorf("record %d: fact %+v, as version 2 %+v", r.Seq, now, was)
		}
	}
}

// refChain is a history of a.txt and b.txt: a create, a read, edits of one file and
// of two, and a refused edit, each starting from what the call before on the file
// left.
func refChain() (recs []*Record, blobs [][]byte) {
	v := [][]byte{[]byte("one\ntwo\n"), []byte("one\nTWO\n"), []byte("ONE\nTWO\n"), []byte("ONE\nTWO\nthree\n")}
	b := []byte("bee\n")
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	edit := func(path string, before, after []byte, start int, old, new string) File {
		return File{Path: path, Op: OpEdit, Before: Hash(before), After: Hash(after), BeforeMode: 0o644, AfterMode: 0o644,
			Splices: []Splice{{Start: start, Old: []byte(old), New: []byte(new)}}, Diff: "-" + old + "\n+" + new + "\n"}
	}
	recs = []*Record{
		{Tool: "create_file", Files: []File{{Path: "a.txt", Op: OpCreate, After: Hash(v[0]), AfterMode: 0o644, AfterBlob: true}}},
		{Tool: "read_file", Files: []File{{Path: "a.txt", Op: OpRead, Before: Hash(v[0])}}},
		{Tool: "edit_file", Files: []File{edit("a.txt", v[0], v[1], 4, "two", "TWO")}},
		{Tool: "apply_changes", Files: []File{{Path: "b.txt", Op: OpCreate, After: Hash(b), AfterBlob: true}, edit("a.txt", v[1], v[2], 0, "one", "ONE")}},
		{Tool: "edit_file", Files: []File{edit("b.txt", b, v[3], 0, "bee\n", "ONE\nTWO\nthree\n"), edit("a.txt", v[2], v[3], 8, "", "three\n")}},
		{Tool: "edit_file", Kind: "text_not_found", Files: []File{{Path: "a.txt", Op: OpEdit, Before: Hash(v[3])}}},
	}
	for i, r := range recs {
		r.Time, r.Session, r.Args, r.Duration = now.Add(time.Duration(i)*time.Second), "s", `{"path":"a.txt"}`, time.Millisecond
		r.State = Committed
		if r.Kind != "" {
			r.State = Failed
		}
	}
	return recs, [][]byte{v[0], b}
}

// putChain writes recs into j as txn does, pending then committed, each encoded
// ahead, and then stores the first old of them again in the form enc gives.
func putChain(t *testing.T, j *Journal, recs []*Record, blobs [][]byte, old int, enc func(*Record) []byte) {
	t.Helper()
	err := j.Update(func(tx *Tx) error {
		for _, b := range blobs {
			if _, err := tx.PutBlob(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range recs {
		final := r.State
		r.State = Pending
		if err := j.Commit(func(tx *Tx) error { return tx.Put(r) }); err != nil {
			t.Fatal(err)
		}
		r.State = final
		e, err := Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		err = j.Commit(func(tx *Tx) error {
			if err := tx.PutEncoded(e); err != nil {
				return err
			}
			if i < old {
				return tx.b(bRecords).Put(seqKey(r.Seq), enc(r))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// A before hash that the call before on the file ended at is stored as a reference,
// and reads back whole, by Get and Each alike; one that no record ended at is stored
// whole.
func TestBeforeReferences(t *testing.T) {
	j := open(t, filepath.Join(t.TempDir(), "journal.db"))
	recs, blobs := refChain()
	putChain(t, j, recs, blobs, 0, nil)
	j.View(func(tx *Tx) error {
		// Per record, per file: whether its before hash is a reference.
		want := [][]bool{{false}, {true}, {true}, {false, true}, {true, true}, {true}}
		for i, r := range recs {
			hs := decoder{b: hashSection(tx.b(bRecords).Get(seqKey(r.Seq)))}
			for k := range r.Files {
				_, ref := hs.hashOrRef()
				hs.hash()
				if (ref.back > 0) != want[i][k] {
					t.Errorf("record %d, file %d: reference %+v", r.Seq, k, ref)
				}
			}
			if hs.err != nil {
				t.Errorf("record %d: %v", r.Seq, hs.err)
			}
			got, err := tx.Get(r.Seq)
			if err != nil || !reflect.DeepEqual(got, viaJSON(t, r)) {
				t.Errorf("record %d:\n got %+v, %v\nwant %+v", r.Seq, got, err, viaJSON(t, r))
			}
		}
		n := 0
		tx.Each(Query{}, func(r *Record) bool {
			if !reflect.DeepEqual(r, viaJSON(t, recs[n])) {
				t.Errorf("Each, record %d: %+v", r.Seq, r)
			}
			n++
			return true
		})
		if n != len(recs) {
			t.Errorf("Each read %d records", n)
		}
		last := recs[4].Files[1].After
		if got, err := tx.Content("a.txt", last); err != nil || Hash(got) != last {
			t.Errorf("content at record 5: %q, %v", got, err)
		}
		return nil
	})
	// A record stored again keeps the hashes of what it wrote: a reference may name them.
	r := *recs[2]
	r.Files = []File{r.Files[0]}
	r.Files[0].After = Hash([]byte("other"))
	if err := j.Update(func(tx *Tx) error { return tx.Put(&r) }); err == nil {
		t.Errorf("record 3 stored with another after hash")
	}
	r.Files = nil
	if err := j.Update(func(tx *Tx) error { return tx.Put(&r) }); err == nil {
		t.Errorf("record 3 stored without its file")
	}
	r.Files = []File{recs[2].Files[0]}
	r.Files[0].After, r.State, r.Notes = recs[2].Files[0].After, RolledBack, []string{"rolled back"}
	if err := j.Update(func(tx *Tx) error { return tx.Put(&r) }); err != nil {
		t.Errorf("record 3 rolled back: %v", err)
	}
}

// A journal whose first records are in codecRecord, the form before codecHashes,
// reads as the same journal written all in the new form: records (show), queries
// (log), stats, and content down the chain of edits that crosses the two forms.
func TestCodecRecordRead(t *testing.T) {
	recs, blobs := refChain()
	now := open(t, filepath.Join(t.TempDir(), "now.db"))
	putChain(t, now, recs, blobs, 0, nil)
	recs, blobs = refChain()
	was := open(t, filepath.Join(t.TempDir(), "was.db"))
	putChain(t, was, recs, blobs, 3, func(r *Record) []byte { return encodeRecord2(t, r) })
	type view struct {
		Records []*Record
		Found   [][]*Record
		Stats   *Stats
		Content []byte
	}
	read := func(j *Journal) (v view) {
		err := j.View(func(tx *Tx) error {
			if c := tx.b(bRecords).Get(seqKey(1)); (j == was) != (c[0] == codecRecord) {
				t.Errorf("record 1 in codec %d", c[0])
			}
			for _, r := range recs {
				got, err := tx.Get(r.Seq)
				if err != nil {
					return err
				}
				v.Records = append(v.Records, got)
			}
			for _, q := range []Query{{Path: "a.txt"}, {Path: "b.txt"}, {Failed: true}, {Since: recs[2].Time}} {
				found, err := tx.Find(q)
				if err != nil {
					return err
				}
				v.Found = append(v.Found, found)
			}
			var err error
			if v.Stats, err = tx.Stats(Query{}); err != nil {
				return err
			}
			v.Content, err = tx.Content("a.txt", recs[4].Files[1].After)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	a, b := read(now), read(was)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("the journal in both forms reads\n%+v\n%+v", a, b)
	}
	for i, r := range recs {
		if !reflect.DeepEqual(b.Records[i], viaJSON(t, r)) {
			t.Errorf("record %d: %+v", r.Seq, b.Records[i])
		}
	}
}

// A call's record is encoded pending, then committed: the second encoding reuses the
// compressed body of the first, and a record whose body differs, even by one byte of
// the same length, is compressed afresh and reads as itself.
func TestRecordCompressedOnce(t *testing.T) {
	r := &Record{Seq: 7, Time: time.Now(), Tool: "edit_file", State: Pending, Args: `{"path":"a.go"}`,
		Files: []File{{Path: "a.go", Op: OpEdit, Before: Hash([]byte("x := 0")), After: Hash([]byte("x := 1")),
			Splices: []Splice{{Start: 5, Old: []byte("0"), New: []byte("1")}}}}}
	pending, err := encodeRecord(r)
	if err != nil {
		t.Fatal(err)
	}
	done := *r
	done.State, done.Duration = Committed, 3*time.Millisecond
	committed, _ := encodeRecord(&done)
	if !sameRecord(pending, committed) {
		t.Fatal("the committed record's body differs from the pending one's")
	}
	other := done
	other.Files = []File{r.Files[0]}
	other.Files[0].Splices = []Splice{{Start: 5, Old: []byte("0"), New: []byte("2")}}
	data, _ := encodeRecord(&other)
	got, err := decodeRecord(7, data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := got.Files[0].Splices; len(s) != 1 || string(s[0].New) != "2" || got.State != Committed {
		t.Fatalf("a record one byte away from the one before reads as %+v, state %s", s, got.State)
	}
	if got, err := decodeRecord(7, committed, nil, nil); err != nil || got.State != Committed || got.Duration != done.Duration || string(got.Files[0].Splices[0].New) != "1" {
		t.Fatalf("the committed record reads as %+v, %v", got, err)
	}
}

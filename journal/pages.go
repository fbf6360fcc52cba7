package journal

import (
	"bytes"
	"encoding/binary"
	"hash/fnv"
	"os"
)

// A reader of bbolt's file format just deep enough to look up one key of one
// top-level bucket in the tree that a meta page names, without bbolt and without
// writing: recovery uses it to check that the tree a log's meta pages point to is
// the state that log started from (wal.go) before it writes them into the file.
// Every page it reads is bounded by the file's size, and the walk by a depth.

const (
	pageHeader   = 16
	branchFlag   = 0x01
	leafFlag     = 0x02
	bucketFlag   = 0x01 // a leaf element that is a bucket
	elementSize  = 16
	maxTreeDepth = 32
)

// pageFile reads pages of a bbolt file.
type pageFile struct {
	f        *os.File
	size     int64
	pageSize int
}

// page returns page id with its overflow, or nil if it does not fit in the file.
func (p pageFile) page(id uint64) []byte {
	ps := int64(p.pageSize)
	if id < 2 || id > uint64(p.size/ps) {
		return nil
	}
	head := make([]byte, pageHeader)
	if _, err := p.f.ReadAt(head, int64(id)*ps); err != nil {
		return nil
	}
	n := (int64(binary.LittleEndian.Uint32(head[12:])) + 1) * ps
	if int64(id)*ps+n > p.size {
		return nil
	}
	b := make([]byte, n)
	if _, err := p.f.ReadAt(b, int64(id)*ps); err != nil {
		return nil
	}
	return b
}

// meta is what a bbolt meta page holds that the journal reads without bbolt.
type meta struct {
	pageSize int64
	root     uint64 // the root bucket's root page
	pages    int64  // the high-water mark, in pages
	txid     uint64
	version  uint32
	freelist uint64 // the freelist's page, or noFreelist
}

// noFreelist is the freelist page a meta page names when the freelist was not
// written (bbolt's NoFreelistSync): bbolt then finds the free pages by walking the
// whole tree when it opens the file.
const noFreelist = ^uint64(0)

// readMeta reads the meta page that begins m (80 bytes are enough); ok is false where
// it is not a valid one (its magic or its checksum).
func readMeta(m []byte) (meta, bool) {
	le := binary.LittleEndian
	if len(m) < 80 || le.Uint32(m[16:]) != 0xED0CDAED {
		return meta{}, false
	}
	h := fnv.New64a()
	h.Write(m[16:72])
	if h.Sum64() != le.Uint64(m[72:]) {
		return meta{}, false
	}
	return meta{pageSize: int64(le.Uint32(m[24:])), root: le.Uint64(m[32:]), pages: int64(le.Uint64(m[56:])), txid: le.Uint64(m[64:]),
		version: le.Uint32(m[20:]), freelist: le.Uint64(m[48:])}, true
}

// metaRoot returns the root bucket's root page named by the valid meta page of
// metas (two pages) with the highest transaction id.
func metaRoot(metas []byte, pageSize int) (root uint64, ok bool) {
	var best uint64
	for i := range 2 {
		if m, valid := readMeta(metas[i*pageSize:]); valid && (!ok || m.txid > best) {
			best, root, ok = m.txid, m.root, true
		}
	}
	return root, ok
}

// lookup finds key in the tree whose root is page root (or, when inline is not nil,
// the inline bucket page it holds), returning its value and whether it is a bucket.
func (p pageFile) lookup(root uint64, inline []byte, key []byte) (val []byte, bucket, ok bool) {
	pg := inline
	for depth := 0; depth < maxTreeDepth; depth++ {
		if pg == nil {
			if pg = p.page(root); pg == nil {
				return nil, false, false
			}
		}
		flags, count := binary.LittleEndian.Uint16(pg[8:]), int(binary.LittleEndian.Uint16(pg[10:]))
		if pageHeader+count*elementSize > len(pg) {
			return nil, false, false
		}
		switch {
		case flags&leafFlag != 0:
			for i := range count {
				e := pageHeader + i*elementSize
				pos, ks, vs := int(binary.LittleEndian.Uint32(pg[e+4:])), int(binary.LittleEndian.Uint32(pg[e+8:])), int(binary.LittleEndian.Uint32(pg[e+12:]))
				k0 := e + pos
				if pos < 0 || ks < 0 || vs < 0 || k0+ks+vs > len(pg) || k0 < 0 {
					return nil, false, false
				}
				if bytes.Equal(pg[k0:k0+ks], key) {
					return pg[k0+ks : k0+ks+vs], binary.LittleEndian.Uint32(pg[e:])&bucketFlag != 0, true
				}
			}
			return nil, false, false
		case flags&branchFlag != 0:
			next := uint64(0)
			for i := range count {
				e := pageHeader + i*elementSize
				pos, ks := int(binary.LittleEndian.Uint32(pg[e:])), int(binary.LittleEndian.Uint32(pg[e+4:]))
				k0 := e + pos
				if pos < 0 || ks < 0 || k0+ks > len(pg) || k0 < 0 {
					return nil, false, false
				}
				if i > 0 && bytes.Compare(pg[k0:k0+ks], key) > 0 {
					break
				}
				next = binary.LittleEndian.Uint64(pg[e+8:])
			}
			root, pg = next, nil
		default:
			return nil, false, false
		}
	}
	return nil, false, false
}

// metaValue looks up key in the meta bucket of the tree that metas name.
func metaValue(f *os.File, size int64, metas []byte, pageSize int, key []byte) ([]byte, bool) {
	p := pageFile{f: f, size: size, pageSize: pageSize}
	root, ok := metaRoot(metas, pageSize)
	if !ok {
		return nil, false
	}
	hdr, isBucket, ok := p.lookup(root, nil, []byte(bMeta))
	if !ok || !isBucket || len(hdr) < 16 {
		return nil, false
	}
	var inline []byte
	broot := binary.LittleEndian.Uint64(hdr)
	if broot == 0 {
		if inline = hdr[16:]; len(inline) < pageHeader {
			return nil, false
		}
	}
	v, isBucket, ok := p.lookup(broot, inline, key)
	return v, ok && !isBucket
}

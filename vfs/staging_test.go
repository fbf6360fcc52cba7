package vfs

import (
	"path"
	"testing"
)

// Only names of the shape vfsctl stages under are its own: those AsideName and a
// staged write make, not another's name that merely starts with the prefix.
func TestIsStaging(t *testing.T) {
	fs, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	if err := fs.Create("a.txt", []byte("a\n")); err != nil {
		t.Fatal(err)
	}
	var temp string
	fs.OnTemp(func(name string) { temp = name })
	if err := fs.Replace("a.txt", []byte("b\n")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{path.Base(AsideName("d/x.txt")), path.Base(temp)} {
		if !IsStaging(name) {
			t.Errorf("%q, a name vfsctl made, is not taken as staging", name)
		}
	}
	for _, name := range []string{".vfsctl-tmp-notes", ".vfsctl-tmp-1234", ".vfsctl-aside-0123456789ABCDEF", ".vfsctl-aside-0123456789abcdef0", "x.vfsctl-tmp-0123456789abcdef", ".vfsctl-tmp-", "0123456789abcdef", ".vfsctl-tmp-.vfsctl-aside-0123456789abcdef"} {
		if IsStaging(name) {
			t.Errorf("%q is taken as vfsctl's staging", name)
		}
	}
}

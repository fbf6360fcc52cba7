package toolapi

import "runtime/debug"

// Version is the version of vfsctl this program was built from: the module version
// ("dev" when it has none, as in a build of a checkout with an older toolchain),
// followed by the VCS revision and whether the tree was modified, when the build
// recorded them: "v1.4.0", "dev (revision 99c2e29a1b2c, modified)".
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	v := bi.Main.Version
	if bi.Main.Path != modulePath {
		// vfsctl is a dependency of the program: its version is in the module list.
		v = ""
		for _, m := range bi.Deps {
			if m.Path == modulePath {
				v = m.Version
			}
		}
	}
	if v == "" || v == "(devel)" {
		v = "dev"
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" || bi.Main.Path != modulePath {
		return v
	}
	s := v + " (revision " + rev[:min(12, len(rev))]
	if modified == "true" {
		s += ", modified"
	}
	return s + ")"
}

// modulePath is the module vfsctl is built from.
const modulePath = "github.com/vfsctl/vfsctl"

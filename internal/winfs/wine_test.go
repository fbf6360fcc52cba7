//go:build windows && wine

package winfs_test

// Under Wine, os.Remove needs the standard library's fallback (internal/winetest).
import _ "github.com/vfsctl/vfsctl/internal/winetest"
